// npm run explore -- --algorithm bully --nodes 4 [--faults partition,crash,drop,slow] [--depth D]
//   [--states S] [--seconds S] [--initiators 0,1|all] [--detect-window MS] [--early] [--seed S]
//   [--check safety,agreement] [--workers N] [--trace FILE] [--json]
//
// Searches, breadth first, the orders in which messages, timers and detections may happen in a
// small lab (ids 0..N-1, the coordinator N-1 crashed, the other processes' detectors firing within
// one transmission time), and where the given faults may strike, checking safety at every step and
// agreement whenever nothing is pending. Prints the shortest schedule that breaks one and writes
// it as a trace file the dashboard replays.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import {
  ALGORITHM_NAMES,
  DEFAULT_TIMING,
  type AlgorithmName,
} from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import type { ExploreSetup, FaultBudget } from '@shared/explore/world.ts';
import {
  describeAction,
  scheduleTrace,
  search,
  type SearchLimits,
  type SearchResult,
} from '@shared/explore/search.ts';
import { restartOverlap, settleBound } from '@shared/explore/probe.ts';
import { provenWords } from '@shared/explore/verdict.ts';
import type { Property } from '@shared/analysis/properties.ts';
import type { SplitTally } from '@shared/explore/levels.ts';
import { serializeTrace } from '@shared/protocol/trace-file.ts';
import { withWork } from '@shared/work/with-work.ts';
import { DEFAULT_JOB, type WorkJob } from '@shared/work/work-job.ts';
import { WORK_PROPERTIES, workInvariant } from '@shared/work/work-explore.ts';
import { handleHelp, progressLine, usageError } from './cli.ts';
import { searchWithWorkers } from './explore-workers.ts';

export const FAULTS = ['partition', 'crash', 'restart', 'drop', 'slow'] as const;

export const EXPLORE_USAGE = `Usage: npm run explore -- [options]

Breadth-first search over the orders in which messages, timers and detections may happen in a
small lab (ids 0..N-1, the coordinator N-1 crashed), and where the given faults may strike,
for the shortest schedule that breaks safety or agreement. Writes it as a replayable trace.

  --algorithm NAME     ${ALGORITHM_NAMES.join(' | ')}
  --nodes N            lab size (small: 3 to 5)
  --faults LIST        among ${FAULTS.join(', ')}
  --depth D --states S --seconds S   search bounds
  --initiators 0,1|all which processes' detectors fire
  --detect-window MS   detections within this window
  --alive              nobody is down at the start (N-1 leads; detectors fire at --initiators)
  --probes N           random schedules carried to quiescence or the documents' bound once the
                       search stops at a bound (default 1000; 0: none); --probe-seconds S (default 5)
  --symmetry on|off    worlds that differ only where nothing can read it are one world
                       (default on; docs/CORE_SPEED.md, "Symmetry")
  --por on|off         partial-order reduction by sleep sets (default on: the same worlds,
                       fewer transitions; docs/CORE_SPEED.md)
  --workers N          worker threads the search's levels are split across (default 1; from 2
                       the plain search, no sleep sets: the same answer; docs/CORE_SPEED.md)
  --early              stop at the first violation
  --seed S
  --check LIST         among safety, agreement, ${WORK_PROPERTIES.join(', ')}
                       (default safety,agreement; with --workload the three work properties)
  --workload tasks     003's work schedule over the election (docs/WORK_SCHEDULE.md): checks
                       no result lost, none counted twice, no stale order obeyed
  --tasks K            tasks in the job (default 2); --task-ms MS (default 400)
  --sharing dynamic|static  --fencing on|off (default dynamic, on)
  --trace FILE         where to write the violating schedule
  --json               machine-readable output
  --help               this text`;

export interface ExploreCli {
  algorithm: AlgorithmName;
  setup: ExploreSetup;
  limits: SearchLimits;
  trace: string;
  json: boolean;
  /** Worker threads for the search (1: this thread, sleep sets on unless --por off). */
  workers: number;
}

export function parseExploreCli(argv: string[]): ExploreCli {
  const { values } = parseArgs({
    args: argv,
    options: {
      algorithm: { type: 'string', default: 'bully' },
      nodes: { type: 'string', default: '4' },
      faults: { type: 'string', default: '' },
      depth: { type: 'string', default: '40' },
      states: { type: 'string', default: '300000' },
      seconds: { type: 'string', default: '60' },
      initiators: { type: 'string', default: 'all' },
      'detect-window': { type: 'string' },
      early: { type: 'boolean', default: false },
      por: { type: 'string', default: 'on' },
      symmetry: { type: 'string', default: 'on' },
      alive: { type: 'boolean', default: false },
      probes: { type: 'string', default: '1000' },
      'probe-seconds': { type: 'string', default: '5' },
      seed: { type: 'string', default: '1' },
      check: { type: 'string' },
      workload: { type: 'string' },
      tasks: { type: 'string', default: '2' },
      'task-ms': { type: 'string', default: '400' },
      sharing: { type: 'string', default: 'dynamic' },
      fencing: { type: 'string', default: 'on' },
      trace: { type: 'string' },
      json: { type: 'boolean', default: false },
      workers: { type: 'string', default: '1' },
    },
    strict: true,
  });
  const algorithm = values.algorithm as AlgorithmName;
  if (!ALGORITHM_NAMES.includes(algorithm))
    throw new Error(`--algorithm must be one of ${ALGORITHM_NAMES.join(', ')}`);
  const n = int(values.nodes, '--nodes');
  if (n < 2 || n > 8) throw new Error('--nodes: from 2 to 8 (the search space grows fast)');
  const faults = values.faults
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  for (const f of faults)
    if (!(FAULTS as readonly string[]).includes(f))
      throw new Error(`--faults: "${f}" is not one of ${FAULTS.join(', ')}`);
  const budget: FaultBudget = { crash: 0, restart: 0, drop: 0, partition: 0, slow: 0 };
  for (const f of faults) budget[f as keyof FaultBudget] = 1;
  const ids = Array.from({ length: n }, (_, i) => i);
  const liveIds = values.alive ? ids : ids.slice(0, -1);
  const initiators =
    values.initiators === 'all'
      ? liveIds
      : values.initiators.split(',').map((x) => int(x, '--initiators'));
  for (const id of initiators)
    if (!liveIds.includes(id))
      throw new Error(`--initiators: ${id} is not a live id (0..${liveIds.length - 1})`);
  if (values.workload !== undefined && values.workload !== 'tasks')
    throw new Error('--workload: the one workload is "tasks"');
  const work = values.workload === 'tasks' ? jobFrom(values) : null;
  const known: readonly string[] = ['safety', 'agreement', ...WORK_PROPERTIES];
  const check = (values.check ?? (work ? WORK_PROPERTIES.join(',') : 'safety,agreement'))
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean) as Property[];
  for (const c of check)
    if (!known.includes(c)) throw new Error(`--check: "${c}" is not one of ${known.join(', ')}`);
  if (values.por !== 'on' && values.por !== 'off')
    throw new Error(`--por: "${values.por}" is not on or off`);
  const workers = int(values.workers, '--workers');
  if (workers < 1 || workers > 16) throw new Error('--workers: from 1 to 16');
  if (workers > 1 && work)
    throw new Error('--workers: a work schedule (--workload) is searched by one worker');
  if (values.symmetry !== 'on' && values.symmetry !== 'off')
    throw new Error(`--symmetry: "${values.symmetry}" is not on or off`);
  const timing = DEFAULT_TIMING;
  const election = getAlgorithm(algorithm);
  const setup: ExploreSetup = {
    algorithm: work ? withWork(election, work) : election,
    ids,
    timing,
    detector: 'none',
    initialCoordinator: n - 1,
    crashed: values.alive ? [] : [n - 1],
    initiators,
    detectWindow:
      values['detect-window'] === undefined
        ? timing.transmission
        : int(values['detect-window'], '--detect-window'),
    budget,
    seed: int(values.seed, '--seed'),
    extremes: !values.early,
    symmetry: values.symmetry === 'on',
    // With a job, random probes go on until it can be done: every task twice over, after the election.
    settle: work
      ? (settleBound(algorithm, ids, timing) ?? 0) + 2 * work.tasks * work.taskMs + 2000
      : settleBound(algorithm, ids, timing),
    overlap: budget.restart > 0 ? restartOverlap(algorithm, ids, timing) : undefined,
  };
  if (work) setup.invariant = workInvariant(setup);
  return {
    algorithm,
    setup,
    limits: {
      depth: int(values.depth, '--depth'),
      states: int(values.states, '--states'),
      ms: 1000 * int(values.seconds, '--seconds'),
      check,
      por: values.por === 'on',
      probes: {
        count: int(values.probes, '--probes'),
        steps: 5000,
        ms: 1000 * int(values['probe-seconds'], '--probe-seconds'),
      },
    },
    trace:
      values.trace ??
      `explore-out/${algorithm}-${n}${work ? '-tasks' : ''}${faults.length ? '-' + faults.join('-') : ''}.jsonl`,
    json: values.json,
    workers,
  };
}

/** The job of --workload tasks: a few tasks, dynamic sharing and fencing unless told otherwise. */
function jobFrom(values: Record<string, string | boolean | undefined>): WorkJob {
  const tasks = int(String(values['tasks']), '--tasks');
  if (tasks < 1 || tasks > 8) throw new Error('--tasks: from 1 to 8 (the search space grows fast)');
  const sharing = values['sharing'];
  if (sharing !== 'dynamic' && sharing !== 'static')
    throw new Error('--sharing: dynamic or static');
  const fencing = values['fencing'];
  if (fencing !== 'on' && fencing !== 'off') throw new Error('--fencing: on or off');
  return {
    ...DEFAULT_JOB,
    tasks,
    size: 100,
    taskMs: int(String(values['task-ms']), '--task-ms'),
    sharing,
    fencing: fencing === 'on',
  };
}

/** What splitting the search across threads cost (docs/CORE_SPEED.md, "Worker threads"). */
function splitLine(t: SplitTally): string {
  const mb = (t.bytes / 1e6).toFixed(1);
  return `${t.workers} worker threads, plain search (no sleep sets): ${t.shipped.toLocaleString('en')} worlds handed between them (${mb} MB), ${Math.round(t.codecMs)} ms packing and unpacking beside ${Math.round(t.workMs)} ms of search, threads summed`;
}

function int(s: string, what: string): number {
  const v = Number(s);
  if (!Number.isInteger(v) || v < 0)
    throw new Error(`${what}: "${s}" is not a non-negative integer`);
  return v;
}

/** The search, and the schedule found as lines and as a trace file's text. */
export function runExplore(
  cli: ExploreCli,
  clock: () => number,
): { result: SearchResult; schedule: string[]; traceText: string | null } {
  const result = search(cli.setup, cli.limits, clock);
  return { result, ...scheduleOf(cli, result) };
}

/** The schedule a search found, as lines and as a trace file's text (none found: empty). */
function scheduleOf(
  cli: ExploreCli,
  result: SearchResult,
): { schedule: string[]; traceText: string | null } {
  if (!result.finding) return { schedule: [], traceText: null };
  const { trace, worlds } = scheduleTrace(
    cli.setup,
    result.finding.actions,
    result.finding.violation,
  );
  const schedule = result.finding.actions.map(
    (a, i) =>
      `${String(i + 1).padStart(3)}. ${describeAction(cli.setup, worlds[i]!, worlds[i + 1]!, a)}`,
  );
  const faults = Object.entries(cli.setup.budget)
    .filter(([, v]) => v > 0)
    .map(([k]) => k);
  const header = {
    source: 'explorer' as const,
    algorithm: cli.algorithm,
    ids: [...cli.setup.ids],
    seed: cli.setup.seed,
    faults,
    violation: result.finding.violation,
  };
  return { schedule, traceText: serializeTrace(header, trace) };
}

/** `runExplore` with the search split across `cli.workers` threads (scripts/explore-workers.ts). */
async function runExploreWorkers(
  cli: ExploreCli,
  argv: string[],
  clock: () => number,
): Promise<{ result: SearchResult; schedule: string[]; traceText: string | null }> {
  const result = await searchWithWorkers(cli, argv, cli.workers, clock);
  return { result, ...scheduleOf(cli, result) };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  handleHelp(argv, EXPLORE_USAGE);
  let cli: ExploreCli;
  try {
    cli = parseExploreCli(argv);
  } catch (e) {
    usageError('explore', EXPLORE_USAGE, e);
  }
  // On a terminal, a progress line per depth (the search can run for its whole time budget).
  const line = progressLine();
  if (!cli.json)
    cli.limits.onDepth = (depth, states) =>
      line.step(`depth ${depth}, ${states.toLocaleString('en')} states...`);
  const clock = () => performance.now();
  const { result, schedule, traceText } =
    cli.workers > 1 ? await runExploreWorkers(cli, argv, clock) : runExplore(cli, clock);
  line.done();
  const perSecond = Math.round(result.states / Math.max(result.elapsedMs / 1000, 1e-3));
  if (traceText) {
    mkdirSync(dirname(cli.trace), { recursive: true });
    writeFileSync(cli.trace, traceText);
  }
  if (cli.json) {
    console.log(
      JSON.stringify({
        ...result,
        proven: provenWords(cli.setup, result),
        statesPerSecond: perSecond,
        schedule,
        trace: traceText ? cli.trace : null,
      }),
    );
    return;
  }
  const n = cli.setup.ids.length;
  const stop = {
    found: 'found a violation',
    exhausted: 'explored every reachable state',
    depth: `reached the depth bound (${cli.limits.depth})`,
    states: `reached the state bound (${cli.limits.states})`,
    time: `reached the time bound (${cli.limits.ms / 1000} s)`,
  }[result.stoppedBy];
  console.log(
    `${cli.algorithm}, ${n} processes (${cli.setup.crashed.length ? `coordinator ${n - 1} crashed` : 'all up'}, detectors fire at ${cli.setup.initiators.join(',')}), faults: ${
      Object.entries(cli.setup.budget)
        .filter(([, v]) => v)
        .map(([k]) => k)
        .join(', ') || 'none'
    }`,
  );
  console.log(
    `${result.states} states, ${result.transitions} transitions, depth ${result.depth}, ${(result.elapsedMs / 1000).toFixed(1)} s: ${perSecond} states/s; ${stop}`,
  );
  console.log(`exhaustive: ${result.exhaustive}; ${provenWords(cli.setup, result)}`);
  console.log(
    `64-bit fingerprints: the chance that two states shared one (so one went unchecked) is at most ${result.collisionBound.toExponential(1)} (n^2 / 2^65)${result.por ? `; sleep sets skipped ${result.por.slept.toLocaleString('en')} transitions` : ''}`,
  );
  if ('split' in result) console.log(splitLine(result.split as SplitTally));
  if (!result.finding) {
    console.log(
      `no schedule breaks ${(cli.limits.check ?? ['safety', 'agreement']).join(' or ')} within the bound`,
    );
    return;
  }
  console.log(
    `VIOLATION (${result.finding.violation.property}): ${result.finding.violation.message}, after ${schedule.length} steps${result.finding.by === 'probe' ? ' (found by a random probe: maybe not the shortest schedule)' : ''}:`,
  );
  for (const line of schedule) console.log(line);
  console.log(`trace written to ${cli.trace} (replay it in the dashboard)`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
