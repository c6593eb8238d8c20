// One lab: its processes, its network and its trace. Every message goes through here: it is
// stamped with the sender's id and clocks, journaled, given a fate by the fabric, held in the
// lab's timer queue and delivered (or dropped, with the reason) when it comes due. The
// instructor's controls (crash, partition, pause and step, reset...) live in lab-control.ts.
import { sameReport, type Message, type ProcessId, type Report } from '@shared/algorithms/algorithm.ts';
import { ok, type Result } from '@shared/protocol/errors.ts';
import type { DistributiveOmit } from '@shared/sim/event-queue.ts';
import type { LabConfig } from '@shared/protocol/lab-config.ts';
import type { LabSnapshot, ProcessConfig, ProcessInfo, ProcessKind, ServerFrame } from '@shared/protocol/frames.ts';
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
import type { TraceStore, TraceTail } from './trace-store.ts';

/** A message the relay holds until it is due. */
export interface Held {
  at: number;
  seq: number;
  msg: number;
  from: ProcessId;
  to: ProcessId;
  message: Message;
  /** `message` as JSON, encoded once at the send for the trace line and the deliver frame. */
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
}

export type EventBody = DistributiveOmit<TraceEvent, 'seq' | 't' | 'lamport' | 'vector'>;

const MESSAGE_KINDS = new Set(['send', 'deliver', 'drop', 'duplicate']);

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
    this.scheduler = new Scheduler<Held>(deps.clock, (h) => this.deliver(h), deps.onError);
    this.clocks = new LiveClocks(config.ids.length <= deps.vectorLimit);
    const tail = deps.tail;
    this.seq = tail?.nextSeq ?? 0;
    this.nextMsg = tail?.nextMsg ?? 1;
    // A reloaded lab continues its timeline where the file left off.
    this.startedAt = deps.clock.now() - (tail ? tail.lastT + 1 : 0);
    for (const [id, s] of tail?.stamps ?? []) this.clocks.restore(id, s);
    this.observers = new ObserverHub(config.name, () => JSON.stringify({ type: 'snapshot', lab: this.name, snapshot: this.snapshot() } satisfies ServerFrame), deps.observers);
    this.checker = new LabChecker({
      clock: deps.clock,
      config: () => this.processConfig(),
      now: () => this.now(),
      emit: (finding) => this.record({ kind: 'finding', finding }),
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
    sendFrame(conn, {
      type: 'joined',
      protocol: PROTOCOL_VERSION,
      lab: this.name,
      id: entry.id,
      resume: entry.resume!,
      config: this.processConfig(),
      status: entry.crashed ? 'crashed' : 'up',
      ...(req.ref !== undefined ? { ref: req.ref } : {}),
    });
    if (!displaced) this.record({ kind: 'join', node: entry.id }, this.clocks.tick(entry.id));
    return ok(entry);
  }

  /** The process left (`explicit`) or its connection dropped (its id is then held for its resume token). */
  leave(conn: Conn, id: ProcessId, explicit: boolean): void {
    const entry = this.processes.get(id);
    if (!entry || entry.conn !== conn) return;
    this.setReport(entry, null);
    this.processes.release(entry, explicit ? 0 : this.deps.clock.now() + this.deps.resumeGraceMs);
    if (explicit) sendFrame(conn, { type: 'left' });
    this.record({ kind: 'leave', node: id }, this.clocks.tick(id));
  }

  /** The entry `conn` holds as process `id`, or null if it holds no longer (displaced, removed). */
  owned(conn: Conn, id: ProcessId): ProcessEntry | null {
    const entry = this.processes.get(id);
    return entry && entry.conn === conn ? entry : null;
  }

  /** A process sends: the relay stamps it with the sender's id and decides its fate now. */
  send(entry: ProcessEntry, to: ProcessId, message: Message): void {
    const from = entry.id;
    const type = message.type;
    const msg = this.nextMsg++;
    const stamp = this.clocks.tick(from);
    const json = JSON.stringify(message);
    this.recordMessage({ kind: 'send', msg, from, to, type, message }, `"message":${json},`, stamp);
    this.stats.send(from, to, type);
    if (entry.crashed) return this.drop(msg, from, to, type, 'sender-crashed');
    if (!this.processes.has(to)) return this.drop(msg, from, to, type, 'unknown-destination');
    const fate = this.fabric.decide(from, to, this.scheduler.now());
    if (fate.kind === 'drop') return this.drop(msg, from, to, type, fate.reason);
    this.scheduler.push({ at: fate.at, msg, from, to, message, json, stamp });
    if (fate.dupAt !== null) {
      const copy = this.nextMsg++;
      this.stats.duplicate();
      this.record({ kind: 'duplicate', msg: copy, of: msg, from, to, type });
      this.scheduler.push({ at: fate.dupAt, msg: copy, from, to, message, json, stamp, of: msg });
    }
  }

  report(entry: ProcessEntry, report: Report): void {
    if (entry.crashed) return;
    if (entry.report && sameReport(entry.report, report)) return;
    this.setReport(entry, report);
    this.record({ kind: 'report', node: entry.id, report }, this.clocks.tick(entry.id));
  }

  /** A held message comes due (or is stepped by hand): deliver it if the receiver can take it. */
  deliver(h: Held): 'delivered' | DropReason {
    const entry = this.processes.get(h.to);
    const type = h.message.type;
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
    this.recordMessage({ kind: 'deliver', msg: h.msg, from: h.from, to: h.to, type }, '', this.clocks.receive(h.to, h.stamp));
    this.stats.deliver(h.from, h.to);
    // The deliver frame ({type, from, msg, message}) around the payload's JSON from the send.
    entry.conn.sendText(`{"type":"deliver","from":${h.from},"msg":${h.msg},"message":${h.json}}`);
    return 'delivered';
  }

  drop(msg: number, from: ProcessId, to: ProcessId, type: string, reason: DropReason): void {
    this.stats.drop(from, to, reason);
    this.record({ kind: 'drop', msg, from, to, type, reason });
  }

  setReport(entry: ProcessEntry, report: Report | null): void {
    this.stats.electingChanged(entry.report?.electing ?? false, report?.electing ?? false, this.now());
    entry.report = report;
  }

  // --- trace and views -----------------------------------------------------------------------

  /** Journals one event: seq and time, the clocks of the process it happened at, to disk and to observers. */
  record(body: EventBody, stamp?: LiveStamp): void {
    const event = { seq: this.seq++, t: this.now(), ...body } as TraceEvent;
    const text = JSON.stringify(event);
    // The clocks go last, as `{...event, lamport, vector}` would put them.
    this.journal(stamp ? `${text.slice(0, -1)},${this.clocks.json(stamp)}}` : text, event, MESSAGE_KINDS.has(body.kind));
  }

  /**
   * The per-message events (send, deliver), written by hand: the same text as `record` gives
   * (field order included), without a second encoding of the payload (`message`: its JSON and
   * a comma, or '' for a deliver). The checker gets the event without the clocks, which it never reads.
   */
  private recordMessage(body: { kind: 'send' | 'deliver'; msg: number; from: ProcessId; to: ProcessId; type: string; message?: Message }, message: string, stamp: LiveStamp): void {
    const event = { seq: this.seq++, t: this.now(), ...body } as TraceEvent;
    const line = `{"seq":${event.seq},"t":${event.t},"kind":"${body.kind}","msg":${body.msg},"from":${body.from},"to":${body.to},"type":${JSON.stringify(body.type)},${message}${this.clocks.json(stamp)}}`;
    this.journal(line, event, true);
  }

  private journal(line: string, event: TraceEvent, isMessage: boolean): void {
    this.deps.store.append(line);
    this.observers.push(line, isMessage);
    this.checker.observe(event);
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
    this.observers.close();
    await this.deps.store.close();
  }

  /** A fresh timeline (lab reset): sequence numbers, message ids, time, clocks, stats and link state start over. */
  restartTimeline(): void {
    this.seq = 0;
    this.nextMsg = 1;
    this.startedAt = this.deps.clock.now();
    this.clocks.clear();
    this.stats.reset();
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
