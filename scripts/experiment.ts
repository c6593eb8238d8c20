// npm run experiment -- [--algorithm bully,ring,ring-active-list,emergent,raft] [--nodes 4,8,...,512]
//   [--case worst,best,random] [--runs R] [--delay MS] [--jitter MS] [--drop P[,P...]] [--seed S]
//   [--detector none|heartbeat|poll] [--out DIR] [--live URL --token T]
//
// Runs the documents' setting (the coordinator N-1 crashed, one process detects it) for every
// combination in the simulator and writes DIR/runs.csv (one row per run), DIR/summary.md (measured
// beside the formulas) and SVG plots. Several --drop values sweep loss and add agreement.svg.
// With --live URL the runs happen on a running relay instead (its server bots, real time; the
// token is the instructor's, or ELECTION_LAB_TOKEN).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  ALGORITHM_NAMES,
  type AlgorithmName,
  type DetectorMode,
} from '@shared/algorithms/algorithm.ts';
import {
  DEFAULT_SWEEP,
  runOne,
  runWeight,
  sweepRuns,
  type RunRow,
  type SweepSpec,
} from '@shared/experiments/experiment.ts';
import { fetchDeps, runLive, type LiveDeps } from '@shared/lab-client/experiment-live.ts';
import { experimentFigures } from '@shared/experiments/experiment-plots.ts';
import { agreementTable, summaryTable, toCsv } from '@shared/experiments/experiment-tables.ts';
import { ELECTION_CASES, type ElectionCase } from '@shared/analysis/formulas.ts';
import {
  runWorkSweep,
  workCsv,
  workFigures,
  workSummary,
  type WorkRunRow,
  type WorkSweepSpec,
} from '@shared/experiments/work-experiment.ts';
import { handleHelp, progressLine, usageError } from './cli.ts';

export const EXPERIMENT_USAGE = `Usage: npm run experiment -- [options]

Message-complexity sweeps: the documents' setting (the coordinator N-1 crashed, one process
detects it) for every combination, in the simulator (or on a relay with --live). Writes
DIR/runs.csv, DIR/summary.md (measured beside the formulas) and SVG plots.

  --algorithm A,B      among ${ALGORITHM_NAMES.join(', ')} (default all)
  --nodes 4,8,...      lab sizes
  --case worst,best,random
  --runs R             runs per setting
  --delay MS --jitter MS --drop P[,P...]   link rules; several --drop values sweep loss
  --seed S             first seed
  --detector none|heartbeat|poll
  --out DIR            where to write (default experiments/)
  --live URL --token T run on a relay's server bots instead of the simulator
  --workload tasks     003's work schedule instead (docs/WORK_SCHEDULE.md): makespan and results
                       lost against workers crashed, static against dynamic sharing; writes
                       DIR/work.csv, DIR/work-summary.md, work-makespan.svg and work-lost.svg.
                       One --nodes value (default 6); --tasks K (default 24), --task-ms MS
                       (default 400), --crashes 0,1,2,3 (default), --runs R (default 5),
                       --delay MS (default 100); --algorithm (default bully)
  --help               this text`;

export function parseExperimentCli(argv: string[]): {
  spec: SweepSpec;
  out: string;
  quiet: boolean;
  live: { url: string; token: string } | null;
  work: WorkSweepSpec | null;
} {
  const { values } = parseArgs({
    args: argv,
    options: {
      algorithm: { type: 'string' },
      nodes: { type: 'string' },
      case: { type: 'string' },
      runs: { type: 'string' },
      delay: { type: 'string' },
      jitter: { type: 'string' },
      drop: { type: 'string' },
      seed: { type: 'string' },
      detector: { type: 'string' },
      out: { type: 'string', default: 'experiment-out' },
      live: { type: 'string' },
      token: { type: 'string' },
      quiet: { type: 'boolean', default: false },
      workload: { type: 'string' },
      tasks: { type: 'string' },
      'task-ms': { type: 'string' },
      crashes: { type: 'string' },
    },
    strict: true,
  });
  const token = values.token ?? process.env['ELECTION_LAB_TOKEN'] ?? null;
  if (values.live !== undefined && !token)
    throw new Error('--live needs the instructor token: --token T or ELECTION_LAB_TOKEN');
  if (values.live !== undefined && !/^https?:\/\//.test(values.live))
    throw new Error('--live: an http(s) URL of a running relay');
  const list = (s: string | undefined) =>
    s === undefined
      ? undefined
      : s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
  if (values.workload !== undefined && values.workload !== 'tasks')
    throw new Error('--workload: the one workload is "tasks"');
  const defaultAlgorithms = values.workload ? ['bully'] : DEFAULT_SWEEP.algorithms;
  const algorithms = (list(values.algorithm) ?? defaultAlgorithms) as AlgorithmName[];
  for (const a of algorithms)
    if (!ALGORITHM_NAMES.includes(a))
      throw new Error(`--algorithm: "${a}" is not one of ${ALGORITHM_NAMES.join(', ')}`);
  const cases = (list(values.case) ?? DEFAULT_SWEEP.cases) as ElectionCase[];
  for (const c of cases)
    if (!ELECTION_CASES.includes(c))
      throw new Error(`--case: "${c}" is not one of worst, best, random`);
  const nodes = list(values.nodes)?.map((x) => num(x, '--nodes')) ?? DEFAULT_SWEEP.nodes;
  for (const n of nodes)
    if (!Number.isInteger(n) || n < 2 || n > 5000)
      throw new Error('--nodes: every N must be an integer from 2 to 5000');
  const drops = list(values.drop)?.map((x) => num(x, '--drop')) ?? DEFAULT_SWEEP.drops;
  for (const d of drops) if (d > 1) throw new Error('--drop: a probability between 0 and 1');
  const detector = (values.detector ?? DEFAULT_SWEEP.detector) as DetectorMode;
  if (!['none', 'heartbeat', 'poll'].includes(detector))
    throw new Error('--detector: none, heartbeat or poll');
  const runs =
    values.runs === undefined
      ? values.workload
        ? 5
        : DEFAULT_SWEEP.runs
      : num(values.runs, '--runs');
  if (!Number.isInteger(runs) || runs < 1 || runs > 100_000)
    throw new Error('--runs: an integer from 1 to 100000');
  let work: WorkSweepSpec | null = null;
  if (values.workload) {
    if (values.live !== undefined) throw new Error('--workload runs in the simulator, not --live');
    const n = values.nodes === undefined ? 6 : num(values.nodes, '--nodes');
    if (!Number.isInteger(n) || n < 3 || n > 1000)
      throw new Error('--nodes: with --workload one N, an integer from 3 to 1000');
    const crashes = (list(values.crashes) ?? ['0', '1', '2', '3']).map((x) => num(x, '--crashes'));
    for (const c of crashes)
      if (!Number.isInteger(c) || c > n - 2)
        throw new Error(`--crashes: whole numbers up to ${n - 2} (one worker stays up)`);
    const tasks = values.tasks === undefined ? 24 : num(values.tasks, '--tasks');
    if (!Number.isInteger(tasks) || tasks < 1 || tasks > 20_000)
      throw new Error('--tasks: an integer from 1 to 20000');
    work = {
      algorithms,
      n,
      tasks,
      taskMs: values['task-ms'] === undefined ? 400 : num(values['task-ms'], '--task-ms'),
      crashes,
      runs,
      seed: values.seed === undefined ? 1 : num(values.seed, '--seed'),
      delay: values.delay === undefined ? 100 : num(values.delay, '--delay'),
    };
  }
  return {
    spec: {
      algorithms,
      nodes,
      cases,
      runs,
      delay: values.delay === undefined ? DEFAULT_SWEEP.delay : num(values.delay, '--delay'),
      jitter: values.jitter === undefined ? DEFAULT_SWEEP.jitter : num(values.jitter, '--jitter'),
      drops,
      seed: values.seed === undefined ? DEFAULT_SWEEP.seed : num(values.seed, '--seed'),
      detector,
    },
    out: values.out,
    quiet: values.quiet,
    live: values.live === undefined ? null : { url: values.live, token: token! },
    work,
  };
}

function num(s: string, what: string): number {
  const n = Number(s);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${what}: "${s}" is not a non-negative number`);
  return n;
}

/** Runs the sweep, reporting progress as a share of the expected work. */
export function runExperiment(
  spec: SweepSpec,
  progress?: (done: number, label: string) => void,
): RunRow[] {
  const runs = sweepRuns(spec);
  const total = runs.reduce((a, p) => a + runWeight(p), 0);
  let done = 0;
  const rows: RunRow[] = [];
  for (const p of runs) {
    progress?.(
      done / total,
      `${p.algorithm} N=${p.n} ${p.case}${p.drop ? ` loss ${p.drop}` : ''} run ${p.run + 1}`,
    );
    rows.push(runOne(p, () => performance.now()));
    done += runWeight(p);
  }
  progress?.(1, 'done');
  return rows;
}

/** The same sweep against a running relay, one lab per run, one run at a time (real time). */
export async function runExperimentLive(
  spec: SweepSpec,
  deps: LiveDeps,
  progress?: (done: number, label: string) => void,
): Promise<RunRow[]> {
  const runs = sweepRuns(spec);
  const total = runs.reduce((a, p) => a + runWeight(p), 0);
  const prefix = `exp-${Math.floor(deps.clock()).toString(36)}`;
  let done = 0;
  const rows: RunRow[] = [];
  for (const [i, p] of runs.entries()) {
    progress?.(
      done / total,
      `live ${p.algorithm} N=${p.n} ${p.case}${p.drop ? ` loss ${p.drop}` : ''} run ${p.run + 1}`,
    );
    rows.push(await runLive(p, deps, `${prefix}-${i}`));
    done += runWeight(p);
  }
  progress?.(1, 'done');
  return rows;
}

/** Everything the work sweep writes, as file name and text. */
export function workFiles(rows: readonly WorkRunRow[]): { file: string; text: string }[] {
  return [
    { file: 'work.csv', text: workCsv(rows) },
    { file: 'work-summary.md', text: workSummary(rows) },
    ...workFigures(rows).map((f) => ({ file: f.file, text: f.svg })),
  ];
}

/** Everything the run writes, as file name and text. */
export function experimentFiles(
  spec: SweepSpec,
  rows: readonly RunRow[],
): { file: string; text: string }[] {
  const summary: string[] = [];
  for (const a of spec.algorithms)
    for (const c of spec.cases) {
      const t = summaryTable(rows, a, c);
      if (t)
        summary.push(`### ${a}, ${c} case\n\nMeasured (formula); bold where they agree.\n\n${t}`);
    }
  if (spec.drops.length > 1) summary.push(`### Agreement under loss\n\n${agreementTable(rows)}`);
  return [
    { file: 'runs.csv', text: toCsv(rows) },
    { file: 'summary.md', text: summary.join('\n') },
    ...experimentFigures(rows).map((f) => ({ file: f.file, text: f.svg })),
  ];
}

function bar(share: number, label: string): string {
  const width = 30;
  const full = Math.round(share * width);
  return `[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${String(Math.round(share * 100)).padStart(3)}% ${label}`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  handleHelp(argv, EXPERIMENT_USAGE);
  let parsed;
  try {
    parsed = parseExperimentCli(argv);
  } catch (e) {
    usageError('experiment', EXPERIMENT_USAGE, e);
  }
  const { spec, out, quiet, live, work } = parsed;
  const started = performance.now();
  const line = progressLine(process.stderr, started);
  const progress = (share: number, label: string) => !quiet && line.step(bar(share, label));
  if (work) {
    const rows = runWorkSweep(work, progress);
    line.done();
    mkdirSync(out, { recursive: true });
    const files = workFiles(rows);
    for (const f of files) writeFileSync(join(out, f.file), f.text);
    const wall = (performance.now() - started) / 1000;
    console.log(`${rows.length} runs in ${wall.toFixed(1)} s`);
    console.log(workSummary(rows));
    console.log(`wrote ${files.map((f) => join(out, f.file)).join(', ')}`);
    return;
  }
  let rows: RunRow[];
  try {
    rows = live
      ? await runExperimentLive(spec, fetchDeps(live.url, live.token), progress)
      : runExperiment(spec, progress);
  } catch (e) {
    line.done();
    console.error(`experiment: ${(e as Error).message}`);
    process.exit(1);
  }
  line.done();
  const wall = (performance.now() - started) / 1000;
  mkdirSync(out, { recursive: true });
  const files = experimentFiles(spec, rows);
  for (const f of files) writeFileSync(join(out, f.file), f.text);
  const unsafe = rows.filter((r) => !r.safe).length;
  const disagreed = rows.filter((r) => !r.agreed).length;
  console.log(
    `${rows.length} runs in ${wall.toFixed(1)} s; ${disagreed} ended without agreement, ${unsafe} with two leaders`,
  );
  console.log(`wrote ${files.map((f) => join(out, f.file)).join(', ')}`);
}

if (import.meta.url === `file://${process.argv[1]}`) void main();
