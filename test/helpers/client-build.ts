// Builds the browser app into client/dist for the end-to-end tests when it is missing or older
// than its sources (client/ and shared/), with Vite's build() API. vitest's global setup builds
// it once before any test file runs; a test file that still finds it stale (sources edited
// during the run) builds into a fresh folder and swaps it in, so a server another file is
// running never sees an emptied client/dist.
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const CLIENT_DIST = join(root, 'client', 'dist');

function newest(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = 0;
  for (const name of readdirSync(path))
    if (!name.startsWith('dist') && name !== 'node_modules')
      m = Math.max(m, newest(join(path, name)));
  return m;
}

export function clientBuildIsStale(): boolean {
  const index = join(CLIENT_DIST, 'index.html');
  if (!existsSync(index)) return true;
  const built = statSync(index).mtimeMs;
  return newest(join(root, 'client')) > built || newest(join(root, 'shared')) > built;
}

export async function ensureClientBuild(): Promise<void> {
  if (!clientBuildIsStale()) return;
  const { build } = await import('vite');
  const fresh = `${CLIENT_DIST}.build-${process.pid}-${Date.now()}`;
  await build({
    configFile: join(root, 'client', 'vite.config.ts'),
    logLevel: 'error',
    build: { outDir: fresh, emptyOutDir: true },
  });
  const old = `${CLIENT_DIST}.old-${process.pid}-${Date.now()}`;
  if (existsSync(CLIENT_DIST)) renameSync(CLIENT_DIST, old);
  renameSync(fresh, CLIENT_DIST);
  rmSync(old, { recursive: true, force: true });
}
