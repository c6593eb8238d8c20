// One timer queue per lab: every held message sits in a binary heap ordered by due time, and a
// single clock timer is armed for the earliest one (Maelstrom's priority queue; never a
// setTimeout per message). The queue runs on its own "fabric time", which stands still while
// the lab is paused, so a held message keeps the delay it had left when the lab resumes.
import { EventQueue, type DistributiveOmit, type Timed } from '@shared/sim/event-queue.ts';
import type { Clock } from '../clock/clock.ts';

/** At most this many entries per timer pass; the rest go in the next pass so I/O is not starved. */
const MAX_BATCH = 20_000;

export class Scheduler<T extends Timed> {
  private readonly queue = new EventQueue<T>();
  private timer: unknown = null;
  private timerAt = Infinity;
  private pausedAt: number | null = null;
  /** Total ms spent paused; fabric time = clock time - offset. */
  private offset = 0;
  private disposed = false;
  /** Inside onDue: what it pushes waits for the timer (no re-entry, no unbounded recursion). */
  private serving = false;
  /** Sum of `sizeOf` over the held entries (the lab's byte cap reads it). */
  bytes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly onDue: (entry: T) => void,
    private readonly onError: (err: unknown) => void = () => {},
    private readonly sizeOf: (entry: T) => number = () => 0,
  ) {}

  /** Fabric time in ms: the clock, minus the time spent paused. */
  now(): number {
    return (this.pausedAt ?? this.clock.now()) - this.offset;
  }

  get paused(): boolean {
    return this.pausedAt !== null;
  }

  get size(): number {
    return this.queue.size;
  }

  push(entry: DistributiveOmit<T, 'seq'>): T {
    // Due now, and nothing held is due before it: serve it at once. Through the timer it would
    // wait a loop turn behind whatever socket reads came first, which is what held the relay's
    // closed-loop throughput and its p99 far from a bare forwarder's (issue 16). It never enters
    // the heap then: a push and a pop per message through its three arrays bought nothing.
    if (
      !this.paused &&
      !this.disposed &&
      !this.serving &&
      entry.at <= this.now() &&
      this.queue.wouldLead(entry.at)
    ) {
      const e = this.queue.stamp(entry);
      this.serve(e);
      return e;
    }
    const e = this.queue.push(entry);
    this.bytes += this.sizeOf(e);
    if (!this.paused && e.at < this.timerAt) this.arm();
    return e;
  }

  private serve(e: T): void {
    this.serving = true;
    try {
      this.onDue(e);
    } catch (err) {
      this.onError(err);
    } finally {
      this.serving = false;
    }
  }

  pause(): void {
    if (this.paused) return;
    this.pausedAt = this.clock.now();
    this.disarm();
  }

  resume(): void {
    if (this.pausedAt === null) return;
    this.offset += this.clock.now() - this.pausedAt;
    this.pausedAt = null;
    this.arm();
  }

  /** The `k` soonest held entries, in due order, without sorting the whole queue. */
  first(k: number): T[] {
    return this.queue.firstN(k);
  }

  /** Held entries in due order (a copy). */
  list(): T[] {
    return this.queue.toSortedArray();
  }

  /** Removes and returns the entries matching `pred` (a manual release, reset). O(n): rare operations only. */
  take(pred: (e: T) => boolean): T[] {
    const removed = this.queue.removeWhere(pred);
    for (const e of removed) this.bytes -= this.sizeOf(e);
    if (removed.length && !this.paused) this.arm();
    return removed;
  }

  /** Removes every held entry. */
  drain(): T[] {
    const all = this.queue.toSortedArray();
    this.queue.clear();
    this.bytes = 0;
    this.disarm();
    return all;
  }

  dispose(): void {
    this.disposed = true;
    this.disarm();
    this.queue.clear();
    this.bytes = 0;
  }

  private arm(): void {
    if (this.disposed) return;
    const head = this.queue.peek();
    if (!head) return this.disarm();
    if (this.timer !== null && this.timerAt <= head.at) return;
    this.disarm();
    this.timerAt = head.at;
    const wait = head.at - this.now();
    // To the fraction of a ms where the clock can (the real one: server/clock/precise-timer.ts); else
    // whole ms, rounded up. Either way never before it is due (a timer that fires early re-arms).
    this.timer = this.clock.setPreciseTimeout
      ? this.clock.setPreciseTimeout(this.onTimer, wait)
      : this.clock.setTimeout(this.onTimer, Math.max(0, Math.ceil(wait)));
  }

  private disarm(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  private readonly onTimer = (): void => this.fire();

  private fire(): void {
    this.timer = null;
    this.timerAt = Infinity;
    if (this.paused || this.disposed) return;
    const limit = this.now();
    for (let n = 0; n < MAX_BATCH; n++) {
      const head = this.queue.peek();
      if (!head || head.at > limit || this.paused) break;
      this.queue.pop();
      this.bytes -= this.sizeOf(head);
      this.serve(head);
    }
    if (!this.paused) this.arm();
  }
}
