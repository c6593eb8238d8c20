// A real cluster on 127.0.0.1 for tests and the cluster bench: a redis-server (Debian's, which
// .ci/run installs) and relays started as child processes (`server/main.ts`), sharing one data
// folder. Everything is killed in `close()`; every wait is bounded.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const CLUSTER_TOKEN = 'cluster-test-token';

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
    const timer = setTimeout(() => reject(new Error(`${what} did not print "${text}" within ${ms} ms:\n${seen.slice(-2000)}`)), ms);
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
      reject(new Error(`${what} exited (${code}) before printing "${text}":\n${seen.slice(-2000)}`));
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
  if (!bin) throw new Error('redis-server is not installed (apt-get install redis-server; .ci/run does it)');
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
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

export async function startRelayProc(opts: { id: string; port: number; dataDir: string; redisUrl?: string; leaseMs?: number; env?: Record<string, string> }): Promise<RelayProc> {
  const url = `http://127.0.0.1:${opts.port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(opts.port),
      HOST: '127.0.0.1',
      DATA_DIR: opts.dataDir,
      ELECTION_LAB_TOKEN: CLUSTER_TOKEN,
      ...(opts.redisUrl ? { REDIS_URL: opts.redisUrl, RELAY_ID: opts.id, PUBLIC_URL: url, LEASE_MS: String(opts.leaseMs ?? 1500) } : {}),
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

export interface ClusterHarness {
  redis: RedisProc;
  relays: RelayProc[];
  dataDir: string;
  api(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; url: string }>;
  close(): Promise<void>;
}

export async function startCluster(n: number, leaseMs = 1500): Promise<ClusterHarness> {
  const dataDir = await mkdtemp(join(tmpdir(), 'elab-cluster-'));
  const redis = redisOn(await freePort(), dataDir);
  await redis.start();
  const ports = await Promise.all(Array.from({ length: n }, () => freePort()));
  // One at a time: the first creates the demo lab, the others find it in the directory.
  const relays: RelayProc[] = [];
  for (let i = 0; i < n; i++) relays.push(await startRelayProc({ id: String.fromCharCode(65 + i), port: ports[i]!, dataDir, redisUrl: redis.url, leaseMs }));
  return {
    redis,
    relays,
    dataDir,
    async api(base, method, path, body) {
      // Redirects are followed by hand: fetch drops Authorization on a cross-origin redirect.
      let url = base + path;
      for (let hop = 0; hop < 3; hop++) {
        const res = await fetch(url, {
          method,
          redirect: 'manual',
          headers: { authorization: `Bearer ${CLUSTER_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(5000),
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
    },
    async close() {
      await Promise.all(relays.map((r) => r.kill('SIGKILL')));
      await redis.stop('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
