// A server under test in its own process: `baseline-ws`, `baseline-socketio` or `relay`.
// Reports its port when listening, then answers `usage` (RSS and CPU, after a full GC when the
// process runs with --expose-gc) so the parent can measure the server alone.
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { startBaselineSocketIo } from './baseline-socketio.ts';
import { startBaselineWs, type BaselineServer } from './baseline-ws.ts';
import type { CreateLab } from '@shared/protocol/lab-config.ts';

/** A server under test; the relay can also make labs (the baselines have none). */
interface BenchServer extends BaselineServer {
  createLab?(body: CreateLab): Promise<void>;
  labStats?(name: string): unknown;
}
import { serveParent } from './child-proc.ts';
import type { Stalls } from './percentiles.ts';

const kind = process.argv[2];

async function start(): Promise<BenchServer> {
  if (kind === 'baseline-ws') return startBaselineWs();
  if (kind === 'baseline-socketio') return startBaselineSocketIo();
  // argv[3]: relay option overrides as JSON (e.g. the default flood limits for the scale run).
  if (kind === 'relay')
    return (await import('./relay-host.ts')).startBenchRelay(JSON.parse(process.argv[3] ?? '{}'));
  throw new Error(`unknown server kind ${kind}`);
}

const server = await start();
const allocProfile = await startAllocProfile(process.env['BENCH_ALLOC_PROFILE_DIR']);
let cpuMark = process.cpuUsage();
let timeMark = performance.now();
let preemptMark = process.resourceUsage().involuntaryContextSwitches;
// Where a tail comes from: how late the server's event loop ran (a stall delays every message
// waiting behind it) and its garbage collector's pauses, both since the last cpu-mark.
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
let gcPauses: number[] = [];
let gcMajorMax = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (gcPauses.length < 100_000) gcPauses.push(e.duration);
    // detail.kind: 1 minor (scavenge), 4 major (mark-sweep-compact), 8 incremental marking, 16 weak callbacks.
    if ((e as { detail?: { kind?: number } }).detail?.kind === 4)
      gcMajorMax = Math.max(gcMajorMax, e.duration);
  }
}).observe({ entryTypes: ['gc'] });

serveParent(async (m) => {
  if (m.cmd === 'usage') {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (m.gc && gc) {
      // Several passes: weak references and finalizers free more on the second one.
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const mem = process.memoryUsage();
    // maxRSS is in KiB: the peak resident set since the process started.
    return {
      rss: mem.rss,
      maxRss: process.resourceUsage().maxRSS * 1024,
      heapUsed: mem.heapUsed,
      external: mem.external,
      arrayBuffers: mem.arrayBuffers,
    };
  }
  if (m.cmd === 'cpu-mark') {
    cpuMark = process.cpuUsage();
    timeMark = performance.now();
    preemptMark = process.resourceUsage().involuntaryContextSwitches;
    loop.reset();
    gcPauses = [];
    gcMajorMax = 0;
    return { ok: true };
  }
  if (m.cmd === 'cpu') {
    const c = process.cpuUsage(cpuMark);
    const seconds = (performance.now() - timeMark) / 1000;
    const stalls: Stalls = {
      loopP99: loop.percentile(99) / 1e6,
      loopMax: loop.max / 1e6,
      gcCount: gcPauses.length,
      gcMax: Math.max(0, ...gcPauses),
      gcMajorMax,
      gcTotal: gcPauses.reduce((a, b) => a + b, 0),
      preempted: process.resourceUsage().involuntaryContextSwitches - preemptMark,
    };
    return { cpu: (c.user + c.system) / 1e6 / seconds, stalls };
  }
  if (m.cmd === 'lab') {
    await server.createLab?.(m.body as CreateLab);
    return { ok: true };
  }
  if (m.cmd === 'lab-stats') return { stats: server.labStats?.(String(m.lab)) ?? null };
  if (m.cmd === 'exit') {
    await server.close();
    await allocProfile?.();
    // Exit normally so that --cpu-prof writes its profile.
    setTimeout(() => process.exit(0), 20);
    return { closed: true };
  }
  throw new Error(`unknown command ${String(m.cmd)}`);
});
process.on('SIGTERM', () => process.exit(0));

/**
 * `npm run bench -- --alloc-profile`: V8's sampling heap profiler, keeping the samples of objects
 * the collector has already freed (what the relay allocates per message is garbage within
 * microseconds, and that garbage is what makes the collector run). Returns what writes the profile.
 */
async function startAllocProfile(dir: string | undefined): Promise<(() => Promise<void>) | null> {
  if (!dir) return null;
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  // The two include flags exist in V8's protocol but not in Node's typings.
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as { samplingInterval: number });
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(dir, { recursive: true });
    await writeFile(`${dir}/alloc-${kind}-${process.pid}.heapprofile`, JSON.stringify(profile));
  };
}
process.send?.({ port: server.port, pid: process.pid });
