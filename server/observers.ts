// Observers of one lab (dashboards): a snapshot on subscribe, then the lab's trace events in
// batches at most every `intervalMs` (10 to 20 a second). Each batch is encoded once and the same
// text goes to every observer. Bounded at both ends so watching never slows the lab: past
// `maxMessageEvents` per batch, message events are left out (counted in `skipped`; state events
// always go), and an observer whose connection is backed up misses batches, then gets a fresh
// snapshot instead of the backlog.
import type { Conn } from './conn.ts';
import { eventsFrame } from './wire-encode.ts';

interface Observer {
  conn: Conn;
  /** Missed at least one batch: send a snapshot before anything else. */
  stale: boolean;
}

export interface ObserverOptions {
  intervalMs?: number;
  maxMessageEvents?: number;
}

export class ObserverHub {
  private readonly observers = new Map<number, Observer>();
  private pending: string[] = [];
  private messageEvents = 0;
  private skipped = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly intervalMs: number;
  private readonly maxMessageEvents: number;
  private readonly labJson: string;
  /** Batches not sent to a backed-up observer, for the stats. */
  missedBatches = 0;

  constructor(
    lab: string,
    /** Encoded `snapshot` frame of the lab as it is now. */
    private readonly snapshotText: () => string,
    opts: ObserverOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 66;
    this.maxMessageEvents = opts.maxMessageEvents ?? 1000;
    this.labJson = JSON.stringify(lab);
  }

  get size(): number {
    return this.observers.size;
  }

  has(conn: Conn): boolean {
    return this.observers.has(conn.id);
  }

  /** Subscribes: earlier events go out first, so the snapshot is exactly where this observer's stream starts. */
  add(conn: Conn, snapshot: string = this.snapshotText()): void {
    this.flush();
    conn.sendText(snapshot);
    this.observers.set(conn.id, { conn, stale: false });
  }

  remove(conn: Conn): boolean {
    const had = this.observers.delete(conn.id);
    if (this.observers.size === 0) this.discard();
    return had;
  }

  /** One trace event, already encoded. Message events may be sampled out under load. */
  push(line: string, isMessage: boolean): void {
    if (this.observers.size === 0) return;
    if (isMessage) {
      if (this.messageEvents >= this.maxMessageEvents) {
        this.skipped++;
        return;
      }
      this.messageEvents++;
    }
    this.pending.push(line);
    if (this.timer === null) this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  /** A frame for every observer, in order after the events pushed so far. */
  broadcast(text: string): void {
    this.flush();
    for (const o of this.observers.values()) if (!o.stale && !o.conn.overloaded()) o.conn.sendText(text);
  }

  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0 && this.skipped === 0) return;
    const text = eventsFrame(this.labJson, this.pending, this.skipped);
    this.discard();
    let snapshot: string | null = null;
    for (const o of this.observers.values()) {
      if (o.conn.overloaded()) {
        if (!o.stale) this.missedBatches++;
        o.stale = true;
      } else if (o.stale) {
        snapshot ??= this.snapshotText();
        o.conn.sendText(snapshot);
        o.stale = false;
      } else o.conn.sendText(text);
    }
  }

  close(): void {
    this.discard();
    this.observers.clear();
  }

  private discard(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.pending = [];
    this.messageEvents = 0;
    this.skipped = 0;
  }
}
