// bench:core's explorer tables (issue 26): every algorithm at N = 4, coordinator 3 down, with one
// crash and one restart, searched plain, with partial-order reduction, with it and symmetry (the
// default), and plain split across 2 worker threads, in the same run (the ratios are against the
// plain one-thread search measured here, so the machine's load cancels out as far as it can);
// and the targets: each algorithm's
// N = 4 lab with one crash within the grader's default budget (3 s), the ring at N = 4 and Bully
// at N = 5 exhausted in under 10 s, 300,000 distinct states/s on 2 cores.
import { ALGORITHM_NAMES } from '@shared/algorithms/algorithm.ts';
import { search, type SearchResult } from '@shared/explore/search.ts';
import type { SplitTally } from '@shared/explore/levels.ts';
import { parseExploreCli } from '../scripts/explore.ts';
import { searchWithWorkers } from '../scripts/explore-workers.ts';

export interface ExploreRun {
  args: string[];
  por: boolean;
  symmetry: boolean;
  workers: number;
  /** `levels[d]`: distinct worlds within d moves, for each depth the search began. */
  levels: number[];
  /** With workers: the worlds handed between them, the bytes, and the packing time against the search's. */
  split: SplitTally | null;
  states: number;
  transitions: number;
  depth: number;
  stoppedBy: SearchResult['stoppedBy'];
  wallMs: number;
  statesPerSecond: number;
  collisionBound: number;
}

export interface ExploreTarget {
  name: string;
  target: string;
  value: string;
  met: boolean;
}

interface How {
  por: boolean;
  symmetry?: boolean;
  workers?: number;
}

async function run(args: string[], how: How): Promise<ExploreRun> {
  const { por, symmetry = true, workers = 1 } = how;
  // The switches go on the command line: worker threads rebuild the lab from it.
  const argv = [...args, '--probes', '0', '--depth', '1000', '--states', '20000000'];
  argv.push('--symmetry', symmetry ? 'on' : 'off', '--por', por && workers === 1 ? 'on' : 'off');
  const cli = parseExploreCli(argv);
  const levels: number[] = [];
  cli.limits.onDepth = (depth, states) => void (levels[depth] = states);
  const clock = () => performance.now();
  const started = clock();
  // With workers the clock starts before they do: their start-up (about a second each) is counted.
  const r =
    workers > 1
      ? await searchWithWorkers(cli, argv, workers, clock)
      : search(cli.setup, cli.limits, clock);
  const wallMs = clock() - started;
  return {
    args,
    por: cli.limits.por === true,
    symmetry: cli.setup.symmetry !== false,
    workers,
    levels,
    split: 'split' in r ? (r.split as SplitTally) : null,
    states: r.states,
    transitions: r.transitions,
    depth: r.depth,
    stoppedBy: r.stoppedBy,
    wallMs,
    statesPerSecond: r.states / (wallMs / 1000),
    collisionBound: r.collisionBound,
  };
}

const lab = (algorithm: string, nodes: number, faults: string, seconds: number) => [
  '--algorithm',
  algorithm,
  '--nodes',
  String(nodes),
  '--faults',
  faults,
  '--seconds',
  String(seconds),
];

/** The runs of each algorithm in `restartRuns`, the first the plain baseline. */
const RESTART_RUNS: How[] = [
  { por: false, symmetry: false },
  { por: true, symmetry: false },
  { por: true, symmetry: true },
  { por: false, symmetry: false, workers: 2 },
];

/** Every algorithm at N = 4 with one crash and one restart, in each of `RESTART_RUNS`'s ways. */
export async function restartRuns(seconds: number): Promise<ExploreRun[]> {
  const out: ExploreRun[] = [];
  for (const algorithm of ALGORITHM_NAMES)
    for (const how of RESTART_RUNS)
      out.push(await run(lab(algorithm, 4, 'crash,restart', seconds), how));
  return out;
}

const GRADER_SECONDS = 3;
const RAW_TARGET = 300_000;

export async function exploreTargets(): Promise<{ runs: ExploreRun[]; targets: ExploreTarget[] }> {
  const runs: ExploreRun[] = [];
  const targets: ExploreTarget[] = [];
  for (const algorithm of ALGORITHM_NAMES) {
    const r = await run(lab(algorithm, 4, 'crash', GRADER_SECONDS), { por: true });
    runs.push(r);
    targets.push({
      name: `${algorithm} N = 4, one crash, exhausted within the grader's ${GRADER_SECONDS} s (1 worker, sleep sets, symmetry)`,
      target: 'exhausted',
      value: end(r),
      met: r.stoppedBy === 'exhausted',
    });
  }
  for (const [algorithm, nodes] of [
    ['ring', 4],
    ['bully', 5],
  ] as const)
    for (const [workers, por] of [
      [1, true],
      [2, false],
    ] as const) {
      const r = await run(lab(algorithm, nodes, 'crash', 10), { por, workers });
      runs.push(r);
      targets.push({
        name: `${algorithm} N = ${nodes}, one crash, exhausted from the CLI (${how(r)})`,
        target: '< 10 s',
        value: end(r),
        met: r.stoppedBy === 'exhausted',
      });
    }
  const best = runs
    .filter((r) => r.workers === 2)
    .sort((a, b) => b.statesPerSecond - a.statesPerSecond)[0]!;
  targets.push({
    name: `distinct states/s, raw, on 2 cores (2 workers, the best of the runs above: ${best.args[1]} N = ${best.args[3]})`,
    target: `>= ${fmt(RAW_TARGET)}`,
    value: fmt(best.statesPerSecond),
    met: best.statesPerSecond >= RAW_TARGET,
  });
  return { runs, targets };
}

const how = (r: ExploreRun) =>
  `${r.workers} worker${r.workers > 1 ? 's' : ''}, ${r.por ? 'sleep sets' : 'plain'}${r.symmetry ? ' + symmetry' : ''}`;

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');

function end(r: ExploreRun): string {
  if (r.stoppedBy === 'exhausted') return `exhausted in ${fmt(r.wallMs)} ms`;
  if (r.stoppedBy === 'found') return `violation found at depth ${r.depth + 1}`;
  return `not exhausted: stopped by the ${r.stoppedBy} bound at depth ${r.depth}`;
}

function line(r: ExploreRun, plain?: ExploreRun): string {
  const ratio = plain
    ? `; ${(r.statesPerSecond / plain.statesPerSecond).toFixed(2)}x plain's states/s, ${(r.transitions / Math.max(1, plain.transitions)).toFixed(2)}x its transitions${plain.stoppedBy === 'exhausted' && r.stoppedBy === 'exhausted' ? `, ${(r.wallMs / plain.wallMs).toFixed(2)}x its time` : ''}`
    : '';
  const split = r.split
    ? `; ${fmt(r.split.shipped)} worlds handed over (${(r.split.bytes / 1e6).toFixed(0)} MB), ${fmt(r.split.codecMs)} ms packing beside ${fmt(r.split.workMs)} ms of search, threads summed`
    : '';
  return `  ${r.args[1]} ${how(r).padEnd(33)}: ${fmt(r.states)} states, ${fmt(r.transitions)} transitions, ${fmt(r.statesPerSecond)} states/s, ${end(r)}${ratio}${split}`;
}

/**
 * The worlds within the deepest depth every one-thread run began: the same count plain and with
 * sleep sets (they visit the same worlds), fewer with symmetry where it merges; unlike states/s,
 * not moved by the machine's load.
 */
function levelLine(runs: ExploreRun[]): string {
  const depth = Math.min(...runs.map((r) => r.levels.length - 1));
  const plain = runs[0]!.levels[depth]!;
  const counts = runs.map((r) => {
    const n = r.levels[depth]!;
    return `${fmt(n)} (${(n / plain).toFixed(3)}x)`;
  });
  return `  ${runs[0]!.args[1]} worlds within ${depth} moves, plain / sleep sets / + symmetry: ${counts.join(' / ')}`;
}

export function exploreReport(
  restart: ExploreRun[],
  seconds: number,
  t: { runs: ExploreRun[]; targets: ExploreTarget[] },
): string[] {
  const out = [
    `explorer, N = 4, coordinator 3 down, one crash and one restart (explore --faults crash,restart --seconds ${seconds} --probes 0); ratios against the plain 1-worker search:`,
  ];
  const k = RESTART_RUNS.length;
  for (let i = 0; i < restart.length; i += k) {
    const runs = restart.slice(i, i + k);
    out.push(line(runs[0]!));
    for (let j = 1; j < runs.length; j++) out.push(line(runs[j]!, runs[0]));
    out.push(levelLine(runs.filter((r) => r.workers === 1)));
  }
  out.push('explorer targets:');
  for (const r of t.runs) out.push(line(r));
  for (const x of t.targets)
    out.push(`target ${x.name}: ${x.target}: ${x.value} (${x.met ? 'met' : 'missed'})`);
  return out;
}
