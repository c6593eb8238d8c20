// npm run bench:core [-- --quick] [--json] [--reductions] [--restart [--explore-seconds S]]
//
// The speed of the core, in one run:
// - the simulator on the 1,000-process Bully worst case (the coordinator 999 crashed, the lowest
//   id detects it: about a million messages; `npm run simulate -- --algorithm bully --nodes 1000
//   --crash 999 --initiator 0`), as events per second of wall time, beside a bare event loop
//   (the same priority queue, the same number of events, no algorithm and no network) run
//   here too, so the ratio says what the simulator adds to the loop it cannot avoid;
// - the explorer on `npm run explore -- --algorithm ring --nodes 4 --faults slow`, as distinct
//   states per second (the CLI's limits: it stops at its 300,000-state bound).
// - 003's work schedule (shared/work/) over Bully: 1,000 processes and 10,000 tasks, dynamic
//   sharing with fencing (`npm run simulate -- --algorithm bully --nodes 1000 --tasks 10000`),
//   beside the election alone over the same virtual time;
// --quick (CI): 200 processes (2,000 tasks) and a 20,000-state bound; the figures are printed,
// never asserted.
// --reductions: what duplicate-state detection saves, as state counts with it and without it (a
// plain tree search over the same actions, bounded in count and time); a minute or two.
// --restart: every algorithm at N = 4 with one crash and one restart, plain, with sleep sets, and with sleep sets and symmetry,
// and the explorer's targets of issue 26 (bench/explore-bench.ts); several minutes.
// Targets (issue 11): the worst case in under 1 s (at least 1,000,000 events/s), the explorer at
// 100,000 states/s or more. The figures and the before/after are in docs/CORE_SPEED.md.
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { EventQueue } from '@shared/sim/event-queue.ts';
import { enabled, initialWorld, move } from '@shared/explore/engine.ts';
import { search } from '@shared/explore/search.ts';
import type { World } from '@shared/explore/world.ts';
import { simulate } from '@shared/sim/simulator.ts';
import { createRng } from '@shared/sim/rng.ts';
import { handleHelp, usageError } from '../scripts/cli.ts';
import { parseExploreCli } from '../scripts/explore.ts';
import { specFor } from '../scripts/simulate.ts';
import { DEFAULT_JOB } from '@shared/work/work-job.ts';
import { simulateWork, workHorizon } from '@shared/work/work-sim.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { exploreReport, exploreTargets, restartRuns } from './explore-bench.ts';

interface CoreBench {
  quick: boolean;
  simulator: {
    processes: number;
    events: number;
    messages: number;
    wallMs: number;
    eventsPerSecond: number;
  };
  bareLoop: { events: number; wallMs: number; eventsPerSecond: number };
  /** Simulator wall time over the bare loop's, for the same number of events. */
  ratio: number;
  work: {
    processes: number;
    tasks: number;
    completed: number;
    events: number;
    messages: number;
    wallMs: number;
    aloneEvents: number;
    aloneWallMs: number;
  };
  explorer: {
    args: string[];
    states: number;
    transitions: number;
    depth: number;
    stoppedBy: string;
    wallMs: number;
    statesPerSecond: number;
  };
  targets: { name: string; target: string; value: string; met: boolean }[];
}

const FULL = { processes: 1000, tasks: 10_000, states: 300_000 };
const QUICK = { processes: 200, tasks: 2_000, states: 20_000 };

/** The work schedule over Bully (no fault), and the election alone over the same virtual time. */
function workRun(n: number, tasks: number): CoreBench['work'] {
  const ids = Array.from({ length: n }, (_, i) => i);
  const job = { ...DEFAULT_JOB, tasks };
  const spec = {
    algorithm: getAlgorithm('bully'),
    ids,
    seed: 1,
    until: workHorizon(job, ids),
    trace: false,
  };
  let started = performance.now();
  const w = simulateWork(spec, job);
  const wallMs = performance.now() - started;
  started = performance.now();
  const alone = simulate(spec);
  const aloneWallMs = performance.now() - started;
  return {
    processes: n,
    tasks,
    completed: w.tasks.completed,
    events: w.result.events,
    messages: w.result.messages.total,
    wallMs,
    aloneEvents: alone.events,
    aloneWallMs,
  };
}

/** The simulator on the Bully worst case with n processes, trace off (as `npm run simulate` runs it). */
function simulatorRun(n: number): CoreBench['simulator'] {
  const ids = Array.from({ length: n }, (_, i) => i);
  const spec = specFor(
    {
      algorithm: 'bully',
      ids,
      crash: [n - 1],
      initiator: 0,
      seed: 1,
      delay: 100,
      jitter: 0,
      drop: 0,
      until: null,
      detector: null,
    },
    false,
  );
  const started = performance.now();
  const r = simulate(spec);
  const wallMs = performance.now() - started;
  return {
    processes: n,
    events: r.events,
    messages: r.messages.total,
    wallMs,
    eventsPerSecond: r.events / (wallMs / 1000),
  };
}

/**
 * The baseline: the simulator's priority queue driven bare for `events` events. A thousand
 * entries are in flight (as in the worst case's ELECTION waves); each event popped schedules one
 * successor a pseudo-random 50 to 150 ms later, allocated as the simulator allocates its entries.
 */
function bareLoop(events: number): CoreBench['bareLoop'] {
  type Entry = { at: number; seq: number; kind: 'deliver'; from: number; to: number; msg: number };
  const started = performance.now();
  const queue = new EventQueue<Entry>();
  const rnd = createRng(1);
  for (let i = 0; i < 1000; i++)
    queue.push({ at: rnd() * 100, kind: 'deliver', from: i, to: (i + 1) % 1000, msg: i });
  let done = 0;
  let sum = 0;
  while (done < events) {
    const e = queue.pop()!;
    done++;
    sum += e.to;
    queue.push({
      at: e.at + 50 + rnd() * 100,
      kind: 'deliver',
      from: e.to,
      to: e.from,
      msg: done + 1000,
    });
  }
  const wallMs = performance.now() - started;
  if (sum < 0) console.log(sum); // keeps the loop's work observable
  return { events: done, wallMs, eventsPerSecond: done / (wallMs / 1000) };
}

function explorerRun(states: number): CoreBench['explorer'] {
  // --probes 0: the breadth-first search's rate alone (random probes are counted apart).
  const args = [
    '--algorithm',
    'ring',
    '--nodes',
    '4',
    '--faults',
    'slow',
    '--states',
    String(states),
    '--probes',
    '0',
  ];
  const cli = parseExploreCli(args);
  const started = performance.now();
  const r = search(cli.setup, cli.limits, () => performance.now());
  const wallMs = performance.now() - started;
  return {
    args,
    states: r.states,
    transitions: r.transitions,
    depth: r.depth,
    stoppedBy: r.stoppedBy,
    wallMs,
    statesPerSecond: r.states / (wallMs / 1000),
  };
}

function runCoreBench(quick: boolean): CoreBench {
  const size = quick ? QUICK : FULL;
  // Each measured after a short warm-up of its own, one after the other (as they are used).
  simulatorRun(50);
  const simulator = simulatorRun(size.processes);
  const bare = bareLoop(simulator.events);
  const work = workRun(size.processes, size.tasks);
  explorerRun(2000);
  const explorer = explorerRun(size.states);
  const full = !quick;
  return {
    quick,
    simulator,
    bareLoop: bare,
    ratio: simulator.wallMs / bare.wallMs,
    work,
    explorer,
    targets: [
      {
        name: 'simulator wall time, 1,000-process worst case',
        target: '< 1000 ms',
        value: `${fmt(simulator.wallMs)} ms`,
        met: full && simulator.wallMs < 1000,
      },
      {
        name: 'simulator events/s',
        target: '>= 1,000,000',
        value: fmt(simulator.eventsPerSecond),
        met: full && simulator.eventsPerSecond >= 1_000_000,
      },
      {
        name: 'explorer states/s, ring --nodes 4 --faults slow',
        target: '>= 100,000',
        value: fmt(explorer.statesPerSecond),
        met: full && explorer.statesPerSecond >= 100_000,
      },
    ],
  };
}

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');

function report(b: CoreBench): string[] {
  const s = b.simulator;
  const e = b.explorer;
  const w = b.work;
  return [
    `bench:core${b.quick ? ' --quick' : ''}: node ${process.version}, ${cpus().length} cpus (${cpus()[0]?.model ?? 'unknown'})`,
    `simulator: bully worst case, ${s.processes} processes (crash ${s.processes - 1}, 0 detects): ${fmt(s.events)} events (${fmt(s.messages)} messages) in ${fmt(s.wallMs)} ms: ${fmt(s.eventsPerSecond)} events/s`,
    `bare event loop, same ${fmt(b.bareLoop.events)} events: ${fmt(b.bareLoop.wallMs)} ms: ${fmt(b.bareLoop.eventsPerSecond)} events/s`,
    `simulator / bare loop: ${b.ratio.toFixed(1)}x the time`,
    `work schedule: bully, ${w.processes} processes, ${fmt(w.tasks)} tasks (${fmt(w.completed)} completed): ${fmt(w.events)} events (${fmt(w.messages)} messages) in ${fmt(w.wallMs)} ms; the election alone, same virtual time: ${fmt(w.aloneEvents)} events in ${fmt(w.aloneWallMs)} ms`,
    `explorer: ${e.args.join(' ')}: ${fmt(e.states)} states, ${fmt(e.transitions)} transitions, depth ${e.depth}, stopped by ${e.stoppedBy}, in ${fmt(e.wallMs)} ms: ${fmt(e.statesPerSecond)} states/s`,
    ...b.targets.map(
      (t) =>
        `target ${t.name}: ${t.target}: ${t.value}${b.quick ? ' (quick run: the targets are for the full run)' : t.met ? ' (met)' : ' (missed)'}`,
    ),
  ];
}

/** Searches whose worlds the tree search without detection can count (or give up on). */
const REDUCTION_CASES = [
  ['--algorithm', 'raft', '--nodes', '3'],
  ['--algorithm', 'ring', '--nodes', '3'],
  ['--algorithm', 'bully', '--nodes', '4'],
  ['--algorithm', 'bully', '--nodes', '4', '--faults', 'crash'],
  ['--algorithm', 'ring', '--nodes', '4', '--faults', 'slow'],
].map((args) => [...args, '--probes', '0']);

const TREE_CAP = 20_000_000;
const TREE_MS = 60_000;

/**
 * Worlds a search without duplicate-state detection visits: every path of actions (depth first)
 * up to `maxDepth` actions, up to TREE_CAP worlds or TREE_MS of wall time.
 */
function treeSize(args: string[], maxDepth: number): { worlds: number; complete: boolean } {
  const cli = parseExploreCli(args);
  const started = performance.now();
  const stack: { w: World; depth: number }[] = [{ w: initialWorld(cli.setup), depth: 0 }];
  let worlds = 1;
  while (stack.length > 0) {
    if (worlds >= TREE_CAP || ((worlds & 1023) === 0 && performance.now() - started > TREE_MS))
      return { worlds, complete: false };
    const { w, depth } = stack.pop()!;
    if (depth >= maxDepth) continue;
    for (const a of enabled(cli.setup, w)) {
      stack.push({ w: move(cli.setup, w, a), depth: depth + 1 });
      worlds++;
    }
  }
  return { worlds, complete: true };
}

function reductions(): string[] {
  const out = [
    'duplicate-state detection: worlds visited with it and without it (every path of actions)',
  ];
  for (const args of REDUCTION_CASES) {
    const cli = parseExploreCli(args);
    const r = search(cli.setup, cli.limits, () => performance.now());
    // A search stopped by its bound is compared within the depth it reached.
    const maxDepth = r.stoppedBy === 'exhausted' ? cli.limits.depth : r.depth;
    const t = treeSize(args, maxDepth);
    const without = t.complete ? fmt(t.worlds) : `more than ${fmt(t.worlds)} (stopped)`;
    const withIt = `${fmt(r.states)} (${fmt(r.transitions)} transitions, depth ${r.depth}, ${r.stoppedBy})`;
    out.push(`${args.join(' ')}: with ${withIt}; without, to depth ${maxDepth}: ${without}`);
  }
  return out;
}

const USAGE = `Usage: npm run bench:core -- [--quick] [--json] [--reductions] [--restart]

The simulator on the 1,000-process Bully worst case beside a bare event loop over as many events,
the work schedule at 1,000 processes and 10,000 tasks beside the election alone, and the
explorer's states/s on ring --nodes 4 --faults slow (docs/CORE_SPEED.md).
  --quick        200 processes (2,000 tasks) and a 20,000-state bound (CI)
  --json         the figures as JSON
  --reductions   also the explorer's state counts with and without duplicate-state detection
  --restart      also every algorithm at N = 4 with one crash and one restart, plain, with
                 sleep sets, with sleep sets and symmetry, and plain on 2 worker threads
                 (each against plain on 1, same run), and the explorer's targets
  --explore-seconds S   each of those searches' time bound (default 20)
  --help         this text`;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  handleHelp(argv, USAGE);
  let values;
  try {
    const flag = { type: 'boolean', default: false } as const;
    ({ values } = parseArgs({
      args: argv,
      options: {
        quick: flag,
        json: flag,
        reductions: flag,
        restart: flag,
        'explore-seconds': { type: 'string', default: '20' },
      },
      strict: true,
    }));
  } catch (e) {
    usageError('bench:core', USAGE, e);
  }
  const seconds = Number(values['explore-seconds']);
  if (!Number.isInteger(seconds) || seconds <= 0)
    usageError('bench:core', USAGE, new Error('--explore-seconds: a positive integer'));
  const b = runCoreBench(values.quick);
  const restart = values.restart ? await restartRuns(seconds) : null;
  const targets = values.restart ? await exploreTargets() : null;
  if (values.json) console.log(JSON.stringify({ ...b, restart, exploreTargets: targets }));
  else console.log(report(b).join('\n'));
  if (values.reductions) console.log(reductions().join('\n'));
  if (restart && targets && !values.json)
    console.log(exploreReport(restart, seconds, targets).join('\n'));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
