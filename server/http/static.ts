// The dashboard: the Vue app built into client/dist, with index.html answering every other GET
// so client-side routes (/lab/demo/instructor...) load. Without a build, / explains how to make one.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Express } from 'express';

const NOT_BUILT = `Election Lab relay is running, but the dashboard is not built.

Run \`npm run build\` (or \`npm start\`, which builds first) to serve the dashboard here.
The relay itself works without it:
  REST API     /api  (try /api/health and /api/labs)
  WebSocket    /ws   (JSON frames, see docs/PROTOCOL.md)
  socket.io    /socket.io/
`;

const isReserved = (path: string): boolean =>
  path.startsWith('/api') || path === '/ws' || path.startsWith('/socket.io');

/**
 * The workers that run students' modules (code mode's sandbox and the grader, built as
 * assets/sandbox-worker-*.js and assets/grade-worker-*.js): a worker takes its Content Security
 * Policy from its own script's response, so this one lets them load scripts from here, compile
 * WebAssembly (the QuickJS engine her module runs in, shared/grader/student-wall.ts, whose bytes
 * are inside its script) and connect nowhere: no fetch, no WebSocket, no beacon.
 */
export const SANDBOX_CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'";
const isSandboxWorker = (path: string): boolean =>
  /[\\/](sandbox|grade)-worker-[^/\\]*\.js$/.test(path);

/**
 * `locate`: in a cluster, the owner's address for a lab this relay does not have; a page of
 * such a lab (/lab/<name>/...) is redirected there, so the page's sockets and REST calls go to
 * the owner (same origin, no CORS).
 */
export function serveClient(
  app: Express,
  distDir: string | null,
  locate?: (lab: string) => Promise<string | null>,
): boolean {
  if (locate) {
    app.get(/^\/lab\/([^/]+)/, async (req, res, next) => {
      const url = await locate(decodeURIComponent(String(req.params[0])));
      if (!url) return next();
      res.redirect(307, new URL(req.originalUrl, url).toString());
    });
  }
  const index = distDir ? join(distDir, 'index.html') : null;
  if (!distDir || !index || !existsSync(index)) {
    app.get('/', (_req, res) => void res.type('text/plain').send(NOT_BUILT));
    return false;
  }
  app.use(
    express.static(distDir, {
      index: 'index.html',
      maxAge: '1h',
      setHeaders: (res, path) => {
        if (path.endsWith('.html')) res.setHeader('Cache-Control', 'no-cache');
        if (isSandboxWorker(path)) res.setHeader('Content-Security-Policy', SANDBOX_CSP);
      },
    }),
  );
  app.use((req, res, next) => {
    if (req.method !== 'GET' || isReserved(req.path)) return next();
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return true;
}
