// A class playing by hand, in virtual time (`npm run class`): N students, each a HandRunner with
// its coach, on the lab's network model (shared/sim/network.ts) with the lab's timing at the
// given time scale. Each student follows the coach's hints (hints.ts) after a think time drawn
// from the seeded generator (class-student.ts); some make one scripted mistake. The class holds
// the start election, then the coordinator crashes and the detector (the tab's toggle, left on)
// tells them. Reports how long each took, clicks and marks per student, messages against the
// documents' worst case (shared/analysis/formulas.ts) and who lagged the class past 2 x UB.
import {
  DEFAULT_TIMING,
  roundTripBound,
  type AlgorithmName,
  type DetectorMode,
  type Message,
  type ProcessId,
  type Timing,
} from '../algorithms/algorithm.ts';
import { getAlgorithm } from '../algorithms/registry.ts';
import { expectedMessages } from '../analysis/formulas.ts';
import { DEFAULT_FABRIC } from '../protocol/lab-config.ts';
import { TimeQueue } from '../sim/event-queue.ts';
import { LOST, Network, networkRandom, PARTITIONED } from '../sim/network.ts';
import type { HostIO } from '../sim/process-host.ts';
import { createRng, deriveSeed } from '../sim/rng.ts';
import { Student, MISTAKES, type Mistake, type StudentResult } from './class-student.ts';

export interface ClassSpec {
  algorithm: AlgorithmName;
  students: number;
  /** A student's think time before each click, uniform in [min, max] seconds (not scaled: people). */
  think: readonly [number, number];
  /** How many students make one scripted mistake each. */
  mistakes: number;
  /** The lab's time scale: every delay and timeout stretches alike (docs/RUN_A_CLASS.md). */
  scale: number;
  seed: number;
  detector?: DetectorMode;
}

export interface PhaseResult {
  /** Virtual ms from the phase's start (the class's start, the crash) until every live student agreed; null: not within the limit. */
  agreedAfter: number | null;
  coordinator: ProcessId | null;
  messages: Record<string, number>;
  /**
   * The documents' worst case (the formulas' maximum) per type they count: after the crash for N;
   * for the start, where every live process holds an election, for N + 1 (N live and one gone).
   */
  worstCase: Record<string, number>;
  /** Students who agreed more than 2 x UB after most of the class, or never. */
  stuck: ProcessId[];
}

export interface ClassResult {
  spec: ClassSpec;
  ub: number;
  coordinatorWait: number | null;
  start: PhaseResult;
  crash: PhaseResult | null;
  students: StudentResult[];
  /** Virtual ms the run covered. */
  endTime: number;
}

/**
 * A phase ends unagreed after this many UB (plus the detector's timeout after a crash), or after
 * the hand-played elections it may hold, whichever is longer (`phaseLimit`).
 */
const PHASE_LIMIT_UB = 40;
/** How long the class stays agreed before the crash, and runs on after agreeing, in UB. */
const SETTLE_UB = 2;
const MAX_ENTRIES = 2_000_000;

type Entry = { at: number } & (
  | { kind: 'timer'; handle: number }
  | { kind: 'deliver'; from: ProcessId; to: ProcessId; message: Message }
  | { kind: 'look'; id: ProcessId }
);

/** The lab's timing at `scale` (as the relay scales it for every process: server/lab/lab-settings.ts). */
function scaledTiming(scale: number, t: Timing = DEFAULT_TIMING): Timing {
  return {
    transmission: t.transmission * scale,
    processing: t.processing * scale,
    heartbeatInterval: t.heartbeatInterval * scale,
    heartbeatTimeout: t.heartbeatTimeout * scale,
  };
}

export function runClass(spec: ClassSpec): ClassResult {
  const run = new ClassRun(spec);
  const { timing, ub } = run;
  const limit = phaseLimit(spec, timing);
  const start = run.phase(0, limit, spec.students + 1);
  let crash: PhaseResult | null = null;
  if (start.coordinator !== null) {
    const crashAt = run.now;
    run.students.get(start.coordinator)!.crash();
    crash = run.phase(crashAt, limit + timing.heartbeatTimeout, spec.students);
  }
  return {
    spec,
    ub,
    coordinatorWait:
      spec.algorithm === 'bully' ? 2 * ub + timing.transmission + timing.processing : null,
    start,
    crash,
    students: [...run.students.values()].map((s) => s.result()),
    endTime: run.now,
  };
}

/** The class in virtual time: its students, the network between them, the queue of what is due. */
class ClassRun {
  readonly timing: Timing;
  readonly ub: number;
  readonly students = new Map<ProcessId, Student>();
  now = 0;
  private readonly network: Network;
  private readonly queue = new TimeQueue<Entry>();
  private readonly timers = new Map<number, () => void>();
  private handles = 0;
  /** Messages sent in the current phase, by type. */
  private counts: Record<string, number> = {};

  constructor(private readonly spec: ClassSpec) {
    const n = spec.students;
    const ids = Array.from({ length: n }, (_, i) => i);
    this.timing = scaledTiming(spec.scale);
    this.ub = roundTripBound(this.timing);
    this.network = new Network(
      { ...DEFAULT_FABRIC, timeScale: spec.scale },
      networkRandom(spec.seed),
    );
    const algorithm = getAlgorithm(spec.algorithm);
    const mistakes = pickMistakes(ids, Math.min(spec.mistakes, n), spec.seed);
    for (const id of ids) {
      const think = createRng(deriveSeed(spec.seed, id));
      this.students.set(
        id,
        new Student(id, mistakes.get(id) ?? null, {
          algorithm,
          seed: spec.seed,
          think: () => 1000 * (spec.think[0] + think() * (spec.think[1] - spec.think[0])),
          now: () => this.now,
          look: (at) => this.queue.push({ at, kind: 'look', id }),
          io: this.io(id),
        }),
      );
    }
    const detector = spec.detector ?? 'heartbeat';
    const config = { ids, ring: ids, timing: this.timing, detector, options: undefined };
    for (const s of this.students.values()) s.start({ ...config, self: s.id });
  }

  /** A student's host: sends go through the lab's network model, timers onto the queue. */
  private io(id: ProcessId): HostIO {
    return {
      send: (to, message) => {
        this.counts[message.type] = (this.counts[message.type] ?? 0) + 1;
        const at = this.network.decideAt(id, to, this.now);
        if (at !== LOST && at !== PARTITIONED)
          this.queue.push({ at, kind: 'deliver', from: id, to, message });
      },
      report: () => {},
      setTimer: (fn, ms) => {
        this.timers.set(++this.handles, fn);
        this.queue.push({ at: this.now + ms, kind: 'timer', handle: this.handles });
        return this.handles;
      },
      clearTimer: (h) => void this.timers.delete(h as number),
      now: () => this.now,
      random: createRng(deriveSeed(this.spec.seed, this.spec.students + id)),
    };
  }

  /** One phase from `start`: its messages against the documents' worst case for `formulaN`. */
  phase(start: number, limit: number, formulaN: number): PhaseResult {
    this.counts = {};
    const { agreed, coordinator } = this.runPhase(start, limit);
    const worst = expectedMessages(this.spec.algorithm, formulaN, 'worst', this.timing).messages;
    const students = [...this.students.values()];
    return {
      agreedAfter: agreed === null ? null : agreed - start,
      coordinator: agreed === null ? null : coordinator,
      messages: this.counts,
      worstCase: Object.fromEntries(Object.entries(worst).map(([t, r]) => [t, r.max])),
      stuck: laggards(students, agreed === null ? null : coordinator, start, 2 * this.ub),
    };
  }

  /** Runs until the class agrees (then `settle` more) or `limit`; returns when it agreed. */
  private runPhase(
    start: number,
    limit: number,
  ): { agreed: number | null; coordinator: ProcessId | null } {
    let agreed: number | null = null;
    let coordinator: ProcessId | null = null;
    for (let guard = 0; guard < MAX_ENTRIES; guard++) {
      const next = this.queue.peek();
      const stopAt = agreed === null ? start + limit : agreed + SETTLE_UB * this.ub;
      if (!next || next.at > stopAt) {
        this.now = stopAt;
        break;
      }
      this.queue.pop();
      this.now = next.at;
      if (next.kind === 'timer') {
        this.timers.get(next.handle)?.();
        this.timers.delete(next.handle);
      } else if (next.kind === 'deliver')
        this.students.get(next.to)!.deliver(next.from, next.message);
      else this.students.get(next.id)!.look();
      const c = agreement([...this.students.values()], this.spec.algorithm);
      if (c === null) agreed = null;
      else if (agreed === null || c !== coordinator) [agreed, coordinator] = [this.now, c];
    }
    return { agreed, coordinator };
  }
}

/**
 * How long a phase may take before it counts as not agreed. A ring election by hand passes 2N
 * hops (002's ELECTION, then its COORDINATOR; 001's Elects and Elected alike), each a click after
 * a think time: 2 x 40 x (5.5 s + a hop) is 16 UB at scale 100. The start and every election a
 * mistake adds (an Elect nobody asked for, a late click) may each take that long in turn: a class
 * of 40 with two such mistakes agreed after 45 UB, past a flat limit of 40 UB.
 */
function phaseLimit(spec: ClassSpec, timing: Timing): number {
  const hop = spec.think[1] * 1000 + timing.transmission + timing.processing;
  const elections = 1 + spec.mistakes;
  return Math.max(PHASE_LIMIT_UB * roundTripBound(timing), elections * 2 * spec.students * hop);
}

/** The coordinator every live student believes, none electing, itself live; else null. */
function agreement(students: readonly Student[], algorithm: AlgorithmName): ProcessId | null {
  let c: ProcessId | null = null;
  let top = -1;
  for (const s of students) {
    if (!s.up) continue;
    top = Math.max(top, s.id);
    const r = s.runner.report;
    if (!r || r.electing || r.coordinator === null || (c !== null && r.coordinator !== c))
      return null;
    c = r.coordinator;
  }
  if (c === null || !students.find((s) => s.id === c)?.up) return null;
  // The highest-id algorithms elect the highest live id (000, 002, 003); Raft and the emergent one any.
  if (
    (algorithm === 'bully' || algorithm === 'ring' || algorithm === 'ring-active-list') &&
    c !== top
  )
    return null;
  return c;
}

/** Live students who settled on `coordinator` more than `slack` after the median student, or not at all. */
function laggards(
  students: readonly Student[],
  coordinator: ProcessId | null,
  start: number,
  slack: number,
): ProcessId[] {
  const live = students.filter((s) => s.up);
  const settled = live
    .filter((s) => coordinator !== null && s.runner.report?.coordinator === coordinator)
    .map((s) => Math.max(start, s.settledAt));
  const sorted = [...settled].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? start;
  return live
    .filter(
      (s) =>
        coordinator === null ||
        s.runner.report?.coordinator !== coordinator ||
        Math.max(start, s.settledAt) - median > slack,
    )
    .map((s) => s.id);
}

/** Which students make which mistake: `count` of them, spread by the seed. */
function pickMistakes(
  ids: readonly ProcessId[],
  count: number,
  seed: number,
): Map<ProcessId, Mistake> {
  const random = createRng(deriveSeed(seed, -2));
  const pool = [...ids];
  const out = new Map<ProcessId, Mistake>();
  for (let i = 0; i < count; i++) {
    const id = pool.splice(Math.floor(random() * pool.length), 1)[0]!;
    out.set(id, MISTAKES[Math.floor(random() * MISTAKES.length)]!);
  }
  return out;
}
