// A process's named timers on a host's real clock (ProcessHost, the code-mode sandbox's host, hand
// mode's runner): setting a name again replaces it, a timer that fires forgets itself, and the
// view lists them soonest first. The effect executor decides what firing means; this only keeps
// the handles.

/** The part of a host's I/O (process-host.ts HostIO) that timers need. */
interface TimerIO {
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  now(): number;
}

export interface TimerView {
  name: string;
  /** `io.now()` value at which it fires. */
  due: number;
}

export class NamedTimers {
  private readonly timers = new Map<string, { handle: unknown; due: number }>();

  constructor(private readonly io: TimerIO) {}

  /** Arms `name` to call `fire` after `after` ms, replacing a timer of that name. */
  set(name: string, after: number, fire: () => void): void {
    this.cancel(name);
    const handle = this.io.setTimer(() => {
      this.timers.delete(name);
      fire();
    }, after);
    this.timers.set(name, { handle, due: this.io.now() + after });
  }

  cancel(name: string): void {
    const t = this.timers.get(name);
    if (!t) return;
    this.io.clearTimer(t.handle);
    this.timers.delete(name);
  }

  /** Every timer goes (a stop, a crash, a restart). */
  clear(): void {
    for (const t of this.timers.values()) this.io.clearTimer(t.handle);
    this.timers.clear();
  }

  /** Timers currently set, soonest first. */
  list(): TimerView[] {
    return [...this.timers].map(([name, t]) => ({ name, due: t.due })).sort((a, b) => a.due - b.due);
  }
}
