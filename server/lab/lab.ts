// One lab: its processes, its network and its trace. Every message goes through here: it is
// stamped with the sender's id and clocks, journaled, given a fate by the fabric, held in the
// lab's timer queue and delivered (or dropped, with the reason) when it comes due. The
// instructor's controls (crash, partition, pause and step, reset...) live in lab-control.ts.
import {
  sameReport,
  type Message,
  type ProcessId,
  type Report,
} from '@shared/algorithms/algorithm.ts';
import type { Result } from '@shared/protocol/errors.ts';
import type { DistributiveOmit } from '@shared/sim/event-queue.ts';
import {
  DEFAULT_LIMITS,
  type LabConfig,
  type Limits,
  type Play,
} from '@shared/protocol/lab-config.ts';
import { MAX_FRAME_BYTES } from '@shared/protocol/frames.ts';
import type {
  LabSnapshot,
  ProcessConfig,
  ProcessInfo,
  ServerFrame,
} from '@shared/protocol/frames.ts';
import type { GradeSummary, ProcessMode } from '@shared/protocol/grade-summary.ts';

import type { DropReason, TraceEvent } from '@shared/protocol/trace.ts';
import { Network, networkRandom } from '@shared/sim/network.ts';
import type { Clock } from '../clock/clock.ts';
import { LiveClocks, type LiveStamp } from '../trace/live-clocks.ts';
import { LabChecker } from './live-checker.ts';
import { ClassFigures } from './class-figures.ts';
import { sendFrame, type Conn } from './conn.ts';
import { processConfigOf } from './lab-settings.ts';
import { ObserverHub, type ObserverOptions } from './observers.ts';
import { PausedHolds } from './paused-holds.ts';
import { ProcessTable, type ProcessEntry } from './process-table.ts';
import { Scheduler } from './scheduler.ts';
import { StatsTracker } from './stats-tracker.ts';
import { LabIntake, type SendRefusal } from './lab-intake.ts';
import type { RateLimits, TokenBucket } from './rate-limit.ts';
import { TraceGate } from '../trace/trace-gate.ts';
import type { TraceStore } from '../trace/trace-store.ts';
import type { LabFence } from './lab-fence.ts';
import { LabNumbers } from './lab-numbers.ts';
import { labSnapshot, processInfo } from './lab-view.ts';
import type { TraceTail } from '../trace/trace-tail.ts';
import { deliverFrame } from '../trace/wire-encode.ts';
import { recordEvent, recordMessage } from './lab-journal.ts';
import { joinProcess, type JoinRequest } from './lab-join.ts';

/** A message the relay holds until it is due. */
interface Held {
  at: number;
  seq: number;
  msg: number;
  from: ProcessId;
  to: ProcessId;
  /** The message's type; the message itself is kept only as its JSON (a held message is small). */
  type: string;
  /** The message as JSON, encoded once at the send for the trace line and the deliver frame. */
  json: string;
  stamp: LiveStamp;
  /** Set on the fabric's duplicate: the original message id. */
  of?: number;
}

export interface LabDeps {
  clock: Clock;
  store: TraceStore;
  tail?: TraceTail;
  /** The lab's fence record (lab-fence.ts): numbers are reserved on disk in blocks before use. */
  fence?: LabFence;
  /** Labs with more ids than this keep Lamport clocks only. */
  vectorLimit: number;
  /** How long a dropped connection's id stays reserved for its resume token, ms. */
  resumeGraceMs: number;
  observers?: ObserverOptions;
  onError: (err: unknown) => void;
  /** The instructor changed what lab-state.ts persists (crash, recover, partition, pause...). */
  onStateChange?: () => void;
  /** Message bytes a second into this lab, all senders together (rate-limit.ts). */
  byteLimits?: RateLimits;
}

export type EventBody = DistributiveOmit<TraceEvent, 'seq' | 't' | 'lamport' | 'vector'>;

export class Lab {
  config: LabConfig;
  readonly processes: ProcessTable;
  /** The lab's fabric: the shared network model, seeded by the lab's seed (the simulator runs the same model on the same seed stream). */
  fabric: Network;
  readonly scheduler: Scheduler<Held>;
  /** Messages that came due for a paused process, until it resumes (lab-control.ts `pauseProcess`). */
  readonly pausedHolds = new PausedHolds<Held>((h) => h.json.length);
  readonly clocks: LiveClocks;
  readonly stats = new StatsTracker();
  /** Six letters a class types to join (issued by Labs, unique on the relay). */
  joinCode = '';
  readonly observers: ObserverHub;
  /** The live checker: watches every journaled event and journals its findings (server/lab/live-checker.ts). */
  readonly checker: LabChecker;
  /** Which events the trace still writes (trace-gate.ts); what the lab takes in (lab-intake.ts). */
  readonly gate: TraceGate;
  readonly intake: LabIntake;
  /** The class board's figures: the relay's own per hand-played student, and her tab's claims (class-figures.ts). */
  readonly figures: ClassFigures;
  /** Readers of every journaled event while they listen (a lesson step's live run, lesson-live.ts). */
  readonly taps = new Set<(event: TraceEvent) => void>();
  /** Trace sequence numbers and message ids, never handed out twice (lab-numbers.ts). */
  readonly numbers: LabNumbers;
  private startedAt: number;
  private processConfigCache: ProcessConfig | null = null;

  constructor(
    config: LabConfig,
    readonly deps: LabDeps,
  ) {
    this.config = config;
    this.processes = new ProcessTable(config.ids);
    this.fabric = new Network(config.fabric, networkRandom(config.seed));
    this.scheduler = new Scheduler<Held>(
      deps.clock,
      (h) => this.deliver(h),
      deps.onError,
      (h) => h.json.length,
    );
    this.clocks = new LiveClocks(config.ids.length <= deps.vectorLimit);
    this.gate = new TraceGate(
      deps.store,
      (text) => this.record({ kind: 'note', text }, undefined, true),
      () => this.numbers.seq,
    );
    this.intake = new LabIntake(deps.store, deps.clock, deps.byteLimits);
    const tail = deps.tail;
    this.numbers = new LabNumbers(deps.fence, tail);
    // A reloaded lab continues its timeline where the file left off.
    this.startedAt = deps.clock.now() - (tail ? tail.lastT + 1 : 0);
    if (tail?.clock) for (const id of config.ids) this.clocks.restore(id, tail.clock);
    const snapshotText = () =>
      JSON.stringify({
        type: 'snapshot',
        lab: this.name,
        snapshot: this.snapshot(),
      } satisfies ServerFrame);
    this.observers = new ObserverHub(config.name, snapshotText, deps.observers, () =>
      deps.store.flush(),
    );
    this.checker = new LabChecker({
      clock: deps.clock,
      config: () => this.processConfig(),
      now: () => this.now(),
      emit: (finding) => {
        for (const id of finding.processes) {
          const e = this.processes.get(id);
          if (e) e.findings = (e.findings ?? 0) + 1;
        }
        this.record({ kind: 'finding', finding });
      },
      onError: deps.onError,
    });
    this.figures = new ClassFigures({
      clock: deps.clock,
      config: () => this.processConfig(),
      journal: (id, d, text) =>
        this.record(
          {
            kind: 'deviation',
            node: id,
            rule: d.rule,
            text: text.slice(0, 300),
            action: d.action.slice(0, 120),
          },
          this.clocks.tick(id),
        ),
      onError: deps.onError,
    });
  }

  get name(): string {
    return this.config.name;
  }

  /** ms since the lab started (or was reset), to 0.1 ms. */
  now(): number {
    return Math.round((this.deps.clock.now() - this.startedAt) * 10) / 10;
  }

  get lastSeq(): number {
    return this.numbers.seq - 1;
  }

  /** A newer owner took the lab's numbers (lab-numbers.ts): it records, sends and delivers nothing more. */
  get inert(): boolean {
    return this.numbers.inert;
  }

  processConfig(): ProcessConfig {
    return (this.processConfigCache ??= processConfigOf(this.config));
  }

  // --- processes -------------------------------------------------------------------------

  /** A process joins, resumes or takes an id over (lab-join.ts). */
  join(conn: Conn, req: JoinRequest): Result<ProcessEntry> {
    return joinProcess(this, conn, req);
  }

  /** The process left (`explicit`) or its connection dropped (its id is then held for its resume token). */
  leave(conn: Conn, id: ProcessId, explicit: boolean): void {
    const entry = this.processes.get(id);
    if (!entry || entry.conn !== conn) return;
    entry.report = null;
    entry.since = Date.now();
    this.figures.stop(id);
    this.processes.release(entry, explicit ? 0 : this.deps.clock.now() + this.deps.resumeGraceMs);
    if (explicit) sendFrame(conn, { type: 'left' });
    this.record({ kind: 'leave', node: id }, this.clocks.tick(id));
  }

  /** The entry `conn` holds as process `id`, or null if it holds no longer (displaced, removed). */
  owned(conn: Conn, id: ProcessId): ProcessEntry | null {
    const entry = this.processes.get(id);
    return entry && entry.conn === conn ? entry : null;
  }

  get limits(): Limits {
    return this.config.limits ?? DEFAULT_LIMITS;
  }

  /** Whether holding one more message of `bytes` would pass the lab's limits. */
  private heldFull(bytes: number): boolean {
    const l = this.limits;
    const held = this.scheduler.size + this.pausedHolds.size;
    return (
      held >= l.maxHeld || this.scheduler.bytes + this.pausedHolds.bytes + bytes > l.maxHeldBytes
    );
  }

  /**
   * A process sends: the relay stamps it with the sender's id and decides its fate now. The size
   * limit applies to the message as it will be stored and delivered (its JSON), whatever the
   * transport carried; so do the byte budgets (its address's `sender`, the lab's), and a trace
   * that is behind its disk takes no new message. A refusal answers the sender, nothing is recorded.
   */
  send(
    entry: ProcessEntry,
    to: ProcessId,
    message: Message,
    sender?: TokenBucket,
  ): SendRefusal | void {
    const json = JSON.stringify(message);
    if (json.length > MAX_FRAME_BYTES) return 'too-large';
    const refusal = this.intake.admit(json.length, sender);
    if (refusal) return refusal;
    const from = entry.id;
    const type = message.type;
    const msg = this.numbers.takeMsg();
    if (this.inert) return;
    const stamp = this.clocks.tick(from);
    recordMessage(this, 'send', msg, from, to, type, message, json, stamp);
    if (entry.mode === 'hand' && !entry.crashed) this.figures.sent(from, to, message);
    if (entry.crashed) return this.drop(msg, from, to, type, 'sender-crashed');
    if (!this.processes.has(to)) return this.drop(msg, from, to, type, 'unknown-destination');
    const fate = this.fabric.decide(from, to, this.scheduler.now());
    if (fate.kind === 'drop') return this.drop(msg, from, to, type, fate.reason);
    if (this.heldFull(json.length)) return this.drop(msg, from, to, type, 'overflow');
    this.scheduler.push({ at: fate.at, msg, from, to, type, json, stamp });
    if (fate.dupAt !== null && !this.heldFull(json.length)) {
      const copy = this.numbers.takeMsg();
      if (this.inert) return;
      this.record({ kind: 'duplicate', msg: copy, of: msg, from, to, type });
      this.scheduler.push({ at: fate.dupAt, msg: copy, from, to, type, json, stamp, of: msg });
    }
  }

  /** The process's algorithm threw (its host caught it): journaled, at most MAX_FAULT_EVENTS per id (lab-intake.ts), then counted. */
  fault(entry: ProcessEntry, f: { error: string; event: string; restarted: boolean }): void {
    entry.faults = (entry.faults ?? 0) + 1;
    if (!this.intake.journalFault(entry.id)) return;
    entry.report = null;
    this.record(
      { kind: 'fault', node: entry.id, error: f.error, event: f.event, restarted: f.restarted },
      this.clocks.tick(entry.id),
    );
  }

  /** The tab says what it runs now; a change is journaled as a note, so replay shows when her own code took over. */
  mode(entry: ProcessEntry, mode: ProcessMode): void {
    const was = entry.mode ?? 'auto';
    entry.mode = mode;
    // Her tab restarts its runner on every mode frame: so does the relay's audit of her hand.
    if (mode === 'hand' && !entry.crashed) this.figures.start(entry.id);
    else this.figures.stop(entry.id);
    if (was === mode) return;
    this.record({
      kind: 'note',
      text: `process ${entry.id} runs ${mode === 'code' ? 'its own module (code mode)' : mode === 'hand' ? 'by hand (hand mode)' : "the lab's algorithm again"}`,
    });
  }

  /** Her latest grade as her tab claims it (the schema refused one that contradicts itself), kept for the class board. */
  grade(entry: ProcessEntry, summary: GradeSummary, trace: string | undefined): void {
    entry.grade = { summary, at: this.now(), trace: trace ?? null };
  }

  /** The instructor's play settings: every connected process is told (tabs switch to or from hand mode at once). */
  setPlay(play: Play): void {
    this.config = { ...this.config, play };
    const who = play.students
      ? 'students play by hand'
      : play.hand.length
        ? `processes ${play.hand.join(', ')} play by hand`
        : 'every tab runs the lab’s algorithm';
    this.record({ kind: 'note', text: `play: ${who}; hints ${play.hints ? 'allowed' : 'hidden'}` });
    this.tellAll(() => ({ type: 'play', play }));
  }

  report(entry: ProcessEntry, report: Report): void {
    if (entry.crashed) return;
    if (entry.report && sameReport(entry.report, report)) return;
    entry.report = report;
    if (entry.mode === 'hand') this.figures.reported(entry.id, report);
    this.record({ kind: 'report', node: entry.id, report }, this.clocks.tick(entry.id));
  }

  /**
   * A held message comes due (or is stepped by hand): deliver it if the receiver can take it. A
   * paused receiver gets it at resume ('held'), unless the lab's held caps are full.
   */
  deliver(h: Held): 'delivered' | 'held' | DropReason {
    if (this.inert) return 'receiver-gone';
    const entry = this.processes.get(h.to);
    const type = h.type;
    let reason: DropReason | null = null;
    if (!entry) reason = 'receiver-gone';
    else if (entry.crashed) reason = 'receiver-crashed';
    else if (entry.paused) {
      if (!this.heldFull(h.json.length)) {
        this.pausedHolds.hold(h.to, h);
        return 'held';
      }
      reason = 'overflow';
    } else if (!entry.conn) reason = 'receiver-gone';
    else if (this.fabric.partitioned(h.from, h.to)) reason = 'partition';
    else if (entry.conn.overloaded()) reason = 'overflow';
    if (reason !== null || !entry?.conn) {
      this.drop(h.msg, h.from, h.to, type, reason ?? 'receiver-gone');
      return reason ?? 'receiver-gone';
    }
    recordMessage(
      this,
      'deliver',
      h.msg,
      h.from,
      h.to,
      type,
      undefined,
      null,
      this.clocks.receiveView(h.to, h.stamp),
    );
    entry.conn.sendText(deliverFrame(h.from, h.msg, h.json));
    if (entry.mode === 'hand') this.figures.delivered(h.to, h.from, h.json);
    return 'delivered';
  }

  drop(msg: number, from: ProcessId, to: ProcessId, type: string, reason: DropReason): void {
    this.record({ kind: 'drop', msg, from, to, type, reason });
  }

  // --- trace and views -----------------------------------------------------------------------

  /** Journals one event: seq and time, the clocks of the process it happened at, to disk (as the gate says; `always`: its notes) and to observers (lab-journal.ts). */
  record(body: EventBody, stamp?: LiveStamp, always = false): void {
    recordEvent(this, body, stamp, always);
  }

  /** What the relay shows of one process (lab-view.ts). */
  info(entry: ProcessEntry): ProcessInfo {
    return processInfo(this, entry);
  }

  snapshot(): LabSnapshot {
    return labSnapshot(this);
  }

  /**
   * The one writer of a process's crashed and paused flags (ProcessEntry has them read-only): the
   * instructor's controls and a reopened lab's saved state change them through here.
   */
  setProcessState(entry: ProcessEntry, flags: { crashed?: boolean; paused?: boolean }): void {
    const e = entry as { crashed: boolean; paused?: boolean };
    if (flags.crashed !== undefined) e.crashed = flags.crashed;
    if (flags.paused !== undefined) e.paused = flags.paused;
  }

  /** Called by the instructor's controls after they change the crashed set, the partition or the pause. */
  stateChanged(): void {
    this.deps.onStateChange?.();
  }

  /** Sends every connected process a frame (restart, ...). */
  tellAll(frame: (e: ProcessEntry) => ServerFrame | null): void {
    for (const e of this.processes.list()) {
      if (!e.conn) continue;
      const f = frame(e);
      if (f) sendFrame(e.conn, f);
    }
  }

  async close(): Promise<void> {
    this.checker.dispose();
    this.figures.dispose();
    this.scheduler.dispose();
    await this.observers.close();
    await this.deps.store.close();
    this.numbers.close();
  }

  /** A fresh timeline (lab reset): sequence numbers, message ids, time, clocks and link state start over (the stats on the `reset` event). */
  restartTimeline(): void {
    this.numbers.restart(() => this.deps.store.flush());
    this.startedAt = this.deps.clock.now();
    this.clocks.clear();
    this.fabric.resetLinks();
    this.checker.restart();
    this.gate.clear();
    this.intake.clear();
  }

  /** New settings (the caller validated them). Returns the entries whose ids left the lab. */
  applyConfig(config: LabConfig): ProcessEntry[] {
    const seedChanged = config.seed !== this.config.seed;
    this.config = config;
    this.processConfigCache = null;
    if (seedChanged) {
      const partition = this.fabric.partition;
      this.fabric = new Network(config.fabric, networkRandom(config.seed));
      this.fabric.setPartition(partition);
    } else this.fabric.configure(config.fabric);
    return this.processes.setIds(config.ids);
  }
}
