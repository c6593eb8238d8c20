// npm run bench [-- --quick] [--profile] [--alloc-profile] [--transports ws,socketio] [--out bench/results.json]
//
// Starts the relay and the two baselines (a bare forwarder on ws, one on socket.io), each in its
// own process, drives them from one load process, and writes bench/results.json plus
// bench/results.md. Every relay figure is printed beside its baseline's, measured in the same
// run. --profile runs the relay under `node --cpu-prof` (profiles in bench/profiles/);
// --alloc-profile samples what the relay and the baselines allocate, garbage included
// (bench/profiles/*.heapprofile; `npx tsx bench/profile-summary.ts FILE` ranks the allocators).
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { handleHelp, progressLine, usageError } from '../scripts/cli.ts';
import {
  checkTargets,
  markdown,
  type BenchResults,
  type TransportResults,
} from './bench-report.ts';
import {
  closeTarget,
  latencySlice,
  measureMemory,
  openTarget,
  pool,
  startServer,
  stopServer,
  throughputRound,
  type BenchParams,
  type Throughput,
} from './bench-phases.ts';
import { startChild, type ChildHandle } from './child-proc.ts';
import type { Transport } from './load-wire.ts';

const FULL: BenchParams = {
  clients: 16,
  window: 32,
  warmupMs: 500,
  throughputMs: 3000,
  throughputRounds: 3,
  latencyMs: 1500,
  latencySlices: 8,
  delayRate: 2000,
  delayMs: 5000,
  delayWarmupMs: 2000,
  memoryProcesses: 1000,
  relayNodeArgs: [],
};
const QUICK: BenchParams = {
  clients: 8,
  window: 16,
  warmupMs: 150,
  throughputMs: 500,
  throughputRounds: 1,
  latencyMs: 500,
  latencySlices: 1,
  delayRate: 500,
  delayMs: 500,
  delayWarmupMs: 150,
  memoryProcesses: 50,
  relayNodeArgs: [],
};

export interface BenchOptions {
  quick: boolean;
  profile: boolean;
  transports: Transport[];
  log: (line: string) => void;
  /** The current phase, for a progress line (scripts/cli.ts). */
  progress?: (text: string) => void;
}

export async function runBench(o: BenchOptions): Promise<BenchResults> {
  const started = performance.now();
  // BENCH_RELAY_NODE_ARGS: extra Node flags for the relay's process only (experiments: --import a patch, heap limits).
  const extra = (process.env['BENCH_RELAY_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
  const p: BenchParams = {
    ...(o.quick ? QUICK : FULL),
    relayNodeArgs: [
      ...(o.profile ? ['--cpu-prof', '--cpu-prof-dir=bench/profiles'] : []),
      ...extra,
    ],
  };
  const results: BenchResults = {
    when: new Date().toISOString(),
    quick: o.quick,
    machine: { cpus: cpus().length, node: process.version, loadAverage: loadavg() },
    params: { ...p },
    transports: {},
    targets: [],
    durationSeconds: 0,
  };
  const load = await startChild('./load-child.ts', []);
  try {
    for (const t of o.transports) results.transports[t] = await runTransport(load, t, p, o);
  } finally {
    await load.kill();
  }
  results.targets = checkTargets(results);
  results.durationSeconds = Math.round((performance.now() - started) / 100) / 10;
  return results;
}

async function runTransport(
  load: ChildHandle,
  t: Transport,
  p: BenchParams,
  o: BenchOptions,
): Promise<TransportResults> {
  const phase = (text: string) => o.progress?.(`${t}: ${text}`);
  phase('starting the relay and the baseline');
  const relay = await startServer('relay', p.relayNodeArgs);
  const baseline = await startServer(`baseline-${t}`);
  try {
    const rt = await openTarget(load, relay, 'relay', t, `ring-${t}`, p.clients);
    const bt = await openTarget(load, baseline, 'baseline', t, 'ring', p.clients);
    const rounds: { relay: Throughput; baseline: Throughput }[] = [];
    for (let i = 0; i < p.throughputRounds; i++) {
      phase(`throughput round ${i + 1}/${p.throughputRounds}`);
      const r = await throughputRound(rt, p);
      const b = await throughputRound(bt, p);
      rounds.push({ relay: r, baseline: b });
      o.log(
        `${t} throughput round ${i + 1}: relay ${Math.round(r.rate)} msg/s (server cpu ${r.serverCpu.toFixed(2)}, load cpu ${r.loadCpu.toFixed(2)}), baseline ${Math.round(b.rate)} msg/s (server cpu ${b.serverCpu.toFixed(2)}, load cpu ${b.loadCpu.toFixed(2)})`,
      );
    }
    const best = (pick: (x: (typeof rounds)[number]) => Throughput) =>
      rounds.map(pick).reduce((a, b) => (b.rate > a.rate ? b : a));
    const relayT = best((x) => x.relay);
    const baseT = best((x) => x.baseline);
    const rate = Math.round(relayT.rate / 2);
    const rs: Awaited<ReturnType<typeof latencySlice>>[] = [];
    const bs: Awaited<ReturnType<typeof latencySlice>>[] = [];
    for (let i = 0; i < p.latencySlices; i++) {
      phase(`latency slice ${i + 1}/${p.latencySlices} at ${rate} msg/s`);
      rs.push(await latencySlice(rt, rate, p.latencyMs, p.warmupMs));
      bs.push(await latencySlice(bt, rate, p.latencyMs, p.warmupMs));
    }
    const relayL = pool(rs);
    const baseL = pool(bs);
    o.log(
      `${t} latency at ${rate} msg/s: relay p50 ${relayL.p50.toFixed(2)} p99 ${relayL.p99.toFixed(2)} max ${relayL.max.toFixed(2)} ms (slice p99s ${rs.map((x) => x.p99.toFixed(1)).join(' ')}); baseline p50 ${baseL.p50.toFixed(2)} p99 ${baseL.p99.toFixed(2)} max ${baseL.max.toFixed(2)} ms (slice p99s ${bs.map((x) => x.p99.toFixed(1)).join(' ')})`,
    );
    const stall = (l: typeof relayL) =>
      `event loop late p99 ${l.stalls.loopP99.toFixed(1)} max ${l.stalls.loopMax.toFixed(1)} ms, GC ${l.stalls.gcCount} pauses max ${l.stalls.gcMax.toFixed(1)} (mark-compact max ${l.stalls.gcMajorMax.toFixed(1)}) total ${l.stalls.gcTotal.toFixed(0)} ms`;
    o.log(`${t} stalls: relay ${stall(relayL)}; baseline ${stall(baseL)}`);
    // Per slice, what a tail coincided with: the server's own stalls, the kernel taking its CPU, or a late load process.
    const why = (s: (typeof rs)[number]) =>
      `p99 ${s.p99.toFixed(1)} max ${s.max.toFixed(1)} (loop late max ${s.stalls.loopMax.toFixed(1)}, GC max ${s.stalls.gcMax.toFixed(1)}, preempted ${s.stalls.preempted}, load loop late max ${s.loadLoopMax.toFixed(1)})`;
    rs.forEach((r, i) =>
      o.log(`${t} latency slice ${i + 1}: relay ${why(r)}; baseline ${why(bs[i]!)}`),
    );
    await closeTarget(rt);
    await closeTarget(bt);
    phase('injected delay');
    const dt = await openTarget(load, relay, 'delay', t, `delay-${t}`, p.clients, {
      delay: 50,
      jitter: 0,
    });
    const delay = pool([await latencySlice(dt, p.delayRate, p.delayMs, p.delayWarmupMs, 50)]);
    await closeTarget(dt);
    o.log(
      `${t} delay 50 ms at ${p.delayRate} msg/s: error p50 ${delay.p50.toFixed(2)} p99 ${delay.p99.toFixed(2)} max ${delay.max.toFixed(2)} min ${delay.min.toFixed(2)} ms`,
    );
    await stopServer(relay);
    await stopServer(baseline);
    phase(`memory at ${p.memoryProcesses} processes`);
    const memRelay = await measureMemory(load, 'relay', t, p.memoryProcesses);
    const memBase = await measureMemory(load, `baseline-${t}`, t, p.memoryProcesses);
    o.log(
      `${t} memory at ${p.memoryProcesses} processes: relay ${(memRelay.perProcess / 1024).toFixed(1)} KiB each, baseline ${(memBase.perProcess / 1024).toFixed(1)} KiB each`,
    );
    return {
      throughput: {
        relay: relayT,
        baseline: baseT,
        ratio: relayT.rate / baseT.rate,
        rounds: rounds.map((x) => ({
          relay: Math.round(x.relay.rate),
          baseline: Math.round(x.baseline.rate),
        })),
      },
      latency: { rate, relay: relayL, baseline: baseL, p99Ratio: relayL.p99 / baseL.p99 },
      delay: { ...delay, injectedMs: 50 },
      memory: { relay: memRelay, baseline: memBase },
    };
  } finally {
    await stopServer(relay);
    await stopServer(baseline);
  }
}

const USAGE = `Usage: npm run bench -- [--quick] [--profile] [--alloc-profile] [--transports ws,socketio] [--out FILE.json]

The relay against minimal ws and socket.io forwarders measured in the same run: throughput,
added latency, injected-delay accuracy and memory per process. Writes FILE.json and FILE.md.
  --quick       short runs (figures indicative only)
  --profile     run the relay under node --cpu-prof (profiles in bench/profiles/)
  --alloc-profile  sample the servers' allocations, collected garbage included (bench/profiles/*.heapprofile)
  --help        this text`;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  handleHelp(argv, USAGE);
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        quick: { type: 'boolean', default: false },
        profile: { type: 'boolean', default: false },
        'alloc-profile': { type: 'boolean', default: false },
        transports: { type: 'string', default: 'ws,socketio' },
        out: { type: 'string' },
      },
    }));
  } catch (e) {
    usageError('bench', USAGE, e);
  }
  // Read by bench/server-child.ts in every server process the bench starts.
  if (values['alloc-profile']) process.env['BENCH_ALLOC_PROFILE_DIR'] = 'bench/profiles';
  const transports = values.transports
    .split(',')
    .filter((t): t is Transport => t === 'ws' || t === 'socketio');
  const quick = values.quick;
  const out = values.out ?? (quick ? 'bench/results-quick.json' : 'bench/results.json');
  console.log(
    `load average before: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (${cpus().length} CPUs)`,
  );
  const line = progressLine();
  const log = (l: string) => {
    line.done();
    console.log(l);
  };
  const results = await runBench({
    quick,
    profile: values.profile,
    transports,
    log,
    progress: (text) => line.step(text),
  });
  line.done();
  const md = markdown(results);
  await writeFile(out, JSON.stringify(results, null, 2) + '\n');
  await writeFile(out.replace(/\.json$/, '.md'), md);
  console.log('\n' + md);
  console.log(`wrote ${out} in ${results.durationSeconds} s`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
