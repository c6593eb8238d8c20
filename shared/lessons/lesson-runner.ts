// Runs one lesson step in the deterministic simulator and measures its reveal from the run: the
// same spec and seed give the same number every time, so a lesson's expected value is checked
// by a test and the relay's reveal is the class's answer key. Pure: no I/O, no clock.
import { DEFAULT_TIMING, type ProcessId } from '../algorithms/algorithm.ts';
import { getAlgorithm } from '../algorithms/registry.ts';
import { checkTrace } from '../analysis/checker.ts';
import { serializeTrace } from '../protocol/trace-file.ts';
import { simulate, type SimulationResult, type SimulationSpec } from '../sim/simulator.ts';
import type { LessonStep, Measure } from './lesson-schema.ts';

/** A run with heartbeats never empties its queue: without `until`, stop here. */
const DEFAULT_UNTIL = 20_000;
/**
 * A lesson's run is small (the shipped ones take at most a few thousand events); this bounds a
 * badly written one, which the relay runs on its event loop: 100,000 events, 0.4 to 1 s on the
 * 2-core CI machine (64 processes beating every millisecond).
 */
export const MAX_LESSON_EVENTS = 100_000;

interface StepOutcome {
  /** The reveal's number; null when the run gives none (no election, live processes disagree). */
  measured: number | null;
  expected: number;
  agrees: boolean;
  /** The run's own figures, for the projector's caption. */
  run: {
    endTime: number;
    events: number;
    messages: number;
    coordinators: Record<string, number>;
    truncated: boolean;
  };
  /** The run as a trace file (JSON Lines, opens in /replay). */
  trace: () => string;
}

/** A step's set-up and run as a simulation (the challenges' verifier runs a schedule the same way). */
type RunnableStep = Pick<LessonStep, 'setup' | 'run'>;

export function stepSpec(step: RunnableStep): SimulationSpec {
  const { setup, run } = step;
  const link = {
    delay: setup.link?.delay ?? 100,
    jitter: setup.link?.jitter ?? 0,
    drop: setup.link?.loss ?? 0,
  };
  return {
    algorithm: getAlgorithm(setup.algorithm),
    ids: setup.ids,
    ring: setup.ring,
    timing: setup.timing,
    detector: setup.detector ?? 'heartbeat',
    options: setup.options,
    initialCoordinator: setup.coordinator,
    link,
    ...linkRules(step, link),
    crashes: run.crash ?? [],
    recoveries: run.recover ?? [],
    elections: run.elect ?? [],
    partitions: run.partition ?? [],
    seed: setup.seed ?? 1,
    until: setup.until ?? DEFAULT_UNTIL,
    maxEvents: MAX_LESSON_EVENTS,
  };
}

/**
 * The run's directed link rules: those at time 0 hold from the start (the simulator would apply a
 * change at 0 after the run's other events at 0); each later change keeps the earlier ones.
 */
function linkRules(
  step: RunnableStep,
  link: { delay: number; jitter: number; drop: number },
): Pick<SimulationSpec, 'links' | 'linkChanges'> {
  const rules = [...(step.run.links ?? [])].sort((a, b) => a.at - b.at);
  const links: Record<string, { delay?: number; drop?: number }> = {};
  const changes: NonNullable<SimulationSpec['linkChanges']> = [];
  let initial: Record<string, { delay?: number; drop?: number }> | null = null;
  for (const r of rules) {
    if (r.at > 0) initial ??= { ...links };
    links[`${r.from}->${r.to}`] = {
      ...links[`${r.from}->${r.to}`],
      ...(r.delay !== undefined ? { delay: r.delay } : {}),
      ...(r.loss !== undefined ? { drop: r.loss } : {}),
    };
    if (r.at > 0) changes.push({ at: r.at, link, links: { ...links } });
  }
  return { links: initial ?? links, linkChanges: changes };
}

export function runStep(step: LessonStep): StepOutcome {
  const spec = stepSpec(step);
  const r = simulate(spec);
  // A run cut short by the event bound measured part of what the step meant: no value.
  const measured =
    r.events >= MAX_LESSON_EVENTS ? null : measure(step, spec, r, step.reveal.measure);
  const coordinators: Record<string, number> = {};
  for (const c of Object.values(r.coordinatorByNode))
    coordinators[String(c ?? 'none')] = (coordinators[String(c ?? 'none')] ?? 0) + 1;
  return {
    measured,
    expected: step.reveal.expected,
    agrees: measured === step.reveal.expected,
    run: {
      endTime: r.endTime,
      events: r.events,
      messages: r.messages.total,
      coordinators,
      truncated: r.truncated,
    },
    trace: () =>
      serializeTrace(
        {
          source: 'simulator',
          algorithm: step.setup.algorithm,
          ids: step.setup.ids,
          seed: spec.seed,
        },
        r.trace,
      ),
  };
}

function measure(
  step: LessonStep,
  spec: SimulationSpec,
  r: SimulationResult,
  m: Measure,
): number | null {
  switch (m.kind) {
    case 'messages':
      return m.types.reduce((n, t) => n + (r.messages.byType[t] ?? 0), 0);
    case 'senders': {
      const from = new Set<ProcessId>();
      for (const e of r.trace) if (e.kind === 'send' && e.type === m.type) from.add(e.from);
      return from.size;
    }
    case 'coordinator': {
      const believed = new Set(Object.values(r.coordinatorByNode));
      const [only] = believed;
      return believed.size === 1 && typeof only === 'number' ? only : null;
    }
    case 'acting-coordinators':
      return Object.entries(r.coordinatorByNode).filter(([id, c]) => c === Number(id)).length;
    case 'election-time':
      return r.electionTime;
    case 'findings': {
      const { summary } = checkRun(step, spec, r);
      return m.finding === 'spurious-elections'
        ? summary.spuriousElections
        : summary.counts[m.finding];
    }
  }
}

/** The live checker over a step's run, judging by the bounds the processes were told. */
export function checkRun(
  step: RunnableStep,
  spec: SimulationSpec,
  r: SimulationResult,
): ReturnType<typeof checkTrace> {
  // The simulator's own default of T: the link's delay plus its jitter.
  const timing = {
    ...DEFAULT_TIMING,
    transmission: spec.link!.delay! + spec.link!.jitter!,
    ...step.setup.timing,
  };
  return checkTrace(
    r.trace,
    { algorithm: step.setup.algorithm, ids: step.setup.ids, timing, options: step.setup.options },
    r.endTime,
  );
}
