// Wake-ups finer than Node's timers, for the fabric's injected delays. Node's setTimeout counts
// whole milliseconds against a loop clock read once per turn: armed for a message due in 49.3 ms
// it fires 50 to 51 ms later, so a 50 ms link delay came out 0.4 ms long at p50 and 1.2 ms at p99
// from the timer alone. A worker thread sleeps in Atomics.wait, whose timeout is fractional, until
// the earliest deadline, then posts a message, which wakes the event loop at once: 0.1 ms late at
// p50 and 0.26 ms at p99 at 2,000 wake-ups a second, for about 4 % of a core
// (docs/RELIABILITY.md, "Tail latency"). Never early: a wake-up runs only once its time has come.
import { Worker } from 'node:worker_threads';
import { EventQueue } from '@shared/sim/event-queue.ts';

/** A pending wake-up, also its handle; `fn` is null once it ran or was cleared. */
export class Wake {
  seq = 0;
  constructor(
    readonly at: number,
    public fn: (() => void) | null,
  ) {}
}

/** The worker (plain JavaScript, evaluated as is): sleep until the deadline, or until it changes. */
const SLEEPER = `
const { workerData, parentPort } = require('node:worker_threads');
const gen = new Int32Array(workerData, 0, 1);
const deadline = new Float64Array(workerData, 8, 1);
const now = () => Number(process.hrtime.bigint()) / 1e6;
for (;;) {
  const g = Atomics.load(gen, 0);
  const at = deadline[0];
  const wait = at - now();
  if (wait <= 0) {
    parentPort.postMessage(g);
    // Wait for the main thread's answer (a new deadline) before looking again.
    Atomics.wait(gen, 0, g);
  } else Atomics.wait(gen, 0, g, at === Infinity ? undefined : wait);
}`;

/** ms on the same monotonic clock as the worker's. */
const hrNow = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Most wake-ups run in one turn; the rest in the next, so I/O is not starved. */
const MAX_RUN = 10_000;
/** Cleared slots kept before a sweep (below this, they go as they come due). */
const MAX_CLEARED = 1024;

export class PreciseTimers {
  private readonly queue = new EventQueue<Wake>();
  /** [0]: bumped on every new deadline (the worker waits on it). */
  private readonly gen: Int32Array;
  /** [0]: the earliest deadline, hrNow ms (Infinity: none). */
  private readonly deadline: Float64Array;
  private worker: Worker | null = null;
  /** The deadline the worker was last given. */
  private told = Infinity;
  /** Wake-ups set and neither run nor cleared: while there are any, the worker holds the process open. */
  private live = 0;

  constructor() {
    const shared = new SharedArrayBuffer(16);
    this.gen = new Int32Array(shared, 0, 1);
    this.deadline = new Float64Array(shared, 8, 1);
    this.deadline[0] = Infinity;
  }

  /** Runs `fn` once `ms` (fractional) have passed, never before. */
  set(fn: () => void, ms: number): Wake {
    const worker = this.warm();
    const w = this.queue.push(new Wake(hrNow() + Math.max(0, ms), fn));
    // A pending wake-up keeps the process alive, as a pending setTimeout does.
    if (this.live++ === 0) worker.ref();
    if (w.at < this.told) this.tell(w.at);
    return w;
  }

  /**
   * Cancels `w`; its slot is dropped when it comes up (the worker may wake once for nothing), or
   * sooner: cleared slots are swept out once they outnumber the live ones (and 1,024), so a
   * scheduler re-armed for every message (delays lowered under traffic) cannot grow the heap
   * with slots due seconds from now.
   */
  clear(w: Wake): void {
    if (w.fn === null) return;
    w.fn = null;
    this.ended();
    const cleared = this.queue.size - this.live;
    if (cleared > MAX_CLEARED && cleared > this.live) this.queue.removeWhere((x) => x.fn === null);
  }

  /** Slots in the heap, cleared ones not yet swept included. */
  get size(): number {
    return this.queue.size;
  }

  private ended(): void {
    if (--this.live === 0) this.worker?.unref();
  }

  /** Starts the worker now (it takes tens of ms), not on the first wake-up; unreferenced until one is set. */
  warm(): Worker {
    if (this.worker) return this.worker;
    // No inherited flags: the sleeper needs no loader (tsx), and --input-type=module would make it a module.
    const worker = new Worker(SLEEPER, { eval: true, workerData: this.gen.buffer, execArgv: [] });
    worker.on('message', () => this.run());
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private run(): void {
    const now = hrNow();
    try {
      for (let n = 0; n < MAX_RUN; n++) {
        const head = this.queue.peek();
        if (!head || head.at > now) break;
        this.queue.pop();
        const fn = head.fn;
        if (fn === null) continue;
        head.fn = null;
        this.ended();
        fn();
      }
    } finally {
      // Always answer: the worker waits for a new deadline before it looks again.
      while (this.queue.peek()?.fn === null) this.queue.pop();
      this.tell(this.queue.peek()?.at ?? Infinity);
    }
  }

  private tell(at: number): void {
    this.told = at;
    this.deadline[0] = at;
    Atomics.add(this.gen, 0, 1);
    Atomics.notify(this.gen, 0);
  }
}
