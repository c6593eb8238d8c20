// A world being made from another (the explorer's one mutable object): the fields to change are
// copied on first write, the stepped process's algorithm runs (or its remembered step is
// reused), and its effects are carried out here through the shared executor
// (shared/sim/executor.ts): sends go through the network model's partition rule and arrival
// window (shared/sim/network.ts), timers are set and cancelled, reports recorded.
import type {
  AlgorithmConfig,
  AlgorithmEvent,
  Effect,
  Message,
  ProcessId,
  Report,
  StepContext,
} from '../algorithms/algorithm.ts';
import type { DropReason } from '../protocol/trace.ts';
import { leads } from '../analysis/properties.ts';
import { execute, type EffectHandlers } from '../sim/executor.ts';
import { hashValue, memoKey, sigOfElect, sigOfMessage, sigOfTimer } from './hash.ts';
import {
  derived,
  DOWN,
  hearsReports,
  indexOf,
  MEMO_MAX,
  type Derived,
  type ExploreSetup,
  type FaultBudget,
  type Pending,
  type Proc,
  type Recorder,
  type World,
} from './world.ts';
import { arrivalWindow, separated } from '../sim/network.ts';
import { createRng, deriveSeed } from '../sim/rng.ts';

/** A world being made from another (see above); `done()` hands it back as a World. */
export class WorldDraft {
  now: number;
  procs: Proc[] | readonly Proc[];
  pending: Pending[];
  used: FaultBudget;
  groups: ProcessId[][] | null;
  slow: readonly [ProcessId, ProcessId] | null;
  nextId: number;
  fresh: boolean;
  twoLeadersSince: number | null;
  private ownProcs = false;
  /** The process being stepped, its draws so far, and the report it made. */
  private node: ProcessId = -1;
  private draws = 0;
  private report: Report | null = null;
  private readonly d: Derived;
  /** With crashes or restarts the detectors also notice a lost leader or a higher one (`unsettled`). */
  readonly hears: boolean;
  /** Equal worlds written one way (`setup.symmetry`, default on): see `downProc`. */
  private readonly canon: boolean;

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
    this.twoLeadersSince = w.twoLeadersSince;
    this.d = derived(setup);
    this.hears = hearsReports(setup);
    this.canon = setup.symmetry !== false;
  }

  proc(id: ProcessId): Proc {
    return this.procs[indexOf(this.d, id)]!;
  }

  has(id: ProcessId): boolean {
    return indexOf(this.d, id) >= 0;
  }

  setProc(id: ProcessId, p: Proc): void {
    if (!this.ownProcs) {
      this.procs = this.procs.slice();
      this.ownProcs = true;
    }
    (this.procs as Proc[])[indexOf(this.d, id)] = p;
  }

  /**
   * A process that is down, with its random stream's position kept for a restart. With
   * `setup.symmetry` on (the default) and no restart left, the position can never be read again,
   * so it is not kept: worlds that differ only there are one world.
   */
  downProc(draws: number): Proc {
    if (draws === 0 || (this.canon && this.used.restart >= this.setup.budget.restart)) return DOWN;
    return { ...DOWN, draws };
  }

  /** The last restart was used: no down process's random stream can be read again (see `downProc`). */
  forgetDownDraws(): void {
    if (!this.canon) return;
    for (let i = 0; i < this.procs.length; i++) {
      const p = this.procs[i]!;
      if (p.state === null && p.draws !== 0) this.setProc(this.setup.ids[i]!, DOWN);
    }
  }

  /** Removes and returns the pending event `id`. */
  take(id: number): Pending | undefined {
    const pending = this.pending;
    for (let i = 0; i < pending.length; i++)
      if (pending[i]!.id === id) return pending.splice(i, 1)[0];
    return undefined;
  }

  dropped(p: Extract<Pending, { kind: 'deliver' }>, reason: DropReason): void {
    this.rec?.({
      t: this.now,
      kind: 'drop',
      msg: p.id,
      from: p.from,
      to: p.to,
      type: p.message.type,
      reason,
    });
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
    if (
      hit !== undefined &&
      hit.stateHash === before.hash &&
      hit.sig === p!.sig &&
      hit.now === this.now &&
      hit.draws === before.draws
    ) {
      state = hit.state;
      effects = hit.effects;
      hash = hit.hash;
      this.draws = hit.drawsAfter;
    } else {
      const ctx: StepContext = { now: this.now, random: drawFor };
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- `drawFor` reads the draft in progress (see `stepping`)
      stepping = this;
      const out =
        p === null
          ? this.setup.algorithm.init(config!, ctx)
          : this.setup.algorithm.step(before.state, eventOf(p), ctx);
      stepping = null;
      state = out.state;
      effects = out.effects;
      hash = out.state === before.state ? before.hash : hashValue(out.state);
      if (p !== null) {
        if (memo.size >= MEMO_MAX) memo.clear();
        memo.set(key, {
          stateHash: before.hash,
          sig: p.sig,
          now: this.now,
          draws: before.draws,
          state,
          effects,
          hash,
          drawsAfter: this.draws,
        });
      }
    }
    // The state first (the executor's rule), then the effects, which may change the report.
    const made: { -readonly [K in keyof Proc]: Proc[K] } = {
      state,
      report: this.report,
      draws: this.draws,
      hash,
    };
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
    // One pass over the pending events for every process's detections (not one per process).
    const elects = this.d.elects;
    elects.fill(0);
    for (const p of this.pending)
      if (p.kind === 'elect') elects[indexOf(this.d, p.node)]! |= p.watch ? 3 : 1;
    if (only !== undefined) {
      const i = indexOf(this.d, only);
      return this.detectOne(i, elects[i]!);
    }
    for (const i of this.d.sorted) this.detectOne(i, elects[i]!);
  }

  /** `elects`: 0 none pending for it, bit 1 one pending, bit 2 one of them watching. */
  private detectOne(i: number, elects: number): void {
    const { setup } = this;
    const me = this.procs[i]!;
    if (me.state === null) return;
    const id = setup.ids[i]!;
    const c = me.report?.coordinator;
    const ci = c === undefined || c === null ? -1 : indexOf(this.d, c);
    const dead =
      (ci >= 0 && this.procs[ci]!.state === null) || (this.hears && this.unsettled(i, me));
    if (!dead) {
      if (elects & 2)
        this.pending = this.pending.filter(
          (p) => !(p.kind === 'elect' && p.node === id && p.watch),
        );
      return;
    }
    if (elects !== 0) return;
    const at = this.now + setup.timing.heartbeatTimeout;
    this.pending.push({
      id: this.nextId++,
      sig: sigOfElect(id, true),
      kind: 'elect',
      earliest: at,
      latest: at + setup.detectWindow,
      node: id,
      watch: true,
    });
  }

  /**
   * With restarts, what the lab's detectors also notice (a process that comes back may be the
   * highest, or may have cut an election short): the host's detector fires for a process that
   * hears a live leader above the one it follows (docs/STUDENT_MODULES.md), and Raft's own
   * election timer for a follower that knows no leader (§5.2: "If a follower receives no
   * communication ... it assumes there is no viable leader"); and every detector for a process
   * following one that no longer leads (its heartbeats stop).
   */
  private unsettled(i: number, me: Proc): boolean {
    const kind = this.d.unsettled;
    if (kind === 'none') return false;
    const id = this.setup.ids[i]!;
    const c = me.report?.coordinator ?? null;
    const ci = c === null || c === id ? -1 : indexOf(this.d, c);
    // Following a live process that no longer leads: its heartbeats stop, the detector times out.
    if (ci >= 0 && this.procs[ci]!.state !== null && !leads(this.procs[ci]!.report)) return true;
    if (kind === 'raft') return c === null && !me.report?.electing;
    for (const j of this.d.sorted) {
      const other = this.setup.ids[j]!;
      if (other === id || other <= (c ?? -1)) continue;
      const p = this.procs[j]!;
      if (p.state !== null && leads(p.report)) return true;
    }
    return false;
  }

  done(): World {
    const { now, procs, pending, used, groups, slow, nextId, fresh, twoLeadersSince } = this;
    return { now, procs, pending, used, groups, slow, nextId, fresh, twoLeadersSince };
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
    else if (separated(this.groups, node, to)) reason = 'partition';
    if (reason !== null)
      this.rec?.({ t: this.now, kind: 'drop', msg: id, from: node, to, type, reason });
    else {
      const slow = this.slow !== null && this.slow[0] === node && this.slow[1] === to;
      const { earliest, latest } = arrivalWindow(this.d.link, this.now, 1);
      this.pending.push({
        id,
        sig: sigOfMessage(node, to, message),
        kind: 'deliver',
        earliest,
        latest: slow ? Infinity : latest,
        from: node,
        to,
        message,
      });
    }
  }

  setTimerOf(name: string, after: number): void {
    const node = this.node;
    this.cancelTimerOf(name);
    const at = this.now + after;
    this.pending.push({
      id: this.nextId++,
      sig: sigOfTimer(node, name),
      kind: 'timer',
      earliest: at,
      latest: at,
      node,
      name,
    });
  }

  cancelTimerOf(name: string): void {
    const node = this.node;
    const pending = this.pending;
    for (let i = 0; i < pending.length; i++) {
      const p = pending[i]!;
      if (p.kind === 'timer' && p.node === node && p.name === name) {
        pending.splice(i, 1);
        return;
      }
    }
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

/** The step in progress, for `ctx.random` (one function for every step: no closure per step). */
let stepping: WorldDraft | null = null;

function drawFor(): number {
  return stepping!.draw();
}

const EXPLORER_EFFECTS: EffectHandlers<WorldDraft> = {
  send: (w, to, message) => w.sendFrom(to, message),
  setTimer: (w, name, after) => w.setTimerOf(name, after),
  cancelTimer: (w, name) => w.cancelTimerOf(name),
  report: (w, report) => w.reportOf(report),
};
