// The explorer's stepping engine: the same Algorithm contract as the simulator, but instead of
// running one schedule it exposes every choice. A world holds each process's state and the
// pending events (messages in flight, timers, detections), each with a time window; any event
// whose window opens before the earliest deadline may fire next, and faults (crash, drop,
// partition, slow link) may strike between events. Worlds are immutable values, so the search
// can branch freely.
//
// The network is the shared model's (shared/sim/network.ts): the partition rule is its
// `groupOf`, and a message's window is the model's arrival window for a link of delay 0 and
// jitter T (the lab's transmission bound), its jitter turned into a choice. A slow link's
// messages may arrive at any later time; links are FIFO; a timer fires exactly when due. An
// event fires either as early as it can or as late as it may, which covers the extreme orders
// of what follows it. Effects are carried out by the shared executor (shared/sim/executor.ts).
import type { Algorithm, AlgorithmConfig, AlgorithmEvent, DetectorMode, Effect, Message, ProcessId, Report, StepContext, Timing } from '../algorithms/algorithm.ts';
import { DEFAULT_LINK, type LinkRules } from '../protocol/lab-config.ts';
import type { DistributiveOmit } from './event-queue.ts';
import { execute, type EffectHandlers } from './executor.ts';
import { arrivalWindow, groupOf } from './network.ts';
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

/** `sig`: a fingerprint of what the event is (not of its id or times), fixed when it is created. */
export type Pending =
  | { id: number; sig: number; kind: 'deliver'; earliest: number; latest: number; from: ProcessId; to: ProcessId; message: Message }
  | { id: number; sig: number; kind: 'timer'; earliest: number; latest: number; node: ProcessId; name: string }
  /** `watch`: a follower's detector noticing its coordinator is down (withdrawn if it learns of a live one first). */
  | { id: number; sig: number; kind: 'elect'; earliest: number; latest: number; node: ProcessId; watch: boolean };

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

/** What the engine derives once per setup: the id order, the link rule and the cuts to try. */
interface Derived {
  index: Map<ProcessId, number>;
  /** Indices into `setup.ids`, ascending by id. */
  sorted: number[];
  link: LinkRules;
  /** Steps already taken, by (state, event, time, draws): see `Step.run`. */
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
const MEMO_MAX = 1 << 18;

const derivedOf = new WeakMap<ExploreSetup, Derived>();

function derived(setup: ExploreSetup): Derived {
  let d = derivedOf.get(setup);
  if (!d) {
    const sorted = setup.ids.map((_, i) => i).sort((a, b) => setup.ids[a]! - setup.ids[b]!);
    d = {
      index: new Map(setup.ids.map((id, i) => [id, i])),
      sorted,
      // Within the bound: the model's window for a link whose whole delay is jitter up to T.
      link: { ...DEFAULT_LINK, delay: 0, jitter: setup.timing.transmission },
      memo: new Map(),
    };
    derivedOf.set(setup, d);
  }
  return d;
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

const DOWN: Proc = { state: null, report: null, draws: 0, hash: 0 };

export function initialWorld(setup: ExploreSetup, rec?: Recorder): World {
  const w = new Step(setup, {
    now: 0,
    procs: setup.ids.map(() => DOWN),
    pending: [],
    used: { crash: 0, drop: 0, partition: 0, slow: 0 },
    groups: null,
    slow: null,
    nextId: 1,
    fresh: true,
  }, rec);
  for (const id of setup.ids) {
    if (setup.crashed.includes(id)) {
      rec?.({ t: 0, kind: 'crash', node: id });
      continue;
    }
    const config: AlgorithmConfig = { self: id, ids: setup.ids, ring: setup.ids, timing: setup.timing, detector: setup.detector, options: setup.options, initialCoordinator: setup.initialCoordinator };
    w.run(id, config, null);
  }
  for (const node of setup.initiators) {
    if (setup.crashed.includes(node)) continue;
    w.pending.push({ id: w.nextId++, sig: sigOfElect(node, false), kind: 'elect', earliest: 0, latest: setup.detectWindow, node, watch: false });
  }
  w.detect();
  return w.done();
}

/** The earliest deadline among pending events: nothing may happen after it before it fires. */
export function deadline(w: World): number {
  let d = Infinity;
  for (const p of w.pending) if (p.latest < d) d = p.latest;
  return d;
}

export function enabled(setup: ExploreSetup, w: World): Action[] {
  const out: Action[] = [];
  const up = live(setup, w);
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
    // Links are FIFO (as in the network model without reordering): only a link's oldest message may arrive.
    if (p.kind === 'deliver' && !oldestOnLink(w, p)) continue;
    out.push({ kind: 'fire', id: p.id, at: 'early' });
    // Firing as late as allowed is a different world only when that is later and finite.
    if (setup.extremes && d !== Infinity && d > Math.max(w.now, p.earliest)) out.push({ kind: 'fire', id: p.id, at: 'late' });
    if (lossy && p.kind === 'deliver') out.push({ kind: 'drop', id: p.id });
  }
  if (w.used.crash < setup.budget.crash) for (const node of up) out.push({ kind: 'crash', node });
  if (w.groups) out.push({ kind: 'heal' });
  else if (w.used.partition < setup.budget.partition) for (const g of splits(up)) out.push({ kind: 'partition', groups: g });
  return out;
}

export function oldestOnLink(w: World, p: Extract<Pending, { kind: 'deliver' }>): boolean {
  for (const q of w.pending) if (q.kind === 'deliver' && q.id < p.id && q.from === p.from && q.to === p.to) return false;
  return true;
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

/** True when the partition (if any) separates the two ends of a link. */
function cut(groups: ProcessId[][] | null, from: ProcessId, to: ProcessId): boolean {
  return groups !== null && groupOf(groups, from) !== groupOf(groups, to);
}

export function step(setup: ExploreSetup, w0: World, action: Action, rec?: Recorder): World {
  const w = new Step(setup, w0, rec);
  w.fresh = false;
  switch (action.kind) {
    case 'fire': {
      const p = w.take(action.id)!;
      w.now = action.at === 'late' ? deadline(w0) : Math.max(w.now, p.earliest);
      const node = p.kind === 'deliver' ? p.to : p.node;
      if (w.proc(node).state === null) {
        if (p.kind === 'deliver') w.dropped(p, 'receiver-crashed');
        return w.done();
      }
      // As in the network model: a message still in flight when a cut separates its ends is dropped when due.
      if (p.kind === 'deliver' && cut(w.groups, p.from, p.to)) {
        w.dropped(p, 'partition');
        return w.done();
      }
      if (p.kind === 'deliver') rec?.({ t: w.now, kind: 'deliver', msg: p.id, from: p.from, to: p.to, type: p.message.type });
      else if (p.kind === 'timer') rec?.({ t: w.now, kind: 'timer', node, name: p.name });
      else rec?.({ t: w.now, kind: 'elect', node });
      w.run(node, null, p);
      // Only this process's report and pending detections changed: the others are as detect() left them.
      w.detect(node);
      return w.done();
    }
    case 'crash': {
      w.used = { ...w.used, crash: w.used.crash + 1 };
      w.setProc(action.node, { ...DOWN, draws: w.proc(action.node).draws });
      rec?.({ t: w.now, kind: 'crash', node: action.node });
      // Its timers die with it; messages to it would only be dropped on arrival.
      for (const p of w.pending) if (p.kind === 'deliver' && p.to === action.node) w.dropped(p, 'receiver-crashed');
      w.pending = w.pending.filter((p) => (p.kind === 'deliver' ? p.to !== action.node : p.node !== action.node));
      w.detect();
      return w.done();
    }
    case 'drop': {
      w.used = { ...w.used, drop: w.used.drop + 1 };
      const p = w.take(action.id);
      if (p) w.now = Math.max(w.now, p.earliest);
      if (p?.kind === 'deliver') w.dropped(p, 'manual');
      return w.done();
    }
    case 'partition':
      w.used = { ...w.used, partition: w.used.partition + 1 };
      w.groups = action.groups;
      rec?.({ t: w.now, kind: 'partition', groups: action.groups });
      return w.done();
    case 'heal':
      w.groups = null;
      rec?.({ t: w.now, kind: 'partition', groups: null });
      return w.done();
    case 'slow': {
      w.used = { ...w.used, slow: w.used.slow + 1 };
      w.slow = [action.from, action.to];
      // Messages already on the link may now be late too.
      w.pending = w.pending.map((p) => (p.kind === 'deliver' && p.from === action.from && p.to === action.to ? { ...p, latest: Infinity } : p));
      rec?.({ t: w.now, kind: 'note', text: `link ${action.from}->${action.to} is slow from now on: its messages may arrive after any timeout` });
      return w.done();
    }
  }
}

/**
 * A world being made from another: the fields to change are copied on first write, and the
 * effects of the process being stepped are carried out here (the explorer's effect handlers).
 */
class Step {
  now: number;
  procs: Proc[] | readonly Proc[];
  pending: Pending[];
  used: FaultBudget;
  groups: ProcessId[][] | null;
  slow: readonly [ProcessId, ProcessId] | null;
  nextId: number;
  fresh: boolean;
  private ownProcs = false;
  /** The process being stepped, its draws so far, and the report it made. */
  private node: ProcessId = -1;
  private draws = 0;
  private report: Report | null = null;
  private readonly d: Derived;

  constructor(
    readonly setup: ExploreSetup,
    w: World,
    readonly rec: Recorder | undefined,
  ) {
    this.now = w.now;
    this.procs = w.procs;
    this.pending = w.pending.slice();
    this.used = w.used;
    this.groups = w.groups;
    this.slow = w.slow;
    this.nextId = w.nextId;
    this.fresh = w.fresh;
    this.d = derived(setup);
  }

  proc(id: ProcessId): Proc {
    return this.procs[this.d.index.get(id)!]!;
  }

  has(id: ProcessId): boolean {
    return this.d.index.has(id);
  }

  setProc(id: ProcessId, p: Proc): void {
    if (!this.ownProcs) {
      this.procs = this.procs.slice();
      this.ownProcs = true;
    }
    (this.procs as Proc[])[this.d.index.get(id)!] = p;
  }

  /** Removes and returns the pending event `id`. */
  take(id: number): Pending | undefined {
    const i = this.pending.findIndex((x) => x.id === id);
    if (i < 0) return undefined;
    return this.pending.splice(i, 1)[0];
  }

  dropped(p: Extract<Pending, { kind: 'deliver' }>, reason: DropReason): void {
    this.rec?.({ t: this.now, kind: 'drop', msg: p.id, from: p.from, to: p.to, type: p.message.type, reason });
  }

  /**
   * Runs `init` (no event: `config` given) or `step` for `node` on pending event `p`, then the
   * effects. Steps are remembered: the algorithm is a pure function of its state, the event, the
   * time and its random draws, and the same process state meets the same event at the same time
   * in many worlds (every order of what other processes do), so the result is looked up by
   * (state fingerprint, event fingerprint, time, draws). Equal states then also share one object.
   */
  run(node: ProcessId, config: AlgorithmConfig | null, p: Pending | null): void {
    const before = this.proc(node);
    this.node = node;
    this.draws = before.draws;
    this.report = before.report;
    let state: unknown;
    let effects: readonly Effect[];
    let hash: number;
    const memo = this.d.memo;
    const key = p === null ? 0 : memoKey(before.hash, p.sig, this.now, before.draws);
    const hit = p === null ? undefined : memo.get(key);
    if (hit !== undefined && hit.stateHash === before.hash && hit.sig === p!.sig && hit.now === this.now && hit.draws === before.draws) {
      state = hit.state;
      effects = hit.effects;
      hash = hit.hash;
      this.draws = hit.drawsAfter;
    } else {
      const ctx: StepContext = { now: this.now, random: drawFor };
      stepping = this;
      const out = p === null ? this.setup.algorithm.init(config!, ctx) : this.setup.algorithm.step(before.state, eventOf(p), ctx);
      stepping = null;
      state = out.state;
      effects = out.effects;
      hash = out.state === before.state ? before.hash : hashValue(out.state);
      if (p !== null) {
        if (memo.size >= MEMO_MAX) memo.clear();
        memo.set(key, { stateHash: before.hash, sig: p.sig, now: this.now, draws: before.draws, state, effects, hash, drawsAfter: this.draws });
      }
    }
    // The state first (the executor's rule), then the effects, which may change the report.
    const made: { -readonly [K in keyof Proc]: Proc[K] } = { state, report: this.report, draws: this.draws, hash };
    this.setProc(node, made);
    execute(this, effects, EXPLORER_EFFECTS);
    // A report effect changes the new process record (made here, shared with no other world yet).
    made.report = this.report;
  }

  /**
   * Every process runs a failure detector on its coordinator: one that follows a process that is
   * down starts an election `heartbeatTimeout` later (within the detection window), unless it
   * learns of a live coordinator first. The scenario's initiators detect the first crash sooner
   * (their `elect` at 0..detectWindow). Without this, a process cut off from the election, or one
   * that followed a winner that crashed, would simply never move.
   */
  detect(only?: ProcessId): void {
    if (only !== undefined) return this.detectOne(this.d.index.get(only)!);
    for (const i of this.d.sorted) this.detectOne(i);
  }

  private detectOne(i: number): void {
    const { setup } = this;
    const me = this.procs[i]!;
    if (me.state === null) return;
    const id = setup.ids[i]!;
    const c = me.report?.coordinator;
    const dead = c !== undefined && c !== null && this.has(c) && this.proc(c).state === null;
    let mine = 0;
    let watching = false;
    for (const p of this.pending) {
      if (p.kind === 'elect' && p.node === id) {
        mine++;
        if (p.watch) watching = true;
      }
    }
    if (!dead) {
      if (watching) this.pending = this.pending.filter((p) => !(p.kind === 'elect' && p.node === id && p.watch));
      return;
    }
    if (mine > 0) return;
    const at = this.now + setup.timing.heartbeatTimeout;
    this.pending.push({ id: this.nextId++, sig: sigOfElect(id, true), kind: 'elect', earliest: at, latest: at + setup.detectWindow, node: id, watch: true });
  }

  done(): World {
    return { now: this.now, procs: this.procs, pending: this.pending, used: this.used, groups: this.groups, slow: this.slow, nextId: this.nextId, fresh: this.fresh };
  }

  // --- the explorer's effect handlers ---------------------------------------------------------

  sendFrom(to: ProcessId, message: Message): void {
    const node = this.node;
    const id = this.nextId++;
    const type = message.type;
    this.rec?.({ t: this.now, kind: 'send', msg: id, from: node, to, type, message });
    let reason: DropReason | null = null;
    if (!this.has(to)) reason = 'unknown-destination';
    else if (this.proc(to).state === null) reason = 'receiver-crashed';
    else if (cut(this.groups, node, to)) reason = 'partition';
    if (reason !== null) this.rec?.({ t: this.now, kind: 'drop', msg: id, from: node, to, type, reason });
    else {
      const slow = this.slow !== null && this.slow[0] === node && this.slow[1] === to;
      const { earliest, latest } = arrivalWindow(this.d.link, this.now, 1);
      this.pending.push({ id, sig: sigOfMessage(node, to, message), kind: 'deliver', earliest, latest: slow ? Infinity : latest, from: node, to, message });
    }
  }

  setTimerOf(name: string, after: number): void {
    const node = this.node;
    this.cancelTimerOf(name);
    const at = this.now + after;
    this.pending.push({ id: this.nextId++, sig: sigOfTimer(node, name), kind: 'timer', earliest: at, latest: at, node, name });
  }

  cancelTimerOf(name: string): void {
    const node = this.node;
    const i = this.pending.findIndex((p) => p.kind === 'timer' && p.node === node && p.name === name);
    if (i >= 0) this.pending.splice(i, 1);
  }

  /** The stepping process's next random number: it depends only on how many draws the process made (the same world, the same numbers). */
  draw(): number {
    return createRng(deriveSeed(deriveSeed(this.setup.seed, this.node), this.draws++))();
  }

  reportOf(report: Report): void {
    this.report = report;
    this.rec?.({ t: this.now, kind: 'report', node: this.node, report });
  }
}

/** The algorithm event a pending event delivers. */
function eventOf(p: Pending): AlgorithmEvent {
  if (p.kind === 'deliver') return { kind: 'message', from: p.from, message: p.message };
  if (p.kind === 'timer') return { kind: 'timer', name: p.name };
  return { kind: 'elect' };
}

function memoKey(stateHash: number, sig: number, now: number, draws: number): number {
  f64[0] = now;
  let x = Math.imul((stateHash >>> 0) ^ Math.imul(sig >>> 0, 0x85ebca6b), 2654435761);
  let y = Math.imul(Math.floor(stateHash / 4294967296) ^ Math.imul(Math.floor(sig / 4294967296), 0xc2b2ae35), 1597334677);
  x = Math.imul(x ^ u32[0]!, 2246822507) ^ draws;
  y = Math.imul(y ^ u32[1]!, 3266489909);
  return finish(x, y);
}

/** The step in progress, for `ctx.random` (one function for every step: no closure per step). */
let stepping: Step | null = null;

function drawFor(): number {
  return stepping!.draw();
}

const EXPLORER_EFFECTS: EffectHandlers<Step> = {
  send: (w, to, message) => w.sendFrom(to, message),
  setTimer: (w, name, after) => w.setTimerOf(name, after),
  cancelTimer: (w, name) => w.cancelTimerOf(name),
  report: (w, report) => w.reportOf(report),
};

// --- fingerprints ---------------------------------------------------------------------------------

// A structural hash of plain data (what algorithm states and messages are): two 32-bit lanes,
// combined into a 53-bit number. Object keys in insertion order, undefined properties skipped
// (as JSON would), so equal values hash equally without building a string.
let h1 = 0;
let h2 = 0;
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function feed(v: number): void {
  h1 = Math.imul(h1 ^ v, 2654435761);
  h2 = Math.imul(h2 ^ v, 1597334677);
}

/** Strings' fingerprints: states and messages repeat the same few (keys, election ids, types). */
const strings = new Map<string, number>();

function feedString(s: string): void {
  let h = strings.get(s);
  if (h === undefined) {
    let x = 0x811c9dc5 ^ s.length;
    let y = 0x41c6ce57 ^ s.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      x = Math.imul(x ^ c, 2654435761);
      y = Math.imul(y ^ c, 1597334677);
    }
    h = finish(x, y);
    if (strings.size >= 100_000) strings.clear();
    strings.set(s, h);
  }
  feed(3);
  feed(h >>> 0);
  feed(Math.floor(h / 4294967296));
}

function walk(v: unknown): void {
  switch (typeof v) {
    case 'number':
      if ((v | 0) === v) {
        feed(1);
        feed(v);
      } else {
        f64[0] = v;
        feed(2);
        feed(u32[0]!);
        feed(u32[1]!);
      }
      return;
    case 'string':
      return feedString(v);
    case 'boolean':
      return feed(v ? 4 : 5);
    case 'object':
      if (v === null) return feed(7);
      if (Array.isArray(v)) {
        feed(8);
        feed(v.length);
        for (let i = 0; i < v.length; i++) walk(v[i] === undefined ? null : v[i]);
        return;
      }
      feed(9);
      for (const k in v) {
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined || typeof x === 'function') continue;
        feedString(k);
        walk(x);
      }
      return feed(10);
    default:
      return feed(6);
  }
}

/** A 53-bit fingerprint of a plain-data value. */
export function hashValue(v: unknown, seed = 0): number {
  h1 = 0xdeadbeef ^ seed;
  h2 = 0x41c6ce57 ^ seed;
  walk(v);
  return finish(h1, h2);
}

/** Two 32-bit lanes, avalanched into one 53-bit number (cyrb53's finish). */
function finish(a: number, b: number): number {
  a = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
  b = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  return 4294967296 * (2097151 & b) + (a >>> 0);
}

function sigOfMessage(from: ProcessId, to: ProcessId, message: Message): number {
  return hashValue(message, Math.imul(from + 1, 0x9e3779b1) ^ Math.imul(to + 1, 0x85ebca77) ^ 0x64);
}

function sigOfTimer(node: ProcessId, name: string): number {
  return hashValue(name, Math.imul(node + 1, 0x9e3779b1) ^ 0x74);
}

function sigOfElect(node: ProcessId, watch: boolean): number {
  return hashValue(watch ? 1 : 0, Math.imul(node + 1, 0x9e3779b1) ^ 0x65);
}
