// The benchmark's measurements against server processes, from the one load process: throughput
// (closed loop), latency at a given rate (open loop), delay accuracy (open loop on a lab with an
// injected delay) and memory per connected process. The relay and its baseline are measured in
// alternating rounds and slices, so background load on the machine falls on both alike.
import type { CreateLab } from '@shared/protocol/lab-config.ts';
import { startChild, type ChildHandle } from './child-proc.ts';
import { sleep, type LatencyResult, type ThroughputResult } from './load-gen.ts';
import type { Transport } from './load-wire.ts';
import { round, summarize, type Stalls } from './percentiles.ts';

export type ServerKind = 'relay' | 'baseline-ws' | 'baseline-socketio';

export interface BenchParams {
  /** Connections in the throughput and latency rings. */
  clients: number;
  /** Messages each sender keeps outstanding in the closed loop. */
  window: number;
  warmupMs: number;
  /** Length of one throughput round; rounds alternate relay and baseline. */
  throughputMs: number;
  throughputRounds: number;
  /** Length of one latency slice; slices alternate relay and baseline, samples are pooled. */
  latencyMs: number;
  latencySlices: number;
  /** Messages a second, and run length, for the delay-accuracy run. */
  delayRate: number;
  delayMs: number;
  /**
   * Not measured at the start of the delay run: its 16 connections and its lab are new, and the
   * first second after connecting has a tail of several ms on the bare forwarder too.
   */
  delayWarmupMs: number;
  /** Connected processes for the memory figure. */
  memoryProcesses: number;
  /** Node flags for the relay's process (e.g. --cpu-prof). */
  relayNodeArgs: string[];
}

export interface Throughput extends ThroughputResult {
  serverCpu: number;
}

export interface Latency extends Omit<LatencyResult, 'samples'> {
  serverCpu: number;
  /** The server's event-loop lateness (worst slice) and GC pauses (summed over slices). */
  stalls: Stalls;
  /** p99 of each slice, and their median: a figure one background hiccup on the machine cannot move. */
  sliceP99s: number[];
  medianSliceP99: number;
}

/** `args`: extra arguments for server-child.ts (the relay takes option overrides as JSON). */
export function startServer(
  kind: ServerKind,
  nodeArgs: string[] = [],
  args: string[] = [],
): Promise<ChildHandle> {
  return startChild('./server-child.ts', [kind, ...args], {
    nodeArgs: ['--expose-gc', ...nodeArgs],
  });
}

/** Stops a server child cleanly (so a CPU profile gets written). */
export async function stopServer(server: ChildHandle): Promise<void> {
  await server.request({ cmd: 'exit' }, 10_000).catch(() => {});
  await server.kill();
}

const urlOf = (server: ChildHandle): string => `http://127.0.0.1:${String(server.ready.port)}`;
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** A lab for the load's ids: no detector (the load is not an algorithm), the given link rules. */
export function benchLab(
  name: string,
  size: number,
  link: { delay: number; jitter: number },
): CreateLab {
  return {
    name,
    size,
    algorithm: 'bully',
    detector: 'none',
    fabric: { link: { ...link, loss: 0, duplicate: 0 } },
  };
}

/** One server and the load's connections to it (`gen` names the set in the load process). */
export interface Target {
  load: ChildHandle;
  server: ChildHandle;
  gen: string;
}

/** Makes the lab (on the relay; the baselines have none) and connects `n` processes that join it. */
export async function openTarget(
  load: ChildHandle,
  server: ChildHandle,
  gen: string,
  transport: Transport,
  lab: string,
  n: number,
  link = { delay: 0, jitter: 0 },
  report = false,
): Promise<Target> {
  await server.request({ cmd: 'lab', body: benchLab(lab, n, link) });
  const r = await load.request<{ connected: number }>({
    cmd: 'connect',
    gen,
    url: urlOf(server),
    transport,
    lab,
    ids: range(n),
    report,
  });
  if (r.connected !== n) throw new Error(`connected ${r.connected} of ${n}`);
  return { load, server, gen };
}

export const closeTarget = (t: Target): Promise<unknown> =>
  t.load.request({ cmd: 'close', gen: t.gen });

export async function throughputRound(t: Target, p: BenchParams): Promise<Throughput> {
  await t.server.request({ cmd: 'cpu-mark' });
  const r = await t.load.request<ThroughputResult>({
    cmd: 'throughput',
    gen: t.gen,
    durationMs: p.throughputMs,
    warmupMs: p.warmupMs,
    window: p.window,
  });
  const { cpu } = await t.server.request<{ cpu: number }>({ cmd: 'cpu' });
  return { ...r, serverCpu: cpu };
}

type Slice = LatencyResult & { serverCpu: number; stalls: Stalls };

export async function latencySlice(
  t: Target,
  rate: number,
  durationMs: number,
  warmupMs: number,
  subtractMs = 0,
): Promise<Slice> {
  await t.server.request({ cmd: 'cpu-mark' });
  const r = await t.load.request<LatencyResult>({
    cmd: 'latency',
    gen: t.gen,
    rate,
    durationMs,
    warmupMs,
    subtractMs,
    keepSamples: true,
  });
  const { cpu, stalls } = await t.server.request<{ cpu: number; stalls: Stalls }>({ cmd: 'cpu' });
  return { ...r, serverCpu: cpu, stalls };
}

/** Several slices as one: percentiles over the pooled samples, rates and CPU averaged, counts summed. */
export function pool(slices: Slice[]): Latency {
  const all: number[] = [];
  for (const s of slices) for (const x of s.samples ?? []) all.push(x);
  const avg = (f: (s: Slice) => number) => slices.reduce((a, s) => a + f(s), 0) / slices.length;
  const most = (f: (s: Stalls) => number) => Math.max(0, ...slices.map((s) => f(s.stalls)));
  return {
    ...summarize(all),
    offered: slices[0]?.offered ?? 0,
    achieved: avg((s) => s.achieved),
    sent: slices.reduce((a, s) => a + s.sent, 0),
    lost: slices.reduce((a, s) => a + s.lost, 0),
    loadCpu: avg((s) => s.loadCpu),
    loadLoopMax: Math.max(0, ...slices.map((s) => s.loadLoopMax)),
    serverCpu: avg((s) => s.serverCpu),
    stalls: {
      loopP99: most((x) => x.loopP99),
      loopMax: most((x) => x.loopMax),
      gcCount: slices.reduce((a, s) => a + s.stalls.gcCount, 0),
      gcMax: most((x) => x.gcMax),
      gcMajorMax: most((x) => x.gcMajorMax),
      gcTotal: slices.reduce((a, s) => a + s.stalls.gcTotal, 0),
      preempted: slices.reduce((a, s) => a + s.stalls.preempted, 0),
    },
    sliceP99s: slices.map((s) => round(s.p99, 3)),
    medianSliceP99: summarize(slices.map((s) => s.p99)).p50,
  };
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
export async function measureMemory(
  load: ChildHandle,
  kind: ServerKind,
  transport: Transport,
  n: number,
  nodeArgs: string[] = [],
): Promise<Memory> {
  const server = await startServer(kind, nodeArgs);
  try {
    const lab = `mem-${transport}`;
    // One connection and back first, so lazily loaded code is already in the "before" figure.
    await closeTarget(await openTarget(load, server, 'mem', transport, lab, 1));
    const before = await server.request<{ rss: number; heapUsed: number }>({
      cmd: 'usage',
      gc: true,
    });
    const t = await openTarget(
      load,
      server,
      'mem',
      transport,
      lab,
      n,
      { delay: 0, jitter: 0 },
      true,
    );
    await sleep(200);
    const after = await server.request<{ rss: number; heapUsed: number }>({
      cmd: 'usage',
      gc: true,
    });
    await closeTarget(t);
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
