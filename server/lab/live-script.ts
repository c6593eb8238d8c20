// One way to run a scripted set-up in the live lab (issue 28: a lesson step's "live run", and the
// instructor's replay of an accepted challenge): the set-up is put on the lab with the
// instructor's own controls (lab-control.ts), free ids are filled with server bots, the lab
// settles on one coordinator, then the script's crash/recover/elect/partition/link rules happen at
// their times on the relay's clock, and the run is folded from the lab's own trace
// (shared/lessons/lesson-live-facts.ts). What the run means (a reveal, a target) is the caller's.
import type { ProcessId, Report } from '@shared/algorithms/algorithm.ts';
import { checkerProfile } from '@shared/analysis/checker-profiles.ts';
import { LiveRunFold } from '@shared/lessons/lesson-live-facts.ts';
import {
  DEFAULT_LESSON_DELAY,
  horizon,
  stepTiming,
  stepWorkload,
  type RunFacts,
} from '@shared/lessons/lesson-runner.ts';
import type { LessonStep } from '@shared/lessons/lesson-schema.ts';
import { serializeTrace } from '@shared/protocol/trace-file.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import type { ServerBots } from './bots.ts';
import type { Lab } from './lab.ts';
import { crash, elect, partition, recover, restartJob, setFabric, update } from './lab-control.ts';
import type { Labs } from './labs.ts';

/** A set-up and its schedule of faults, as a lesson step or a challenge submission gives them. */
type LiveScript = Pick<LessonStep, 'setup' | 'run'> & { title: string };

/** Who runs a script: the lab's lesson, or the instructor's replay of a challenge entry. */
type ScriptOwner = 'lesson' | 'challenge';

/** How a live run ended: run to its horizon (facts null past the event bound), or not at all. */
export type LiveEnd =
  | { kind: 'ran'; facts: RunFacts | null; trace: string }
  | { kind: 'unsettled' }
  | { kind: 'failed' }
  | { kind: 'cancelled' };

/** How long the lab may take to agree on a coordinator before the run (bots join, elect). */
const SETTLE_MS = 15_000;
const POLL_MS = 100;
/** Polls in a row a run without detectors must be quiet to be over (half a second). */
const QUIET_POLLS = 5;
/** Events a live run may journal before it is no longer measured (as the simulator's bound). */
const MAX_LIVE_EVENTS = 200_000;
/** A live run starts server bots on the script's free ids: a larger set-up cannot run live. */
const MAX_LIVE_IDS = 32;

/** Why the live lab cannot run this set-up as its script means it, or null. */
export function scriptRefusal(script: Pick<LessonStep, 'setup' | 'run'>): string | null {
  const { setup } = script;
  if (setup.ids.length > MAX_LIVE_IDS) return `more than ${MAX_LIVE_IDS} processes`;
  // Even the fastest heartbeat arrives after the silence timeout: followers suspect a live
  // coordinator for ever (timeout-below-ub 1's spurious elections), so the lab never settles.
  const fastest = setup.link?.delay ?? DEFAULT_LESSON_DELAY;
  if ((setup.detector ?? 'heartbeat') !== 'none' && fastest > stepTiming(script).heartbeatTimeout)
    return 'its heartbeats arrive after its silence timeout: the lab would never settle';
  const top = Math.max(...setup.ids);
  if (setup.coordinator === null || (setup.coordinator ?? top) !== top)
    return 'a live lab starts by electing its highest id';
  return null;
}

/**
 * Why this lab cannot take the script now, or null: the set-up must remove no person from the
 * lab (a student answering from a process page holds an id), and nobody plays by hand (the run
 * would wait for her clicks). Every id is then free, a server bot's, or a person's tab running
 * the algorithm.
 */
function labRefusal(lab: Lab, script: LiveScript, bots: boolean): string | null {
  if (lab.config.play) return 'the lab is played by hand';
  const ids = new Set(script.setup.ids);
  for (const e of lab.processes.list()) {
    const person = e.conn !== null && e.conn.transport !== 'server';
    if (person && !ids.has(e.id))
      return `process ${e.id} is held by a person the set-up has no id for`;
  }
  if (!bots && script.setup.ids.some((id) => !lab.processes.get(id)?.conn))
    return 'an id of the set-up is free and the relay runs no bots';
  return null;
}

interface Run {
  owner: ScriptOwner;
  timers: unknown[];
  untap: (() => void) | null;
  cancelled: boolean;
  done: (end: LiveEnd) => void;
  observe: ((event: TraceEvent) => void) | undefined;
}

interface LiveDeps {
  labs: Pick<Labs, 'get'>;
  /** The relay's server bots (read when a run starts: the relay makes them after the rooms). */
  bots: () => ServerBots | null;
  onError: (err: unknown) => void;
}

/** At most one scripted run per lab; a new one stops the one under way (told `cancelled`). */
export class LiveScripts {
  private readonly runs = new Map<Lab, Run>();

  constructor(private readonly deps: LiveDeps) {}

  /** Starts the run: when it ends, by the relay's clock; or why the lab cannot run it. */
  start(
    lab: Lab,
    script: LiveScript,
    owner: ScriptOwner,
    done: (end: LiveEnd) => void,
    /** Every event the lab journals during the run itself (after it settled). */
    observe?: (event: TraceEvent) => void,
  ): { untilMs: number } | { refused: string } {
    const refused = scriptRefusal(script) ?? labRefusal(lab, script, this.deps.bots() !== null);
    if (refused) return { refused };
    this.cancel(lab);
    const run: Run = { owner, timers: [], untap: null, cancelled: false, done, observe };
    this.runs.set(lab, run);
    this.drive(lab, script, run).catch((err: unknown) => {
      this.deps.onError(err);
      this.finish(lab, run, { kind: 'failed' });
    });
    return { untilMs: horizon(script, stepWorkload(script)) * lab.config.fabric.timeScale };
  }

  /** Whose scripted run the lab is under, if any. */
  busy(lab: Lab): ScriptOwner | null {
    return this.runs.get(lab)?.owner ?? null;
  }

  /** The relay is closing: every run stops where it is. */
  closeAll(): void {
    for (const lab of [...this.runs.keys()]) this.cancel(lab);
  }

  /** The run stops where it is (the lab keeps what it did); its owner is told `cancelled`. */
  cancel(lab: Lab): void {
    const run = this.runs.get(lab);
    if (run) this.finish(lab, run, { kind: 'cancelled' });
  }

  private finish(lab: Lab, run: Run, end: LiveEnd): void {
    if (run.cancelled) return;
    run.cancelled = true;
    for (const t of run.timers) lab.deps.clock.clearTimeout(t);
    run.untap?.();
    if (this.runs.get(lab) === run) this.runs.delete(lab);
    run.done(end);
  }

  private async drive(lab: Lab, script: LiveScript, run: Run): Promise<void> {
    if (!prepare(lab, script)) return this.finish(lab, run, { kind: 'failed' });
    const start = await this.settle(lab, run);
    if (run.cancelled) return;
    if (!start) {
      lab.record({ kind: 'note', text: `${run.owner}: the lab did not settle before the run` });
      return this.finish(lab, run, { kind: 'unsettled' });
    }
    this.schedule(lab, script, run, start);
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
    const bots = this.deps.bots();
    while (!run.cancelled && clock.now() < deadline && this.deps.labs.get(lab.name) === lab) {
      // Free ids get bots: those free at the start, and any a person's tab left and whose
      // resume grace ran out while the lab settled (a student gone to the challenge page).
      const free = lab.processes.free(clock.now()).length;
      if (free > 0 && bots) await bots.start(lab.name, { count: free });
      const reports = agreed(lab);
      if (reports && !electionInFlight(lab)) return reports;
      await new Promise<void>((resolve) => run.timers.push(clock.setTimeout(resolve, POLL_MS)));
    }
    return null;
  }

  /** From now on: the script's rules at their times, the trace folded, the run over at its horizon. */
  private schedule(
    lab: Lab,
    script: LiveScript,
    run: Run,
    start: Map<ProcessId, Report | null>,
  ): void {
    const scale = lab.config.fabric.timeScale;
    const workload = stepWorkload(script);
    const fold = new LiveRunFold(lab.now(), scale, start, MAX_LIVE_EVENTS, workload);
    const tap = (e: TraceEvent) => {
      fold.observe(e);
      run.observe?.(e);
    };
    lab.taps.add(tap);
    run.untap = () => lab.taps.delete(tap);
    const title = script.title.slice(0, 100);
    lab.record({ kind: 'note', text: `${run.owner}: "${title}" runs live from here` });
    // The job starts with the run, as the simulator's does at 0 (it ran while the lab settled).
    if (workload) restartJob(lab);
    const live = () => !run.cancelled && this.deps.labs.get(lab.name) === lab;
    const at = (ms: number, act: () => void) =>
      run.timers.push(lab.deps.clock.setTimeout(() => live() && act(), ms * scale));
    const steps = actions(script);
    for (const a of steps) at(a.at, () => a.act(lab));
    const end = () => {
      const facts = fold.facts(lab.now());
      const { algorithm, ids } = script.setup;
      const trace = serializeTrace(
        { source: 'relay', algorithm, ids, seed: script.setup.seed ?? 1 },
        fold.trace,
      );
      this.finish(lab, run, { kind: 'ran', facts: fold.overflow ? null : facts, trace });
    };
    at(horizon(script, stepWorkload(script)), end);
    // Without a failure detector nothing starts an election but the script's rules: as the
    // simulator's queue empties, the run is over once its last rule fired and the lab is quiet.
    if ((script.setup.detector ?? 'heartbeat') === 'none') {
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

/** The set-up on the lab: every id up, no partition, its algorithm, ids, timing and links. */
function prepare(lab: Lab, script: LiveScript): boolean {
  const { setup } = script;
  partition(lab, null);
  for (const e of lab.processes.list()) if (e.crashed) recover(lab, e.id);
  const updated = update(lab, {
    algorithm: setup.algorithm,
    ids: setup.ids,
    ring: setup.ring ?? setup.ids,
    timing: stepTiming(script),
    detector: setup.detector ?? 'heartbeat',
    options: setup.options ?? {},
    seed: setup.seed ?? 1,
    workload: stepWorkload(script),
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

/** The script's rules in time order, each an act on the lab; link rules accumulate as the simulator's. */
function actions(script: LiveScript): { at: number; act: (lab: Lab) => void }[] {
  const { run } = script;
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
