// The one hand-driven clock of the tests: time moves only when the test says, and due timers fire
// in order. It is the relay's `Clock` (server/clock/clock.ts) and, through `setTimeout`/`clearTimeout`,
// a process host's timers (HostIO's setTimer/clearTimer). `armed` counts the timers ever set: the
// relay promises one timer per lab, not one per message.
import type { Clock } from '../../server/clock/clock.ts';

export class ManualClock implements Clock {
  private t = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  armed = 0;

  now = (): number => this.t;

  setTimeout = (fn: () => void, ms: number): number => {
    this.armed++;
    const id = this.next++;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  };

  clearTimeout = (handle: unknown): void => {
    this.timers.delete(handle as number);
  };

  /** Timers set and not yet fired or cleared. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward, firing due timers in order (bounded: at most 100,000 firings, so a timer loop cannot hang a test). */
  advance(ms: number): void {
    const end = this.t + ms;
    for (let n = 0; n < 100_000; n++) {
      let first: [number, { at: number; fn: () => void }] | null = null;
      for (const e of this.timers)
        if (e[1].at <= end && (!first || e[1].at < first[1].at)) first = e;
      if (!first) break;
      this.timers.delete(first[0]);
      this.t = Math.max(this.t, first[1].at);
      first[1].fn();
    }
    this.t = end;
  }
}
