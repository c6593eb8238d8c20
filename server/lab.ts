// One lab: its processes, its network and its trace. Every message goes through here: it is
// stamped with the sender's id and clocks, journaled, given a fate by the fabric, held in the
// lab's timer queue and delivered (or dropped, with the reason) when it comes due. The
// instructor's controls (crash, partition, pause and step, reset...) live in lab-control.ts.
import { sameReport, type Message, type ProcessId, type Report } from '@shared/algorithms/algorithm.ts';
import { ok, type Result } from '@shared/protocol/errors.ts';
import type { DistributiveOmit } from '@shared/sim/event-queue.ts';
import { DEFAULT_LIMITS, type LabConfig, type Limits, type Play } from '@shared/protocol/lab-config.ts';
import { MAX_DEVIATION_EVENTS } from '@shared/protocol/class-play.ts';
import { MAX_FRAME_BYTES } from '@shared/protocol/frames.ts';
import type { LabSnapshot, ProcessConfig, ProcessInfo, ProcessKind, ServerFrame } from '@shared/protocol/frames.ts';
import type { GradeSummary, ProcessMode } from '@shared/protocol/grade-summary.ts';
import { PROTOCOL_VERSION } from '@shared/protocol/frames.ts';
import type { DropReason, TraceEvent } from '@shared/protocol/trace.ts';
import type { Clock } from './clock.ts';
import { LiveClocks, type LiveStamp } from './live-clocks.ts';
import { LabChecker } from './checker.ts';
import { sendFrame, type Conn } from './conn.ts';
import { Fabric } from './fabric.ts';
import { processConfigOf } from './lab-settings.ts';
import { ObserverHub, type ObserverOptions } from './observers.ts';
import { ProcessTable, statusOf, type ProcessEntry } from './process-table.ts';
import { Scheduler } from './scheduler.ts';
import { StatsTracker } from './stats.ts';
import type { TraceStore } from './trace-store.ts';
import type { TraceTail } from './trace-tail.ts';
import { deliverFrame, messageHeadMaxBytes, putMessageHead, scratch, traceLine } from './wire-encode.ts';

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
  /** Labs with more ids than this keep Lamport clocks only. */
  vectorLimit: number;
  /** How long a dropped connection's id stays reserved for its resume token, ms. */
  resumeGraceMs: number;
  observers?: ObserverOptions;
  onError: (err: unknown) => void;
  /** The instructor changed what lab-state.ts persists (crash, recover, partition, pause...). */
  onStateChange?: () => void;
}

export type EventBody = DistributiveOmit<TraceEvent, 'seq' | 't' | 'lamport' | 'vector'>;

const MESSAGE_KINDS = new Set(['send', 'deliver', 'drop', 'duplicate']);
/** Fault events journaled per process; a process that keeps throwing is counted past this. */
const MAX_FAULT_EVENTS = 20;

export class Lab {
  config: LabConfig;
  readonly processes: ProcessTable;
  fabric: Fabric;
  readonly scheduler: Scheduler<Held>;
  readonly clocks: LiveClocks;
  readonly stats = new StatsTracker();
  /** Six letters a class types to join (issued by Labs, unique on the relay). */
  joinCode = '';
  readonly observers: ObserverHub;
  /** The live checker: watches every journaled event and journals its findings (server/checker.ts). */
  readonly checker: LabChecker;
  private seq: number;
  private nextMsg: number;
  private startedAt: number;
  private processConfigCache: ProcessConfig | null = null;

  constructor(
    config: LabConfig,
    readonly deps: LabDeps,
  ) {
    this.config = config;
    this.processes = new ProcessTable(config.ids);
    this.fabric = new Fabric(config.fabric, config.seed);
    this.scheduler = new Scheduler<Held>(deps.clock, (h) => this.deliver(h), deps.onError, (h) => h.json.length);
    this.clocks = new LiveClocks(config.ids.length <= deps.vectorLimit);
    const tail = deps.tail;
    this.seq = tail?.nextSeq ?? 0;
    this.nextMsg = tail?.nextMsg ?? 1;
    // A reloaded lab continues its timeline where the file left off.
    this.startedAt = deps.clock.now() - (tail ? tail.lastT + 1 : 0);
    if (tail?.clock) for (const id of config.ids) this.clocks.restore(id, tail.clock);
    const snapshotText = () => JSON.stringify({ type: 'snapshot', lab: this.name, snapshot: this.snapshot() } satisfies ServerFrame);
    this.observers = new ObserverHub(config.name, snapshotText, deps.observers, () => deps.store.flush());
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
  }

  get name(): string {
    return this.config.name;
  }

  /** ms since the lab started (or was reset), to 0.1 ms. */
  now(): number {
    return Math.round((this.deps.clock.now() - this.startedAt) * 10) / 10;
  }

  get lastSeq(): number {
    return this.seq - 1;
  }

  processConfig(): ProcessConfig {
    return (this.processConfigCache ??= processConfigOf(this.config));
  }

  // --- processes -------------------------------------------------------------------------

  join(conn: Conn, req: { id?: ProcessId; resume?: string; name?: string; kind?: ProcessKind; ref?: string | number }): Result<ProcessEntry> {
    const claimed = this.processes.claim(conn, req, this.deps.clock.now());
    if (!claimed.ok) return claimed;
    const { entry, displaced } = claimed.value;
    if (displaced) sendFrame(displaced, { type: 'left' });
    entry.name = req.name ?? entry.name;
    entry.kind = req.kind ?? entry.kind ?? 'external';
    // Wall-clock time, for people (the class roster); the lab's timeline keeps the monotonic clock.
    if (!displaced) entry.since = Date.now();
    sendFrame(conn, {
      type: 'joined',
      protocol: PROTOCOL_VERSION,
      lab: this.name,
      id: entry.id,
      resume: entry.resume!,
      config: this.processConfig(),
      status: entry.crashed ? 'crashed' : 'up',
      ...(this.config.play ? { play: this.config.play } : {}),
      ...(req.ref !== undefined ? { ref: req.ref } : {}),
    });
    if (!displaced) this.record({ kind: 'join', node: entry.id }, this.clocks.tick(entry.id));
    return ok(entry);
  }

  /** The process left (`explicit`) or its connection dropped (its id is then held for its resume token). */
  leave(conn: Conn, id: ProcessId, explicit: boolean): void {
    const entry = this.processes.get(id);
    if (!entry || entry.conn !== conn) return;
    entry.report = null;
    entry.since = Date.now();
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
    return this.scheduler.size >= l.maxHeld || this.scheduler.bytes + bytes > l.maxHeldBytes;
  }

  /**
   * A process sends: the relay stamps it with the sender's id and decides its fate now. The size
   * limit applies to the message as it will be stored and delivered (its JSON), whatever the
   * transport carried: 'too-large' answers the sender, nothing is recorded.
   */
  send(entry: ProcessEntry, to: ProcessId, message: Message): 'too-large' | void {
    const json = JSON.stringify(message);
    if (json.length > MAX_FRAME_BYTES) return 'too-large';
    const from = entry.id;
    const type = message.type;
    const msg = this.nextMsg++;
    const stamp = this.clocks.tick(from);
    this.recordMessage('send', msg, from, to, type, message, json, stamp);
    if (entry.crashed) return this.drop(msg, from, to, type, 'sender-crashed');
    if (!this.processes.has(to)) return this.drop(msg, from, to, type, 'unknown-destination');
    const fate = this.fabric.decide(from, to, this.scheduler.now());
    if (fate.kind === 'drop') return this.drop(msg, from, to, type, fate.reason);
    if (this.heldFull(json.length)) return this.drop(msg, from, to, type, 'overflow');
    this.scheduler.push({ at: fate.at, msg, from, to, type, json, stamp });
    if (fate.dupAt !== null && !this.heldFull(json.length)) {
      const copy = this.nextMsg++;
      this.record({ kind: 'duplicate', msg: copy, of: msg, from, to, type });
      this.scheduler.push({ at: fate.dupAt, msg: copy, from, to, type, json, stamp, of: msg });
    }
  }

  /** The process's algorithm threw (its host caught it): journaled, at most MAX_FAULT_EVENTS per process, then counted. */
  fault(entry: ProcessEntry, f: { error: string; event: string; restarted: boolean }): void {
    entry.faults = (entry.faults ?? 0) + 1;
    if (entry.faults > MAX_FAULT_EVENTS) return;
    entry.report = null;
    this.record({ kind: 'fault', node: entry.id, error: f.error, event: f.event, restarted: f.restarted }, this.clocks.tick(entry.id));
  }

  /** The tab says what it runs now; a change is journaled as a note, so replay shows when her own code took over. */
  mode(entry: ProcessEntry, mode: ProcessMode): void {
    const was = entry.mode ?? 'auto';
    entry.mode = mode;
    if (was === mode) return;
    this.record({ kind: 'note', text: `process ${entry.id} runs ${mode === 'code' ? 'its own module (code mode)' : mode === 'hand' ? 'by hand (hand mode)' : "the lab's algorithm again"}` });
  }

  /** Her latest grade, kept for the class board (and the failing run's trace file, if it came along). */
  grade(entry: ProcessEntry, summary: GradeSummary, trace: string | undefined): void {
    entry.grade = { summary, at: this.now(), trace: trace ?? null };
  }

  /**
   * Hand mode: a click of hers (or a deadline she let pass) and the coach's deviations. Counted
   * for the class board; each deviation journaled as its own event, at most MAX_DEVIATION_EVENTS
   * per process (then only counted), so a tab cannot flood the trace.
   */
  hand(entry: ProcessEntry, action: string | null, deviations: readonly { rule: string; text: string }[]): void {
    const h = (entry.hand ??= { actions: 0, deviations: 0 });
    if (action !== null) h.actions++;
    for (const d of deviations) {
      if (++h.deviations > MAX_DEVIATION_EVENTS) continue;
      this.record({ kind: 'deviation', node: entry.id, rule: d.rule, text: d.text, action }, this.clocks.tick(entry.id));
    }
  }

  /** The instructor's play settings: every connected process is told (tabs switch to or from hand mode at once). */
  setPlay(play: Play): void {
    this.config = { ...this.config, play };
    const who = play.students ? 'students play by hand' : play.hand.length ? `processes ${play.hand.join(', ')} play by hand` : 'every tab runs the lab’s algorithm';
    this.record({ kind: 'note', text: `play: ${who}; hints ${play.hints ? 'allowed' : 'hidden'}` });
    this.tellAll(() => ({ type: 'play', play }));
  }

  report(entry: ProcessEntry, report: Report): void {
    if (entry.crashed) return;
    if (entry.report && sameReport(entry.report, report)) return;
    entry.report = report;
    this.record({ kind: 'report', node: entry.id, report }, this.clocks.tick(entry.id));
  }

  /** A held message comes due (or is stepped by hand): deliver it if the receiver can take it. */
  deliver(h: Held): 'delivered' | DropReason {
    const entry = this.processes.get(h.to);
    const type = h.type;
    let reason: DropReason | null = null;
    if (!entry) reason = 'receiver-gone';
    else if (entry.crashed) reason = 'receiver-crashed';
    else if (!entry.conn) reason = 'receiver-gone';
    else if (this.fabric.partitioned(h.from, h.to)) reason = 'partition';
    else if (entry.conn.overloaded()) reason = 'overflow';
    if (reason !== null || !entry?.conn) {
      this.drop(h.msg, h.from, h.to, type, reason ?? 'receiver-gone');
      return reason ?? 'receiver-gone';
    }
    this.recordMessage('deliver', h.msg, h.from, h.to, type, undefined, null, this.clocks.receiveView(h.to, h.stamp));
    entry.conn.sendText(deliverFrame(h.from, h.msg, h.json));
    return 'delivered';
  }

  drop(msg: number, from: ProcessId, to: ProcessId, type: string, reason: DropReason): void {
    this.record({ kind: 'drop', msg, from, to, type, reason });
  }

  // --- trace and views -----------------------------------------------------------------------

  /** Journals one event: seq and time, the clocks of the process it happened at, to disk and to observers. */
  record(body: EventBody, stamp?: LiveStamp): void {
    const isMessage = MESSAGE_KINDS.has(body.kind);
    const written = !isMessage || this.writesMessages();
    const event = { seq: this.seq++, t: this.now(), ...body } as TraceEvent;
    const observed = this.observers.admit(isMessage);
    if (written || observed) {
      const line = traceLine(event, stamp ? this.clocks.json(stamp) : null);
      if (written) this.deps.store.append(line);
      if (observed) this.observers.push(line);
    }
    this.checker.observe(event);
    this.stats.observe(event);
  }

  /**
   * The per-message events (send, deliver), the same text as `record` gives, written as bytes
   * straight into the trace's buffer (wire-encode.ts): no string is made unless an observer
   * takes the line, and the payload is not encoded twice (`messageJson`: the send's, null for a
   * deliver). The checker and the stats get the event without the clocks, which they never read.
   */
  private recordMessage(kind: 'send' | 'deliver', msg: number, from: ProcessId, to: ProcessId, type: string, message: Message | undefined, messageJson: string | null, stamp: LiveStamp): void {
    const written = this.writesMessages();
    const seq = this.seq++;
    const t = this.now();
    const observed = this.observers.admit(true);
    if (written || observed) {
      const max = messageHeadMaxBytes(type, messageJson) + this.clocks.maxBytes;
      // The trace's own chunk when the line is written, else a scratch buffer (an observer's copy only).
      const chunk = written ? this.deps.store.reserve(max) : null;
      const buf = chunk ?? scratch(max);
      const start = chunk ? this.deps.store.lineStart : 0;
      let end = this.clocks.put(buf, putMessageHead(buf, start, seq, t, kind, msg, from, to, type, messageJson), stamp);
      buf[end++] = 0x7d; // }
      if (chunk) this.deps.store.commit(end);
      if (observed) this.observers.push(buf.toString('utf8', start, end));
    }
    // One object of a fixed shape (no spread copy): this runs twice for every message.
    const event = (message ? { seq, t, kind, msg, from, to, type, message } : { seq, t, kind, msg, from, to, type }) as TraceEvent;
    this.checker.observe(event);
    this.stats.observe(event);
  }

  /**
   * Whether the trace still takes message events. Over its size cap they are counted, not
   * written (trace-store.ts); the first one left out is announced by a note, journaled before it.
   */
  private writesMessages(): boolean {
    const store = this.deps.store;
    if (!store.lean) return true;
    if (store.unrecorded++ === 0) this.record({ kind: 'note', text: `trace over its size cap or the relay's disk budget: message events are counted from seq ${this.seq + 1} on, not written` });
    return false;
  }

  info(entry: ProcessEntry): ProcessInfo {
    return {
      id: entry.id,
      name: entry.name,
      status: statusOf(entry),
      kind: entry.conn ? entry.kind : null,
      transport: entry.conn?.transport ?? null,
      report: entry.report,
      group: this.fabric.groupIndex(entry.id),
      ...(entry.mode ? { mode: entry.mode } : {}),
      ...(entry.grade ? { grade: { ...entry.grade.summary, at: entry.grade.at, trace: entry.grade.trace !== null } } : {}),
      since: entry.since,
      ...(entry.hand ? { hand: { ...entry.hand } } : {}),
      ...(entry.findings ? { findings: entry.findings } : {}),
    };
  }

  snapshot(): LabSnapshot {
    return {
      config: this.config,
      processes: this.processes.list().map((e) => this.info(e)),
      paused: this.scheduler.paused,
      inFlight: this.scheduler.size,
      now: this.now(),
      partition: this.fabric.partition,
      seq: this.lastSeq,
      joinCode: this.joinCode,
    };
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
    this.scheduler.dispose();
    await this.observers.close();
    await this.deps.store.close();
  }

  /** A fresh timeline (lab reset): sequence numbers, message ids, time, clocks and link state start over (the stats on the `reset` event). */
  restartTimeline(): void {
    this.seq = 0;
    this.nextMsg = 1;
    this.startedAt = this.deps.clock.now();
    this.clocks.clear();
    this.fabric.resetLinks();
    this.checker.restart();
  }

  /** New settings (the caller validated them). Returns the entries whose ids left the lab. */
  applyConfig(config: LabConfig): ProcessEntry[] {
    const seedChanged = config.seed !== this.config.seed;
    this.config = config;
    this.processConfigCache = null;
    if (seedChanged) {
      const partition = this.fabric.partition;
      this.fabric = new Fabric(config.fabric, config.seed);
      this.fabric.setPartition(partition);
    } else this.fabric.configure(config.fabric);
    return this.processes.setIds(config.ids);
  }
}
