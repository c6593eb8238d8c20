// The benchmark's results as one JSON document and a short markdown table, every relay figure
// beside its baseline's and as a ratio to it, with the targets of the issue checked.
import type { Latency, Memory, Throughput } from './bench-phases.ts';
import { round } from './percentiles.ts';

export interface TransportResults {
  /** Best round of each (background load only ever lowers a round); every round's rates too. */
  throughput: {
    relay: Throughput;
    baseline: Throughput;
    ratio: number;
    rounds: { relay: number; baseline: number }[];
  };
  /** Both measured at the same offered rate, half the relay's maximum throughput, in alternating slices. */
  latency: { rate: number; relay: Latency; baseline: Latency; p99Ratio: number };
  /** Injected delay 50 ms, jitter 0: delivered delay minus 50 ms. */
  delay: Latency & { injectedMs: number };
  memory: { relay: Memory; baseline: Memory };
}

export interface BenchResults {
  when: string;
  quick: boolean;
  machine: { cpus: number; node: string; loadAverage: number[] };
  params: Record<string, unknown>;
  transports: Partial<Record<'ws' | 'socketio', TransportResults>>;
  targets: { name: string; transport: string; value: number; target: string; met: boolean }[];
  durationSeconds: number;
}

export function checkTargets(r: BenchResults): BenchResults['targets'] {
  const out: BenchResults['targets'] = [];
  for (const [t, x] of Object.entries(r.transports)) {
    if (!x) continue;
    out.push({
      name: 'throughput / baseline',
      transport: t,
      value: round(x.throughput.ratio),
      target: '>= 0.7',
      met: x.throughput.ratio >= 0.7,
    });
    out.push({
      name: 'p99 latency / baseline p99',
      transport: t,
      value: round(x.latency.p99Ratio),
      target: '<= 2',
      met: x.latency.p99Ratio <= 2,
    });
    out.push({
      name: 'delay error p99 (ms)',
      transport: t,
      value: round(x.delay.p99),
      target: '< 2',
      met: x.delay.p99 < 2,
    });
    const kib = x.memory.relay.perProcess / 1024;
    out.push({
      name: 'RSS per connected process (KiB)',
      transport: t,
      value: round(kib, 1),
      target: '< 50',
      met: kib < 50,
    });
  }
  return out;
}

const f0 = (x: number): string => Math.round(x).toLocaleString('en-US');
const f2 = (x: number): string => x.toFixed(2);
const kib = (b: number): string => (b / 1024).toFixed(1);

export function markdown(r: BenchResults): string {
  const lines = [
    `Measured ${r.when}${r.quick ? ' (quick mode: short runs, figures indicative only)' : ''}: ${r.machine.cpus} CPUs, Node ${r.machine.node}, load average before the run ${r.machine.loadAverage.map((x) => x.toFixed(2)).join(' / ')}.`,
    '',
    '| figure | transport | relay | baseline | ratio | target |',
    '|---|---|---|---|---|---|',
  ];
  for (const [t, x] of Object.entries(r.transports)) {
    if (!x) continue;
    const tp = x.throughput;
    const lat = x.latency;
    lines.push(
      `| throughput (msg/s) | ${t} | ${f0(tp.relay.rate)} | ${f0(tp.baseline.rate)} | ${f2(tp.ratio)} | >= 0.70 |`,
    );
    lines.push(
      `| server CPU at max throughput (cores) | ${t} | ${f2(tp.relay.serverCpu)} | ${f2(tp.baseline.serverCpu)} | | |`,
    );
    // CPU per message does not depend on how much CPU the machine left the server.
    const us = (x: Throughput) => (x.serverCpu * 1e6) / x.rate;
    lines.push(
      `| server CPU per message (µs) | ${t} | ${f2(us(tp.relay))} | ${f2(us(tp.baseline))} | ${f2(us(tp.relay) / us(tp.baseline))} | |`,
    );
    lines.push(
      `| latency p50 (ms) at ${f0(lat.rate)} msg/s | ${t} | ${f2(lat.relay.p50)} | ${f2(lat.baseline.p50)} | ${f2(lat.relay.p50 / lat.baseline.p50)} | |`,
    );
    lines.push(
      `| latency p99 (ms) at ${f0(lat.rate)} msg/s | ${t} | ${f2(lat.relay.p99)} | ${f2(lat.baseline.p99)} | ${f2(lat.p99Ratio)} | <= 2.00 |`,
    );
    lines.push(
      `| median of the slices' p99 (ms) | ${t} | ${f2(lat.relay.medianSliceP99)} | ${f2(lat.baseline.medianSliceP99)} | ${f2(lat.relay.medianSliceP99 / lat.baseline.medianSliceP99)} | |`,
    );
    lines.push(
      `| latency max (ms) at ${f0(lat.rate)} msg/s | ${t} | ${f2(lat.relay.max)} | ${f2(lat.baseline.max)} | ${f2(lat.relay.max / lat.baseline.max)} | |`,
    );
    lines.push(
      `| server event loop late p99 / max (ms) | ${t} | ${f2(lat.relay.stalls.loopP99)} / ${f2(lat.relay.stalls.loopMax)} | ${f2(lat.baseline.stalls.loopP99)} / ${f2(lat.baseline.stalls.loopMax)} | | |`,
    );
    const gc = (x: Latency) =>
      `${x.stalls.gcCount} / ${f2(x.stalls.gcMax)} / ${f2(x.stalls.gcMajorMax)} / ${f2(x.stalls.gcTotal)}`;
    lines.push(
      `| server GC pauses: count / max / mark-compact max / total (ms) | ${t} | ${gc(lat.relay)} | ${gc(lat.baseline)} | | |`,
    );
    lines.push(
      `| delay 50 ms error p50 / p99 / max (ms) at ${f0(x.delay.offered)} msg/s | ${t} | ${f2(x.delay.p50)} / ${f2(x.delay.p99)} / ${f2(x.delay.max)} | | | p99 < 2 |`,
    );
    const m = x.memory;
    lines.push(
      `| RSS per connected process (KiB) at ${m.relay.processes} | ${t} | ${kib(m.relay.perProcess)} | ${kib(m.baseline.perProcess)} | ${f2(m.relay.perProcess / m.baseline.perProcess)} | < 50 |`,
    );
  }
  lines.push(
    '',
    `Lost messages: ${lostSummary(r)}. Targets met: ${r.targets.filter((t) => t.met).length} of ${r.targets.length}${missed(r)}.`,
  );
  return lines.join('\n') + '\n';
}

function lostSummary(r: BenchResults): string {
  let lost = 0;
  for (const x of Object.values(r.transports)) {
    if (!x) continue;
    lost +=
      x.throughput.relay.lost +
      x.throughput.baseline.lost +
      x.latency.relay.lost +
      x.latency.baseline.lost +
      x.delay.lost;
  }
  return String(lost);
}

function missed(r: BenchResults): string {
  const m = r.targets.filter((t) => !t.met);
  return m.length
    ? ` (missed: ${m.map((t) => `${t.name} over ${t.transport} = ${t.value}`).join('; ')})`
    : '';
}
