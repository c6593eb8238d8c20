// The processes of a cluster on one machine (docs/SCALING.md): a redis-server (Debian's) and
// relays started as child processes (`server/main.ts`) sharing one data folder. Used by
// `npm run cluster`, `npm run bench:cluster` and the cluster tests. Every wait is bounded.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export function redisServerPath(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Resolves when `child` prints `text` (on stdout or stderr), rejects after `ms`. */
function waitForOutput(child: ChildProcess, text: string, ms: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () =>
        reject(new Error(`${what} did not print "${text}" within ${ms} ms:\n${seen.slice(-2000)}`)),
      ms,
    );
    const on = (d: Buffer) => {
      seen += d.toString();
      if (seen.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', on);
    child.stderr?.on('data', on);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(
        new Error(`${what} exited (${code}) before printing "${text}":\n${seen.slice(-2000)}`),
      );
    });
  });
}

export interface RedisProc {
  url: string;
  port: number;
  start(): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A throwaway redis-server without persistence (a restart comes back empty, the harder case). */
export function redisOn(port: number, dir: string): RedisProc {
  let child: ChildProcess | null = null;
  const bin = redisServerPath();
  if (!bin)
    throw new Error(
      'redis-server is not installed (apt-get install redis-server; .ci/run does it)',
    );
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn(
        bin,
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      await waitForOutput(child, 'Ready to accept connections', 10_000, 'redis-server');
    },
    async stop(signal = 'SIGTERM') {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill(signal);
      });
    },
  };
}

export interface RelayProc {
  id: string;
  url: string;
  child: ChildProcess;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startRelayProc(opts: {
  id: string;
  port: number;
  dataDir: string;
  token: string;
  redisUrl?: string;
  leaseMs?: number;
  host?: string;
  env?: Record<string, string>;
}): Promise<RelayProc> {
  const url = `http://${opts.host ?? '127.0.0.1'}:${opts.port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(opts.port),
      HOST: opts.host ?? '127.0.0.1',
      DATA_DIR: opts.dataDir,
      ELECTION_LAB_TOKEN: opts.token,
      ...(opts.redisUrl
        ? {
            REDIS_URL: opts.redisUrl,
            RELAY_ID: opts.id,
            PUBLIC_URL: url,
            LEASE_MS: String(opts.leaseMs ?? 1500),
          }
        : {}),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForOutput(child, 'Election Lab relay is up', 30_000, `relay ${opts.id}`);
  return {
    id: opts.id,
    url,
    child,
    kill: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

export type ClusterApi = (
  base: string,
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: any; url: string }>;

/**
 * REST calls to a cluster that follow its 307 redirects by hand: `fetch` drops the
 * Authorization header on a redirect to another origin, so each hop sends it again.
 */
export function clusterApi(token: string): ClusterApi {
  return async (base, method, path, body) => {
    let url = base + path;
    for (let hop = 0; hop < 3; hop++) {
      const res = await fetch(url, {
        method,
        redirect: 'manual',
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(10_000),
      });
      const location = res.headers.get('location');
      if (res.status === 307 && location) {
        url = location;
        continue;
      }
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, url };
    }
    throw new Error(`too many redirects for ${path}`);
  };
}
