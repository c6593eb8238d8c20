// The explorer's stepping engine: the same Algorithm contract as the simulator, but instead of
// running one schedule it exposes every choice. A world holds each process's state and the
// pending events (messages in flight, timers, detections), each with a time window; any event
// whose window opens before the earliest deadline may fire next, and faults (crash, drop,
// partition, slow link) may strike between events. Worlds are immutable values, so the search
// can branch freely.
//
// Timing model: links are FIFO; a message takes at most T (the lab's transmission bound) unless its link has been
// made slow, in which case it may arrive at any later time; a timer fires exactly when due. An
// event fires either as early as it can or as late as it may, which covers the extreme orders
// of what follows it.
import type { Algorithm, AlgorithmConfig, DetectorMode, Effect, Message, ProcessId, Report, StepContext, Timing } from '../algorithms/algorithm.ts';
import type { DistributiveOmit } from './event-queue.ts';
import { createRng, deriveSeed } from './rng.ts';
import type { DropReason, TraceEvent } from '../protocol/trace.ts';

export interface ExploreSetup {
  algorithm: Algorithm<any, any>;
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
}

export interface FaultBudget {
  crash: number;
  drop: number;
  partition: number;
  slow: number;
}

export type Pending =
  | { id: number; kind: 'deliver'; earliest: number; latest: number; from: ProcessId; to: ProcessId; message: Message }
  | { id: number; kind: 'timer'; earliest: number; latest: number; node: ProcessId; name: string }
  /** `watch`: a follower's detector noticing its coordinator is down (withdrawn if it learns of a live one first). */
  | { id: number; kind: 'elect'; earliest: number; latest: number; node: ProcessId; watch: boolean };

export interface World {
  now: number;
  /** Algorithm state per process; null while down. */
  states: ReadonlyMap<ProcessId, unknown>;
  reports: ReadonlyMap<ProcessId, Report | null>;
  pending: readonly Pending[];
  /** Calls each process has made to ctx.random (its generator's position). */
  draws: ReadonlyMap<ProcessId, number>;
  used: FaultBudget;
  groups: ProcessId[][] | null;
  slow: readonly [ProcessId, ProcessId] | null;
  nextId: number;
  /** No action taken yet: the slow link, if any, is chosen here. */
  fresh: boolean;
}

export type Action =
  | { kind: 'fire'; id: number; at: 'early' | 'late' }
  | { kind: 'crash'; node: ProcessId }
  /** A message is lost where it would have arrived (when it is lost makes no difference). */
  | { kind: 'drop'; id: number }
  | { kind: 'partition'; groups: ProcessId[][] }
  | { kind: 'heal' }
  | { kind: 'slow'; from: ProcessId; to: ProcessId };

/** Receives the trace of a step when asked for (only while rebuilding the schedule found). */
export type Recorder = (e: DistributiveOmit<TraceEvent, 'seq'>) => void;

export function live(w: World): ProcessId[] {
  return [...w.states.keys()].filter((id) => w.states.get(id) !== null).sort((a, b) => a - b);
}

export function initialWorld(setup: ExploreSetup, rec?: Recorder): World {
  const w: Mutable = {
    now: 0,
    states: new Map(),
    reports: new Map(),
    pending: [],
    draws: new Map(setup.ids.map((id) => [id, 0])),
    used: { crash: 0, drop: 0, partition: 0, slow: 0 },
    groups: null,
    slow: null,
    nextId: 1,
    fresh: true,
  };
  for (const id of setup.ids) {
    w.states.set(id, null);
    w.reports.set(id, null);
  }
  for (const id of setup.ids) {
    if (setup.crashed.includes(id)) {
      rec?.({ t: 0, kind: 'crash', node: id });
      continue;
    }
    const config: AlgorithmConfig = { self: id, ids: setup.ids, ring: setup.ids, timing: setup.timing, detector: setup.detector, options: setup.options, initialCoordinator: setup.initialCoordinator };
    const out = setup.algorithm.init(config, ctx(setup, w, id));
    w.states.set(id, out.state);
    apply(setup, w, id, out.effects, rec);
  }
  for (const node of setup.initiators) {
    if (setup.crashed.includes(node)) continue;
    w.pending = [...w.pending, { id: w.nextId++, kind: 'elect', earliest: 0, latest: setup.detectWindow, node, watch: false }];
  }
  detect(setup, w);
  return w;
}

type Mutable = { -readonly [K in keyof World]: World[K] } & { states: Map<ProcessId, unknown>; reports: Map<ProcessId, Report | null>; draws: Map<ProcessId, number> };

function clone(w: World): Mutable {
  return { ...w, states: new Map(w.states), reports: new Map(w.reports), draws: new Map(w.draws), used: { ...w.used } };
}

/** Per-process randomness that depends only on how many draws it made: the same world, the same numbers. */
function ctx(setup: ExploreSetup, w: Mutable, id: ProcessId): StepContext {
  return {
    now: w.now,
    random: () => {
      const n = w.draws.get(id) ?? 0;
      w.draws.set(id, n + 1);
      return createRng(deriveSeed(deriveSeed(setup.seed, id), n))();
    },
  };
}

/** The earliest deadline among pending events: nothing may happen after it before it fires. */
export function deadline(w: World): number {
  let d = Infinity;
  for (const p of w.pending) if (p.latest < d) d = p.latest;
  return d;
}

export function enabled(setup: ExploreSetup, w: World): Action[] {
  const out: Action[] = [];
  const up = live(w);
  // A link slow from the start allows everything a link that turns slow later does (slowness
  // only lifts the upper bound), so the slow link is chosen once, first.
  if (w.fresh && setup.budget.slow > 0) {
    for (const from of up) for (const to of up) if (from !== to) out.push({ kind: 'slow', from, to });
    return out;
  }
  const d = deadline(w);
  const lossy = w.used.drop < setup.budget.drop;
  for (const p of w.pending) {
    if (p.earliest > d) continue;
    // Links are FIFO (as in the simulator and the relay by default): only a link's oldest message may arrive.
    if (p.kind === 'deliver' && !oldestOnLink(w, p)) continue;
    out.push({ kind: 'fire', id: p.id, at: 'early' });
    // Firing as late as allowed is a different world only when that is later and finite.
    if (setup.extremes && Number.isFinite(d) && d > Math.max(w.now, p.earliest)) out.push({ kind: 'fire', id: p.id, at: 'late' });
    if (lossy && p.kind === 'deliver') out.push({ kind: 'drop', id: p.id });
  }
  if (w.used.crash < setup.budget.crash) for (const node of up) out.push({ kind: 'crash', node });
  if (w.groups) out.push({ kind: 'heal' });
  else if (w.used.partition < setup.budget.partition) for (const g of splits(up)) out.push({ kind: 'partition', groups: g });
  return out;
}

export function oldestOnLink(w: World, p: Extract<Pending, { kind: 'deliver' }>): boolean {
  return !w.pending.some((q) => q.kind === 'deliver' && q.from === p.from && q.to === p.to && q.id < p.id);
}

/** Every way to cut the live processes into two non-empty groups (each cut once). */
function splits(ids: readonly ProcessId[]): ProcessId[][][] {
  const out: ProcessId[][][] = [];
  const n = ids.length;
  for (let mask = 1; mask < 1 << (n - 1); mask++) {
    const a = ids.filter((_, i) => i < n - 1 && mask & (1 << i));
    out.push([a, ids.filter((id) => !a.includes(id))]);
  }
  return out;
}

export function step(setup: ExploreSetup, w0: World, action: Action, rec?: Recorder): World {
  const w = clone(w0);
  w.fresh = false;
  switch (action.kind) {
    case 'fire': {
      const p = w.pending.find((x) => x.id === action.id)!;
      w.pending = w.pending.filter((x) => x !== p);
      w.now = action.at === 'late' ? deadline(w0) : Math.max(w.now, p.earliest);
      const node = p.kind === 'deliver' ? p.to : p.node;
      const state = w.states.get(node);
      if (state === null) {
        if (p.kind === 'deliver') rec?.({ t: w.now, kind: 'drop', msg: p.id, from: p.from, to: p.to, type: p.message.type, reason: 'receiver-crashed' });
        return w;
      }
      // As in the relay: a message still in flight when a cut separates its ends is dropped when due.
      if (p.kind === 'deliver' && w.groups && groupOf(w.groups, p.from) !== groupOf(w.groups, p.to)) {
        rec?.({ t: w.now, kind: 'drop', msg: p.id, from: p.from, to: p.to, type: p.message.type, reason: 'partition' });
        return w;
      }
      if (p.kind === 'deliver') rec?.({ t: w.now, kind: 'deliver', msg: p.id, from: p.from, to: p.to, type: p.message.type });
      else if (p.kind === 'timer') rec?.({ t: w.now, kind: 'timer', node, name: p.name });
      else rec?.({ t: w.now, kind: 'elect', node });
      const event = p.kind === 'deliver' ? { kind: 'message' as const, from: p.from, message: p.message } : p.kind === 'timer' ? { kind: 'timer' as const, name: p.name } : { kind: 'elect' as const };
      const out = setup.algorithm.step(state, event, ctx(setup, w, node));
      w.states.set(node, out.state);
      apply(setup, w, node, out.effects, rec);
      detect(setup, w);
      return w;
    }
    case 'crash': {
      w.used.crash++;
      w.states.set(action.node, null);
      w.reports.set(action.node, null);
      rec?.({ t: w.now, kind: 'crash', node: action.node });
      // Its timers die with it; messages to it would only be dropped on arrival.
      for (const p of w.pending) {
        if (p.kind === 'deliver' && p.to === action.node) rec?.({ t: w.now, kind: 'drop', msg: p.id, from: p.from, to: p.to, type: p.message.type, reason: 'receiver-crashed' });
      }
      w.pending = w.pending.filter((p) => (p.kind === 'deliver' ? p.to !== action.node : p.node !== action.node));
      detect(setup, w);
      return w;
    }
    case 'drop': {
      const p = w.pending.find((x) => x.id === action.id);
      w.used.drop++;
      if (p) w.now = Math.max(w.now, p.earliest);
      w.pending = w.pending.filter((x) => x.id !== action.id);
      if (p?.kind === 'deliver') rec?.({ t: w.now, kind: 'drop', msg: p.id, from: p.from, to: p.to, type: p.message.type, reason: 'manual' });
      return w;
    }
    case 'partition':
      w.used.partition++;
      w.groups = action.groups;
      rec?.({ t: w.now, kind: 'partition', groups: action.groups });
      return w;
    case 'heal':
      w.groups = null;
      rec?.({ t: w.now, kind: 'partition', groups: null });
      return w;
    case 'slow': {
      w.used.slow++;
      w.slow = [action.from, action.to];
      // Messages already on the link may now be late too.
      w.pending = w.pending.map((p) => (p.kind === 'deliver' && p.from === action.from && p.to === action.to ? { ...p, latest: Infinity } : p));
      rec?.({ t: w.now, kind: 'note', text: `link ${action.from}->${action.to} is slow from now on: its messages may arrive after any timeout` });
      return w;
    }
  }
}

/**
 * Every process runs a failure detector on its coordinator: one that follows a process that is
 * down starts an election `heartbeatTimeout` later (within the detection window), unless it
 * learns of a live coordinator first. The scenario's initiators detect the first crash sooner
 * (their `elect` at 0..detectWindow). Without this, a process cut off from the election, or one
 * that followed a winner that crashed, would simply never move.
 */
function detect(setup: ExploreSetup, w: Mutable): void {
  for (const id of live(w)) {
    const c = w.reports.get(id)?.coordinator;
    const dead = c !== undefined && c !== null && w.states.get(c) === null;
    const mine = w.pending.filter((p) => p.kind === 'elect' && p.node === id);
    if (!dead) {
      if (mine.some((p) => p.kind === 'elect' && p.watch)) w.pending = w.pending.filter((p) => !(p.kind === 'elect' && p.node === id && p.watch));
      continue;
    }
    if (mine.length > 0) continue;
    const at = w.now + setup.timing.heartbeatTimeout;
    w.pending = [...w.pending, { id: w.nextId++, kind: 'elect', earliest: at, latest: at + setup.detectWindow, node: id, watch: true }];
  }
}

function apply(setup: ExploreSetup, w: Mutable, node: ProcessId, effects: readonly Effect[], rec?: Recorder): void {
  for (const e of effects) {
    switch (e.kind) {
      case 'send': {
        const id = w.nextId++;
        const type = e.message.type;
        rec?.({ t: w.now, kind: 'send', msg: id, from: node, to: e.to, type, message: e.message });
        const drop = (reason: DropReason) => rec?.({ t: w.now, kind: 'drop', msg: id, from: node, to: e.to, type, reason });
        if (!w.states.has(e.to)) drop('unknown-destination');
        else if (w.states.get(e.to) === null) drop('receiver-crashed');
        else if (w.groups && groupOf(w.groups, node) !== groupOf(w.groups, e.to)) drop('partition');
        else {
          const slow = w.slow !== null && w.slow[0] === node && w.slow[1] === e.to;
          w.pending = [...w.pending, { id, kind: 'deliver', earliest: w.now, latest: slow ? Infinity : w.now + setup.timing.transmission, from: node, to: e.to, message: e.message }];
        }
        break;
      }
      case 'set-timer': {
        const kept = w.pending.filter((p) => !(p.kind === 'timer' && p.node === node && p.name === e.name));
        w.pending = [...kept, { id: w.nextId++, kind: 'timer', earliest: w.now + e.after, latest: w.now + e.after, node, name: e.name }];
        break;
      }
      case 'cancel-timer':
        w.pending = w.pending.filter((p) => !(p.kind === 'timer' && p.node === node && p.name === e.name));
        break;
      case 'report':
        w.reports.set(node, e.report);
        rec?.({ t: w.now, kind: 'report', node, report: e.report });
        break;
    }
  }
}

function groupOf(groups: ProcessId[][], id: ProcessId): number {
  return groups.findIndex((g) => g.includes(id));
}
