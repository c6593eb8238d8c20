// A hand-driven clock for code that takes a scheduler (ProcessHost's HostIO): timers fire only
// when the test advances time, in due order.
export class ManualClock {
  private t = 0;
  private nextId = 1;
  private readonly pending = new Map<number, { due: number; fn: () => void }>();

  now = (): number => this.t;

  setTimer = (fn: () => void, ms: number): number => {
    const id = this.nextId++;
    this.pending.set(id, { due: this.t + ms, fn });
    return id;
  };

  clearTimer = (handle: unknown): void => {
    this.pending.delete(handle as number);
  };

  get timerCount(): number {
    return this.pending.size;
  }

  /** Advances to `this.now() + ms`, firing due timers in order (bounded, so a timer loop cannot hang a test). */
  advance(ms: number): void {
    const end = this.t + ms;
    for (let guard = 0; guard < 100_000; guard++) {
      let nextId = -1;
      let next: { due: number; fn: () => void } | undefined;
      for (const [id, p] of this.pending) if (p.due <= end && (!next || p.due < next.due)) [nextId, next] = [id, p];
      if (!next) break;
      this.pending.delete(nextId);
      this.t = next.due;
      next.fn();
    }
    this.t = end;
  }
}
