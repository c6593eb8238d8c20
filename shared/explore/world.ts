// The explorer's worlds: what a world is (each process's state, the pending events with their
// time windows, the faults used, the partition and the slow link), the actions that lead from
// one world to the next, and what the explorer derives once per setup. Worlds are immutable
// values, so the search can branch freely: engine.ts says which actions a world enables
// and makes the next world, through a draft (draft.ts).
import type {
  DetectorMode,
  Effect,
  Message,
  ProcessId,
  Report,
  Timing,
  AnyAlgorithm,
} from '../algorithms/algorithm.ts';
import { DEFAULT_LINK, type LinkRules } from '../protocol/lab-config.ts';
import type { TraceEvent } from '../protocol/trace.ts';
import type { Property, Reports, Violation } from '../analysis/properties.ts';
import type { DistributiveOmit } from '../sim/event-queue.ts';

export interface ExploreSetup {
  algorithm: AnyAlgorithm;
  ids: readonly ProcessId[];
  timing: Timing;
  detector: DetectorMode;
  /** Everyone starts believing this coordinator (it is usually among `crashed`). */
  initialCoordinator: ProcessId | null;
  /** Down from the start. */
  crashed: readonly ProcessId[];
  /**
   * Processes whose failure detector fires (an `elect` event) within `detectWindow` ms of the
   * start; the others' detectors fire `heartbeatTimeout` later if they still follow a dead process.
   */
  initiators: readonly ProcessId[];
  detectWindow: number;
  /** How many of each fault a schedule may use. */
  budget: FaultBudget;
  seed: number;
  /** Also fire each event as late as it may (not only as early as it can): more orders, more worlds. */
  extremes: boolean;
  options?: Record<string, unknown>;
  /**
   * Worlds that differ only where nothing can ever read the difference are written one way, so
   * the search meets them once (default on; docs/CORE_SPEED.md, "Symmetry"): today the random
   * stream's position of a process that is down with no restart left.
   */
  symmetry?: boolean;
  /**
   * Ms after the last fault (with the network whole) by which the documents' bounds say the
   * election is over: random probes check agreement there (probe.ts). Unset: agreement
   * only at quiescence.
   */
  settle?: number;
  /**
   * Ms two processes may both lead (of one term, where there are terms) before that breaks
   * safety: the checker's overlap bound, for labs where a process comes back and takes over
   * (000: "If a process that was previously down comes back up, it holds an election ... it will
   * win the election and take over"). Unset: never, not even for an instant.
   */
  overlap?: number;
  /**
   * A further property of every world, given the world before it (null: the first): the work
   * schedule's (shared/work/work-explore.ts). It picks what to check from `which`.
   */
  invariant?: (prev: World | null, w: World, which: readonly Property[]) => Violation | null;
}

export interface FaultBudget {
  crash: number;
  /** A down process comes back with its state lost (`init` with no initialCoordinator: the documents' "comes back up"). */
  restart: number;
  drop: number;
  partition: number;
  slow: number;
}

/** `sig`: a fingerprint of what the event is (not of its id or times), fixed when it is created. */
export type Pending =
  | {
      id: number;
      sig: number;
      kind: 'deliver';
      earliest: number;
      latest: number;
      from: ProcessId;
      to: ProcessId;
      message: Message;
    }
  | {
      id: number;
      sig: number;
      kind: 'timer';
      earliest: number;
      latest: number;
      node: ProcessId;
      name: string;
    }
  /** `watch`: a follower's detector noticing its coordinator is down (withdrawn if it learns of a live one first). */
  | {
      id: number;
      sig: number;
      kind: 'elect';
      earliest: number;
      latest: number;
      node: ProcessId;
      watch: boolean;
    };

/** One process in a world: its algorithm state (null while down), report, random draws and the state's fingerprint. */
export interface Proc {
  readonly state: unknown;
  readonly report: Report | null;
  /** Calls it has made to ctx.random (its generator's position). */
  readonly draws: number;
  /** Fingerprint of `state` (0 while down), computed once when the state is made. */
  readonly hash: number;
}

export interface World {
  now: number;
  /** The processes, in the order of `setup.ids`. */
  procs: readonly Proc[];
  pending: readonly Pending[];
  used: FaultBudget;
  groups: ProcessId[][] | null;
  slow: readonly [ProcessId, ProcessId] | null;
  nextId: number;
  /** No action taken yet: the slow link, if any, is chosen here. */
  fresh: boolean;
  /** Since when two processes have both led without a break (null: not now); kept only with `setup.overlap`. */
  twoLeadersSince: number | null;
}

export type Action =
  | { kind: 'fire'; id: number; at: 'early' | 'late' }
  | { kind: 'crash'; node: ProcessId }
  | { kind: 'restart'; node: ProcessId }
  /** A message is lost where it would have arrived (when it is lost makes no difference). */
  | { kind: 'drop'; id: number }
  | { kind: 'partition'; groups: ProcessId[][] }
  | { kind: 'heal' }
  | { kind: 'slow'; from: ProcessId; to: ProcessId };

/** Receives the trace of a step when asked for (only while rebuilding the schedule found). */
export type Recorder = (e: DistributiveOmit<TraceEvent, 'seq'>) => void;

/** What the explorer derives once per setup: the id order, the link rule, the remembered steps. */
export interface Derived {
  index: Map<ProcessId, number>;
  /** `index` as an array by id, for ids that are small non-negative integers (-1: not in the lab). */
  at: Int32Array;
  /** Scratch for `WorldDraft.detect`: per process, 1 if it has a pending detection, 2 if one is watching. */
  elects: Uint8Array;
  /** Which extra detectors `WorldDraft.unsettled` models for this algorithm (see there). */
  unsettled: 'none' | 'raft' | 'higher';
  /** Indices into `setup.ids`, ascending by id. */
  sorted: number[];
  link: LinkRules;
  /** Steps already taken, by (state, event, time, draws): see `WorldDraft.run`. */
  memo: Map<number, Memo>;
}

/** One algorithm step remembered: what it was given and what it returned. */
interface Memo {
  stateHash: number;
  sig: number;
  now: number;
  draws: number;
  state: unknown;
  effects: readonly Effect[];
  hash: number;
  drawsAfter: number;
}

/** Remembered steps at most; the table starts over when full. */
export const MEMO_MAX = 1 << 18;

const derivedOf = new WeakMap<ExploreSetup, Derived>();

export function derived(setup: ExploreSetup): Derived {
  let d = derivedOf.get(setup);
  if (!d) {
    const sorted = setup.ids.map((_, i) => i).sort((a, b) => setup.ids[a]! - setup.ids[b]!);
    const index = new Map(setup.ids.map((id, i) => [id, i]));
    d = {
      index,
      at: idArray(setup.ids),
      elects: new Uint8Array(setup.ids.length),
      unsettled: unsettledKind(setup.algorithm.name),
      sorted,
      // Within the bound: the model's window for a link whose whole delay is jitter up to T.
      link: { ...DEFAULT_LINK, delay: 0, jitter: setup.timing.transmission },
      memo: new Map(),
    };
    derivedOf.set(setup, d);
  }
  return d;
}

/** Ids up to this are looked up in an array (`Derived.at`); larger ones through the map. */
const AT_MAX = 1 << 16;

function idArray(ids: readonly ProcessId[]): Int32Array {
  let top = -1;
  for (const id of ids) if (Number.isInteger(id) && id >= 0 && id < AT_MAX) top = Math.max(top, id);
  const at = new Int32Array(top + 1).fill(-1);
  ids.forEach((id, i) => {
    if (Number.isInteger(id) && id >= 0 && id < AT_MAX) at[id] = i;
  });
  return at;
}

/** The index of process `id` in `setup.ids` (-1: not in the lab). */
export function indexOf(d: Derived, id: ProcessId): number {
  if (id >= 0 && id < d.at.length && (id | 0) === id) return d.at[id]!;
  return d.index.get(id) ?? -1;
}

function unsettledKind(name: string): Derived['unsettled'] {
  if (name === 'raft') return 'raft';
  return name === 'bully' || name === 'ring' || name === 'ring-active-list' ? 'higher' : 'none';
}

/** The process `id` in world `w`, or undefined when `id` is not in the lab. */
export function procOf(setup: ExploreSetup, w: World, id: ProcessId): Proc | undefined {
  const i = derived(setup).index.get(id);
  return i === undefined ? undefined : w.procs[i];
}

/** Live process ids, ascending. */
export function live(setup: ExploreSetup, w: World): ProcessId[] {
  const out: ProcessId[] = [];
  for (const i of derived(setup).sorted) if (w.procs[i]!.state !== null) out.push(setup.ids[i]!);
  return out;
}

/** Every process's report, by id (null while down). */
export function reportsOf(setup: ExploreSetup, w: World): Reports {
  const out: Record<ProcessId, Report | null> = {};
  setup.ids.forEach((id, i) => (out[id] = w.procs[i]!.report));
  return out;
}

export const DOWN: Proc = { state: null, report: null, draws: 0, hash: 0 };

/** With crashes or restarts the detectors also read reports (a lost leader, a higher one): draft.ts's `unsettled`. */
export function hearsReports(setup: ExploreSetup): boolean {
  return setup.budget.crash > 0 || setup.budget.restart > 0;
}

/** The earliest deadline among pending events: nothing may happen after it before it fires. */
export function deadline(w: World): number {
  let d = Infinity;
  for (const p of w.pending) if (p.latest < d) d = p.latest;
  return d;
}
