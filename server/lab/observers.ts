// Observers of one lab (dashboards): a snapshot on subscribe, then the lab's trace events in
// batches at most every `intervalMs` (10 to 20 a second). Each batch is encoded once and the same
// text goes to every observer. Bounded at both ends so watching never slows the lab: past
// `maxMessageEvents` or `maxBatchBytes` per batch, message events are left out (counted in
// `skipped`; state events always go); an observer whose connection is backed up misses batches,
// then gets a fresh snapshot instead of the backlog, and one whose backlog has not shrunk for
// `cutOffMs` (it reads nothing) is cut off (TOO_SLOW); a slow reader is only resynchronised. Batches waiting for the disk are bounded too (`maxWaitingBytes`): past it a batch is
// not kept, and every observer gets a fresh snapshot once the disk has caught up.
//
// Observers see only what is on disk (etcd's WAL rule, applied to the stream): every frame waits
// for the lab's trace to be written up to the events it carries, so a relay killed with -9 never
// had an observer see an event that is then lost, or whose sequence number is then reused.
import { errorFrame } from '@shared/protocol/errors.ts';
import { sendFrame, type Conn } from './conn.ts';
import { eventsFrame } from '../trace/wire-encode.ts';

interface Observer {
  conn: Conn;
  /** Missed at least one batch: send a snapshot before anything else. */
  stale: boolean;
  /** Since when its backlog has not shrunk while backed up (null: not backed up). */
  backedUpSince: number | null;
  /** Its backlog in bytes when last found backed up (Infinity where the transport cannot tell). */
  lastBacklog: number;
}

export interface ObserverOptions {
  intervalMs?: number;
  maxMessageEvents?: number;
  /** Bytes of message events per batch (default 4 MiB): a batch of 16 KB messages stays small. */
  maxBatchBytes?: number;
  /** Bytes of batches waiting for the trace to be written (default 32 MiB). */
  maxWaitingBytes?: number;
  /** An observer backed up without reading a byte this long is cut off (default 10 s). */
  cutOffMs?: number;
  /** Counts what the hub refused to buffer ('observer-cut-off', 'observer-batches-not-kept'). */
  onDrop?: (what: string) => void;
  now?: () => number;
}

/** Resolves once every trace line appended so far is written (the lab's TraceStore.flush). */
type Durable = () => Promise<unknown>;

export class ObserverHub {
  private readonly observers = new Map<number, Observer>();
  private pending: string[] = [];
  private messageEvents = 0;
  private pendingBytes = 0;
  private skipped = 0;
  /** Bytes of frames waiting in `outbox` for the disk. */
  private waiting = 0;
  /** A dropped batch's marker is waiting in `outbox`. */
  private gapQueued = false;
  private readonly opts: Required<Omit<ObserverOptions, 'onDrop'>> &
    Pick<ObserverOptions, 'onDrop'>;
  private timer: ReturnType<typeof setTimeout> | null = null;
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
    this.opts = {
      intervalMs: opts.intervalMs ?? 66,
      maxMessageEvents: opts.maxMessageEvents ?? 1000,
      maxBatchBytes: opts.maxBatchBytes ?? 4 * 2 ** 20,
      maxWaitingBytes: opts.maxWaitingBytes ?? 32 * 2 ** 20,
      cutOffMs: opts.cutOffMs ?? 10_000,
      now: opts.now ?? (() => performance.now()),
      ...(opts.onDrop ? { onDrop: opts.onDrop } : {}),
    };
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
    this.observers.set(conn.id, { conn, stale: false, backedUpSince: null, lastBacklog: Infinity });
  }

  /** Runs `send` once the trace holds every event appended so far (at once without a store); `bytes` wait meanwhile. */
  private afterWrite(send: () => void, bytes = 0): void {
    if (!this.durable) return send();
    const durable = this.durable;
    this.waiting += bytes;
    const done = () => {
      this.waiting -= bytes;
      send();
    };
    this.outbox = this.outbox.then(durable).then(done, done);
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
    if (
      this.messageEvents >= this.opts.maxMessageEvents ||
      this.pendingBytes >= this.opts.maxBatchBytes
    ) {
      this.skipped++;
      return false;
    }
    this.messageEvents++;
    return true;
  }

  /** One trace event `admit` let through, already encoded. */
  push(line: string): void {
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.timer === null) this.timer = setTimeout(() => this.flush(), this.opts.intervalMs);
  }

  /** A frame for every observer, in order after the events pushed so far. */
  broadcast(text: string): void {
    this.flush();
    const to = [...this.observers.values()];
    this.afterWrite(() => {
      for (const o of to) {
        if (this.observers.get(o.conn.id) !== o || o.stale) continue;
        // Missed: it gets a snapshot with the next batch (was: it never learnt of this frame).
        if (o.conn.overloaded()) this.markStale(o);
        else o.conn.sendText(text);
      }
    }, text.length);
  }

  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const to = [...this.observers.values()];
    if (this.pending.length === 0 && this.skipped === 0) {
      // Nothing new, but one that missed a frame still gets its snapshot once it reads again.
      if (to.some((o) => o.stale)) this.afterWrite(() => this.sendBatch(null, to));
      return;
    }
    const bytes = this.pendingBytes;
    if (this.waiting + bytes > this.opts.maxWaitingBytes) {
      // The disk is behind: this batch is not kept. Once the batches before it have gone, every
      // observer is marked to get a snapshot instead of the next one (one marker queued at a time).
      this.discard();
      this.opts.onDrop?.('observer-batches-not-kept');
      if (this.gapQueued) return;
      this.gapQueued = true;
      this.afterWrite(() => {
        this.gapQueued = false;
        for (const o of to) this.markStale(o);
      });
      return;
    }
    const text = eventsFrame(this.labJson, this.pending, this.skipped);
    this.discard();
    this.afterWrite(() => this.sendBatch(text, to), text.length);
  }

  /** `text` null: only stale observers are served (a snapshot), the others have nothing new. */
  private sendBatch(text: string | null, to: Observer[]): void {
    let snapshot: string | null = null;
    const now = this.opts.now();
    for (const o of to) {
      if (this.observers.get(o.conn.id) !== o) continue; // left while the batch waited for the disk
      if (o.conn.overloaded()) {
        this.markStale(o);
        // Nothing is sent to it meanwhile, so a smaller backlog means it read: slow, not gone.
        const backlog = o.conn.backlogBytes?.() ?? Infinity;
        if (o.backedUpSince === null || backlog < o.lastBacklog) o.backedUpSince = now;
        o.lastBacklog = backlog;
        if (now - o.backedUpSince >= this.opts.cutOffMs) this.cutOff(o);
        continue;
      }
      o.backedUpSince = null;
      o.lastBacklog = Infinity;
      if (o.stale) {
        snapshot ??= this.snapshotText();
        o.conn.sendText(snapshot);
        o.stale = false;
      } else if (text !== null) o.conn.sendText(text);
    }
  }

  /** Missed a frame: a snapshot replaces what it missed, at the next batch or the next interval. */
  private markStale(o: Observer): void {
    if (!o.stale) this.missedBatches++;
    o.stale = true;
    if (this.timer === null) this.timer = setTimeout(() => this.flush(), this.opts.intervalMs);
  }

  /** Not reading for `cutOffMs`: told why (if it ever reads again) and disconnected; its buffers go. */
  private cutOff(o: Observer): void {
    this.observers.delete(o.conn.id);
    this.opts.onDrop?.('observer-cut-off');
    const message = `This observer did not read the lab's events for ${Math.round(this.opts.cutOffMs / 1000)} s and was cut off; connect again to watch`;
    sendFrame(o.conn, errorFrame('TOO_SLOW', { message }));
    o.conn.close(message);
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
    this.pendingBytes = 0;
    this.messageEvents = 0;
    this.skipped = 0;
  }
}
