// The benchmark's measurements, each against one server process and the one load process:
// throughput (closed loop), latency at a given rate (open loop), delay accuracy (open loop on a
// lab with an injected delay) and memory per connected process.
import type { CreateLab } from '../shared/lab-config.ts';
import { startChild, type ChildHandle } from './child-proc.ts';
import type { LatencyResult, ThroughputResult } from './load-gen.ts';
import type { Transport } from './load-wire.ts';
import { sleep } from './load-gen.ts';
import { round } from './stats.ts';

export type ServerKind = 'relay' | 'baseline-ws' | 'baseline-socketio';

export interface BenchParams {
  /** Connections in the throughput and latency rings. */
  clients: number;
  /** Messages each sender keeps outstanding in the closed loop. */
  window: number;
  warmupMs: number;
  throughputMs: number;
  latencyMs: number;
  /** Messages a second for the delay-accuracy run. */
  delayRate: number;
  /** Connected processes for the memory figure. */
  memoryProcesses: number;
  /** Node flags for the relay's process (e.g. --cpu-prof). */
  relayNodeArgs: string[];
}

export interface Throughput extends ThroughputResult {
  serverCpu: number;
}

export interface Latency extends LatencyResult {
  serverCpu: number;
}

/** `args`: extra arguments for server-child.ts (the relay takes option overrides as JSON). */
export function startServer(kind: ServerKind, nodeArgs: string[] = [], args: string[] = []): Promise<ChildHandle> {
  return startChild('./server-child.ts', [kind, ...args], { nodeArgs: ['--expose-gc', ...nodeArgs] });
}

/** Stops a server child cleanly (so a CPU profile gets written). */
export async function stopServer(server: ChildHandle): Promise<void> {
  await server.request({ cmd: 'exit' }, 10_000).catch(() => {});
  await server.kill();
}

const urlOf = (server: ChildHandle): string => `http://127.0.0.1:${String(server.ready.port)}`;
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** A lab for the load's ids: no detector (the load is not an algorithm), the given link rules. */
export function benchLab(name: string, size: number, link: { delay: number; jitter: number }): CreateLab {
  return { name, size, algorithm: 'bully', detector: 'none', fabric: { link: { ...link, loss: 0, duplicate: 0 } } };
}

async function connect(load: ChildHandle, server: ChildHandle, transport: Transport, lab: string, ids: number[], report = false): Promise<void> {
  const r = await load.request<{ connected: number; errors: number }>({ cmd: 'connect', url: urlOf(server), transport, lab, ids, report });
  if (r.connected !== ids.length) throw new Error(`connected ${r.connected} of ${ids.length}`);
}

export async function measureThroughput(load: ChildHandle, server: ChildHandle, transport: Transport, lab: string, p: BenchParams): Promise<Throughput> {
  await server.request({ cmd: 'lab', body: benchLab(lab, p.clients, { delay: 0, jitter: 0 }) });
  await connect(load, server, transport, lab, range(p.clients));
  try {
    await server.request({ cmd: 'cpu-mark' });
    const r = await load.request<ThroughputResult>({ cmd: 'throughput', durationMs: p.throughputMs, warmupMs: p.warmupMs, window: p.window });
    const { cpu } = await server.request<{ cpu: number }>({ cmd: 'cpu' });
    return { ...r, serverCpu: cpu };
  } finally {
    await load.request({ cmd: 'close' });
  }
}

export async function measureLatency(
  load: ChildHandle,
  server: ChildHandle,
  transport: Transport,
  lab: string,
  p: BenchParams,
  rate: number,
  link = { delay: 0, jitter: 0 },
): Promise<Latency> {
  await server.request({ cmd: 'lab', body: benchLab(lab, p.clients, link) });
  await connect(load, server, transport, lab, range(p.clients));
  try {
    await server.request({ cmd: 'cpu-mark' });
    const r = await load.request<LatencyResult>({ cmd: 'latency', rate, durationMs: p.latencyMs, warmupMs: p.warmupMs, subtractMs: link.delay });
    const { cpu } = await server.request<{ cpu: number }>({ cmd: 'cpu' });
    return { ...r, serverCpu: cpu };
  } finally {
    await load.request({ cmd: 'close' });
  }
}

export interface Memory {
  processes: number;
  rssBefore: number;
  rssAfter: number;
  heapBefore: number;
  heapAfter: number;
  /** (RSS after - RSS before) / processes, bytes. */
  perProcess: number;
  heapPerProcess: number;
}

/** RSS of a fresh server before and after `n` processes join and report their state (a full GC before each reading). */
export async function measureMemory(load: ChildHandle, kind: ServerKind, transport: Transport, n: number, nodeArgs: string[] = []): Promise<Memory> {
  const server = await startServer(kind, nodeArgs);
  try {
    const lab = `mem-${transport}`;
    await server.request({ cmd: 'lab', body: benchLab(lab, n, { delay: 0, jitter: 0 }) });
    // One connection and back first, so lazily loaded code is already in the "before" figure.
    await connect(load, server, transport, lab, [0]);
    await load.request({ cmd: 'close' });
    const before = await server.request<{ rss: number; heapUsed: number }>({ cmd: 'usage', gc: true });
    await connect(load, server, transport, lab, range(n), true);
    await sleep(200);
    const after = await server.request<{ rss: number; heapUsed: number }>({ cmd: 'usage', gc: true });
    await load.request({ cmd: 'close' });
    return {
      processes: n,
      rssBefore: before.rss,
      rssAfter: after.rss,
      heapBefore: before.heapUsed,
      heapAfter: after.heapUsed,
      perProcess: round((after.rss - before.rss) / n, 0),
      heapPerProcess: round((after.heapUsed - before.heapUsed) / n, 0),
    };
  } finally {
    await stopServer(server);
  }
}
