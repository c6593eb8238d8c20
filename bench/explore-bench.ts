// bench:core's explorer tables (issue 26): every algorithm at N = 4, coordinator 3 down, with one
// crash and one restart, searched plain, with partial-order reduction, and with it and symmetry
// (the default) in the same run (each ratio is against the plain search measured here, so the machine's load cancels out as far as
// it can); and the targets: each algorithm's N = 4 lab with one crash within the grader's default
// budget (3 s), the ring at N = 4 and Bully at N = 5 exhausted in under 10 s.
import { ALGORITHM_NAMES } from '@shared/algorithms/algorithm.ts';
import { search, type SearchResult } from '@shared/explore/search.ts';
import { parseExploreCli } from '../scripts/explore.ts';

export interface ExploreRun {
  args: string[];
  por: boolean;
  symmetry: boolean;
  states: number;
  transitions: number;
  depth: number;
  stoppedBy: SearchResult['stoppedBy'];
  wallMs: number;
  statesPerSecond: number;
  collisionBound: number;
  /** `levels[d]`: distinct worlds within d moves, for each depth the search began. */
  levels: number[];
}

export interface ExploreTarget {
  name: string;
  target: string;
  value: string;
  met: boolean;
}

function run(args: string[], por: boolean, symmetry = true): ExploreRun {
  const cli = parseExploreCli([
    ...args,
    '--probes',
    '0',
    '--depth',
    '1000',
    '--states',
    '20000000',
  ]);
  cli.limits.por = por;
  cli.setup.symmetry = symmetry;
  const levels: number[] = [];
  cli.limits.onDepth = (depth, states) => void (levels[depth] = states);
  const started = performance.now();
  const r = search(cli.setup, cli.limits, () => performance.now());
  const wallMs = performance.now() - started;
  return {
    args,
    por,
    symmetry,
    states: r.states,
    transitions: r.transitions,
    depth: r.depth,
    stoppedBy: r.stoppedBy,
    wallMs,
    statesPerSecond: r.states / (wallMs / 1000),
    collisionBound: r.collisionBound,
    levels,
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

/** The runs of each algorithm in `restartRuns`: plain, sleep sets, sleep sets and symmetry. */
const RESTART_RUNS: [por: boolean, symmetry: boolean][] = [
  [false, false],
  [true, false],
  [true, true],
];

/** Every algorithm at N = 4 with one crash and one restart, in each of `RESTART_RUNS`'s ways. */
export function restartRuns(seconds: number): ExploreRun[] {
  const out: ExploreRun[] = [];
  for (const algorithm of ALGORITHM_NAMES)
    for (const [por, symmetry] of RESTART_RUNS)
      out.push(run(lab(algorithm, 4, 'crash,restart', seconds), por, symmetry));
  return out;
}

const GRADER_SECONDS = 3;

export function exploreTargets(): { runs: ExploreRun[]; targets: ExploreTarget[] } {
  const runs: ExploreRun[] = [];
  const targets: ExploreTarget[] = [];
  for (const algorithm of ALGORITHM_NAMES) {
    const r = run(lab(algorithm, 4, 'crash', GRADER_SECONDS), true);
    runs.push(r);
    targets.push({
      name: `${algorithm} N = 4, one crash, exhausted within the grader's ${GRADER_SECONDS} s`,
      target: 'exhausted',
      value: end(r),
      met: r.stoppedBy === 'exhausted',
    });
  }
  for (const [algorithm, nodes] of [
    ['ring', 4],
    ['bully', 5],
  ] as const) {
    const r = run(lab(algorithm, nodes, 'crash', 10), true);
    runs.push(r);
    targets.push({
      name: `${algorithm} N = ${nodes}, one crash, exhausted from the CLI`,
      target: '< 10 s',
      value: end(r),
      met: r.stoppedBy === 'exhausted',
    });
  }
  return { runs, targets };
}

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
  const how = r.por
    ? r.symmetry
      ? 'sleep sets + symmetry'
      : 'sleep sets           '
    : 'plain                ';
  return `  ${r.args[1]} ${how}: ${fmt(r.states)} states, ${fmt(r.transitions)} transitions, ${fmt(r.statesPerSecond)} states/s, ${end(r)}${ratio}`;
}

/**
 * The worlds within the deepest depth every run began: the same count plain and with sleep sets
 * (they visit the same worlds), fewer with symmetry where it merges; unlike states/s, not moved
 * by the machine's load.
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
    `explorer, N = 4, coordinator 3 down, one crash and one restart (explore --faults crash,restart --seconds ${seconds} --probes 0), 1 worker:`,
  ];
  const k = RESTART_RUNS.length;
  for (let i = 0; i < restart.length; i += k) {
    const runs = restart.slice(i, i + k);
    out.push(line(runs[0]!));
    for (let j = 1; j < runs.length; j++) out.push(line(runs[j]!, runs[0]));
    out.push(levelLine(runs));
  }
  out.push('explorer targets (sleep sets and symmetry on, 1 worker):');
  for (const r of t.runs) out.push(line(r));
  for (const x of t.targets)
    out.push(`target ${x.name}: ${x.target}: ${x.value} (${x.met ? 'met' : 'missed'})`);
  return out;
}
