// A lesson step run in the live lab (issue 28: "then the live run"): the step's set-up is put on
// the lab with the instructor's own controls (lab-control.ts), free ids are filled with server
// bots, the lab settles on one coordinator, then the step's crash/recover/elect/partition/link
// rules happen at their times on the relay's clock and the reveal is measured from the lab's own
// trace of the run (shared/lessons/lesson-live-facts.ts). A step the live lab cannot reproduce,
// or a lab that does not settle, runs in the simulator instead, and its reveal says "simulated".
import type { ProcessId, Report } from '@shared/algorithms/algorithm.ts';
import { checkerProfile } from '@shared/analysis/checker-profiles.ts';
import { LiveRunFold } from '@shared/lessons/lesson-live-facts.ts';
import {
  DEFAULT_LESSON_DELAY,
  horizon,
  measureRun,
  runStep,
  stepTiming,
  stepWorkload,
} from '@shared/lessons/lesson-runner.ts';
import type { LessonStep } from '@shared/lessons/lesson-schema.ts';
import { serializeTrace } from '@shared/protocol/trace-file.ts';
import type { ServerBots } from './bots.ts';
import type { Lab } from './lab.ts';
import { crash, elect, partition, recover, setFabric, update } from './lab-control.ts';
import type { LiveRunner, StepRun } from './lesson-room.ts';
import type { Labs } from './labs.ts';

/** How long the lab may take to agree on a coordinator before the run (bots join, elect). */
const SETTLE_MS = 15_000;
const POLL_MS = 100;
/** Polls in a row a run without detectors must be quiet to be over (half a second). */
const QUIET_POLLS = 5;
/** Events a live run may journal before it is no longer measured (as the simulator's bound). */
const MAX_LIVE_EVENTS = 200_000;

/** A live run starts server bots on the step's free ids: a step with more ids runs in the simulator. */
const MAX_LIVE_IDS = 32;

/** Why the live lab cannot run this step as its file means it, or null. */
export function liveRefusal(step: LessonStep): string | null {
  if (step.setup.ids.length > MAX_LIVE_IDS) return `more than ${MAX_LIVE_IDS} processes`;
  if (step.reveal.measure.kind === 'tasks')
    return "the relay keeps no audit of the work schedule's results";
  // Even the fastest heartbeat arrives after the silence timeout: followers suspect a live
  // coordinator for ever (timeout-below-ub 1's spurious elections), so the lab never settles.
  const fastest = step.setup.link?.delay ?? DEFAULT_LESSON_DELAY;
  if (
    (step.setup.detector ?? 'heartbeat') !== 'none' &&
    fastest > stepTiming(step).heartbeatTimeout
  )
    return 'its heartbeats arrive after its silence timeout: the lab would never settle';
  const top = Math.max(...step.setup.ids);
  if (step.setup.coordinator === null || (step.setup.coordinator ?? top) !== top)
    return 'a live lab starts by electing its highest id';
  return null;
}

/**
 * Why this lab cannot take the step now, or null: the set-up must remove no person from the lab
 * (a student answering from a process page holds an id), and nobody plays by hand (the run
 * would wait for her clicks). Every id is then free, a server bot's, or a person's tab running
 * the algorithm.
 */
function labRefusal(lab: Lab, step: LessonStep, bots: boolean): string | null {
  if (lab.config.play) return 'the lab is played by hand';
  const ids = new Set(step.setup.ids);
  for (const e of lab.processes.list()) {
    const person = e.conn !== null && e.conn.transport !== 'server';
    if (person && !ids.has(e.id))
      return `process ${e.id} is held by a person the step has no id for`;
  }
  if (!bots && step.setup.ids.some((id) => !lab.processes.get(id)?.conn))
    return 'an id of the step is free and the relay runs no bots';
  return null;
}

interface Run {
  timers: unknown[];
  untap: (() => void) | null;
  cancelled: boolean;
}

interface LiveDeps {
  labs: Pick<Labs, 'get'>;
  /** The relay's server bots (read when a run starts: the relay makes them after the rooms). */
  bots: () => ServerBots | null;
  onError: (err: unknown) => void;
}

export class LessonLiveRuns implements LiveRunner {
  private readonly runs = new Map<Lab, Run>();

  constructor(private readonly deps: LiveDeps) {}

  start(lab: Lab, step: LessonStep, done: (run: StepRun) => void): { untilMs: number } | null {
    if (liveRefusal(step) || labRefusal(lab, step, this.deps.bots() !== null)) return null;
    this.cancel(lab);
    const run: Run = { timers: [], untap: null, cancelled: false };
    this.runs.set(lab, run);
    const finish = (r: StepRun) => {
      if (run.cancelled) return;
      this.cancel(lab);
      done(r);
    };
    this.drive(lab, step, run, finish).catch((err: unknown) => {
      this.deps.onError(err);
      finish(simulated(step));
    });
    return { untilMs: horizon(step, stepWorkload(step)) * lab.config.fabric.timeScale };
  }

  /** The relay is closing: every run stops where it is. */
  closeAll(): void {
    for (const lab of [...this.runs.keys()]) this.cancel(lab);
  }

  cancel(lab: Lab): void {
    const run = this.runs.get(lab);
    if (!run) return;
    run.cancelled = true;
    for (const t of run.timers) lab.deps.clock.clearTimeout(t);
    run.untap?.();
    this.runs.delete(lab);
  }

  private async drive(
    lab: Lab,
    step: LessonStep,
    run: Run,
    finish: (r: StepRun) => void,
  ): Promise<void> {
    if (!this.prepare(lab, step)) return finish(simulated(step));
    const bots = this.deps.bots();
    const free = lab.processes.free(lab.deps.clock.now());
    if (free.length > 0 && bots) await bots.start(lab.name, { count: free.length });
    const start = await this.settle(lab, run);
    if (run.cancelled) return;
    if (!start) {
      lab.record({
        kind: 'note',
        text: 'lesson: the lab did not settle; the step ran in the simulator',
      });
      return finish(simulated(step));
    }
    this.schedule(lab, step, run, start, finish);
  }

  /** The step's set-up on the lab: every id up, no partition, its algorithm, ids, timing and links. */
  private prepare(lab: Lab, step: LessonStep): boolean {
    const { setup } = step;
    partition(lab, null);
    for (const e of lab.processes.list()) if (e.crashed) recover(lab, e.id);
    const updated = update(lab, {
      algorithm: setup.algorithm,
      ids: setup.ids,
      ring: setup.ring ?? setup.ids,
      timing: stepTiming(step),
      detector: setup.detector ?? 'heartbeat',
      options: setup.options ?? {},
      seed: setup.seed ?? 1,
      workload: stepWorkload(step),
    });
    if (!updated.ok) return false;
    setFabric(lab, {
      link: {
        delay: setup.link?.delay ?? DEFAULT_LESSON_DELAY,
        jitter: setup.link?.jitter ?? 0,
        loss: setup.link?.loss ?? 0,
        duplicate: 0,
      },
      links: [],
    });
    return true;
  }

  /**
   * Waits (bounded) until every id is up, all agree on one coordinator that names itself, and no
   * election message of the set-up is still in flight: a late COORDINATOR of a settling round
   * would land in the run (a crashed 7's announcement stopping 6's election, a ring's old token
   * going round again), which the simulator, starting on an empty network, never sees.
   */
  private async settle(lab: Lab, run: Run): Promise<Map<ProcessId, Report | null> | null> {
    const clock = lab.deps.clock;
    const deadline = clock.now() + SETTLE_MS;
    while (!run.cancelled && clock.now() < deadline && this.deps.labs.get(lab.name) === lab) {
      const reports = agreed(lab);
      if (reports && !electionInFlight(lab)) return reports;
      await new Promise<void>((resolve) => run.timers.push(clock.setTimeout(resolve, POLL_MS)));
    }
    return null;
  }

  /** From now on: the run's rules at their times, the trace folded, the reveal measured at the horizon. */
  private schedule(
    lab: Lab,
    step: LessonStep,
    run: Run,
    start: Map<ProcessId, Report | null>,
    finish: (r: StepRun) => void,
  ): void {
    const scale = lab.config.fabric.timeScale;
    const fold = new LiveRunFold(lab.now(), scale, start, MAX_LIVE_EVENTS);
    const tap = fold.observe.bind(fold);
    lab.taps.add(tap);
    run.untap = () => lab.taps.delete(tap);
    lab.record({ kind: 'note', text: `lesson: "${step.title.slice(0, 100)}" runs live from here` });
    const live = () => !run.cancelled && this.deps.labs.get(lab.name) === lab;
    const at = (ms: number, act: () => void) =>
      run.timers.push(lab.deps.clock.setTimeout(() => live() && act(), ms * scale));
    const steps = actions(step);
    for (const a of steps) at(a.at, () => a.act(lab));
    const end = () => {
      const facts = fold.facts(lab.now());
      finish({
        measured: fold.overflow ? null : measureRun(step, facts),
        trace: serializeTrace(
          {
            source: 'relay',
            algorithm: step.setup.algorithm,
            ids: step.setup.ids,
            seed: step.setup.seed ?? 1,
          },
          fold.trace,
        ),
        source: 'live',
      });
    };
    at(horizon(step, stepWorkload(step)), end);
    // Without a failure detector nothing starts an election but the run's rules: as the
    // simulator's queue empties, the run is over once its last rule fired and the lab is quiet.
    if ((step.setup.detector ?? 'heartbeat') === 'none') {
      let calm = 0;
      const poll = () => {
        calm = quiet(lab) ? calm + 1 : 0;
        if (calm >= QUIET_POLLS) return end();
        at(POLL_MS / scale, poll);
      };
      at(Math.max(0, ...steps.map((a) => a.at)) + POLL_MS / scale, poll);
    }
  }
}

/** Nothing in flight, nobody paused or electing: a lab without detectors stays so. */
function quiet(lab: Lab): boolean {
  if (lab.scheduler.size > 0 || lab.pausedHolds.size > 0) return false;
  return lab.processes.list().every((e) => e.crashed || !e.conn || !e.report?.electing);
}

/** Whether a message other than the steady load (heartbeats, polls) is held by the network. */
function electionInFlight(lab: Lab): boolean {
  const { steady } = checkerProfile(lab.processConfig());
  const busy = (h: { type: string }) => !steady.has(h.type);
  // A paused process holds messages too; agreed() already waits for nobody to be paused.
  return lab.pausedHolds.size > 0 || lab.scheduler.list().some(busy);
}

/** Every id up and agreeing on one self-naming coordinator: their reports; else null. */
function agreed(lab: Lab): Map<ProcessId, Report | null> | null {
  const out = new Map<ProcessId, Report | null>();
  let c: ProcessId | null = null;
  for (const e of lab.processes.list()) {
    const r = e.report;
    if (!e.conn || e.crashed || e.paused || !r || r.electing || r.coordinator === null) return null;
    if (c !== null && r.coordinator !== c) return null;
    c = r.coordinator;
    out.set(e.id, r);
  }
  return c !== null && out.get(c)?.coordinator === c ? out : null;
}

/** The step's rules in time order, each an act on the lab; link rules accumulate as the simulator's. */
function actions(step: LessonStep): { at: number; act: (lab: Lab) => void }[] {
  const { run } = step;
  // Link rules first: at one time, a rule holds before the run's other events (at 0: from the start).
  const out: { at: number; act: (lab: Lab) => void }[] = [];
  const links = new Map<
    string,
    { from: ProcessId; to: ProcessId; delay?: number; loss?: number }
  >();
  for (const l of [...(run.links ?? [])].sort((a, b) => a.at - b.at)) {
    const key = `${l.from}->${l.to}`;
    links.set(key, {
      ...(links.get(key) ?? { from: l.from, to: l.to }),
      ...(l.delay !== undefined ? { delay: l.delay } : {}),
      ...(l.loss !== undefined ? { loss: l.loss } : {}),
    });
    const now = [...links.values()];
    out.push({ at: l.at, act: (lab) => void setFabric(lab, { links: now }) });
  }
  for (const c of run.crash ?? []) out.push({ at: c.at, act: (lab) => void crash(lab, c.id) });
  for (const r of run.recover ?? []) out.push({ at: r.at, act: (lab) => void recover(lab, r.id) });
  for (const e of run.elect ?? []) out.push({ at: e.at, act: (lab) => void elect(lab, e.id) });
  for (const p of run.partition ?? [])
    out.push({ at: p.at, act: (lab) => void partition(lab, p.groups) });
  return out.sort((a, b) => a.at - b.at); // stable: links stay first at their time
}

function simulated(step: LessonStep): StepRun {
  const o = runStep(step);
  return { measured: o.measured, trace: o.trace(), source: 'simulated' };
}
