// Observers of one lab (dashboards): a snapshot on subscribe, then the lab's trace events in
// batches at most every `intervalMs` (10 to 20 a second). Each batch is encoded once and the same
// text goes to every observer. Bounded at both ends so watching never slows the lab: past
// `maxMessageEvents` per batch, message events are left out (counted in `skipped`; state events
// always go), and an observer whose connection is backed up misses batches, then gets a fresh
// snapshot instead of the backlog.
//
// Observers see only what is on disk (etcd's WAL rule, applied to the stream): every frame waits
// for the lab's trace to be written up to the events it carries, so a relay killed with -9 never
// had an observer see an event that is then lost, or whose sequence number is then reused.
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

/** Resolves once every trace line appended so far is written (the lab's TraceStore.flush). */
type Durable = () => Promise<unknown>;

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
  /** Frames waiting for the trace to be written, in order. */
  private outbox: Promise<void> = Promise.resolve();

  constructor(
    lab: string,
    /** Encoded `snapshot` frame of the lab as it is now. */
    private readonly snapshotText: () => string,
    opts: ObserverOptions = {},
    private readonly durable?: Durable,
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
    this.afterWrite(() => conn.sendText(snapshot));
    this.observers.set(conn.id, { conn, stale: false });
  }

  /** Runs `send` once the trace holds every event appended so far (at once without a store). */
  private afterWrite(send: () => void): void {
    if (!this.durable) return send();
    const durable = this.durable;
    this.outbox = this.outbox.then(durable).then(send, send);
  }

  /** Resolves when every frame queued so far has gone out (tests, a clean close). */
  drained(): Promise<void> {
    return this.outbox;
  }

  remove(conn: Conn): boolean {
    const had = this.observers.delete(conn.id);
    if (this.observers.size === 0) this.discard();
    return had;
  }

  /**
   * Whether the next trace event goes to the observers (then `push` its line): not without
   * observers, and message events are sampled out under load (counted in `skipped`). Asked
   * first so that nobody encodes a line as text that no observer will get.
   */
  admit(isMessage: boolean): boolean {
    if (this.observers.size === 0) return false;
    if (!isMessage) return true;
    if (this.messageEvents >= this.maxMessageEvents) {
      this.skipped++;
      return false;
    }
    this.messageEvents++;
    return true;
  }

  /** One trace event `admit` let through, already encoded. */
  push(line: string): void {
    this.pending.push(line);
    if (this.timer === null) this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  /** A frame for every observer, in order after the events pushed so far. */
  broadcast(text: string): void {
    this.flush();
    const to = [...this.observers.values()];
    this.afterWrite(() => {
      for (const o of to) if (this.observers.get(o.conn.id) === o && !o.stale && !o.conn.overloaded()) o.conn.sendText(text);
    });
  }

  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0 && this.skipped === 0) return;
    const text = eventsFrame(this.labJson, this.pending, this.skipped);
    this.discard();
    const to = [...this.observers.values()];
    this.afterWrite(() => this.sendBatch(text, to));
  }

  private sendBatch(text: string, to: Observer[]): void {
    let snapshot: string | null = null;
    for (const o of to) {
      if (this.observers.get(o.conn.id) !== o) continue; // left while the batch waited for the disk
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

  /** Sends what is queued (after the trace is written), then forgets every observer. */
  async close(): Promise<void> {
    this.flush();
    await this.outbox;
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
