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
  private readonly timers = new Map<string, { handle: unknown; due: number; fire: () => void }>();
  /** While frozen (the process is paused): each timer's time left, re-armed by `thaw`. */
  private frozen: Map<string, { left: number; fire: () => void }> | null = null;

  constructor(private readonly io: TimerIO) {}

  /** Arms `name` to call `fire` after `after` ms, replacing a timer of that name. */
  set(name: string, after: number, fire: () => void): void {
    this.cancel(name);
    if (this.frozen) {
      this.frozen.set(name, { left: after, fire });
      return;
    }
    const handle = this.io.setTimer(() => {
      this.timers.delete(name);
      fire();
    }, after);
    this.timers.set(name, { handle, due: this.io.now() + after, fire });
  }

  /** The process is paused (SIGSTOP): every timer stops, keeping the time it had left. */
  freeze(): void {
    if (this.frozen) return;
    const now = this.io.now();
    this.frozen = new Map();
    for (const [name, t] of this.timers) {
      this.io.clearTimer(t.handle);
      this.frozen.set(name, { left: Math.max(0, t.due - now), fire: t.fire });
    }
    this.timers.clear();
  }

  /** Resumed (SIGCONT): the timers run on with the time they had left when frozen. */
  thaw(): void {
    const frozen = this.frozen;
    if (!frozen) return;
    this.frozen = null;
    for (const [name, t] of frozen) this.set(name, t.left, t.fire);
  }

  cancel(name: string): void {
    this.frozen?.delete(name);
    const t = this.timers.get(name);
    if (!t) return;
    this.io.clearTimer(t.handle);
    this.timers.delete(name);
  }

  /** Every timer goes (a stop, a crash, a restart). */
  clear(): void {
    for (const t of this.timers.values()) this.io.clearTimer(t.handle);
    this.timers.clear();
    this.frozen = null;
  }

  /** Timers currently set, soonest first (frozen ones as if they ran on from now). */
  list(): TimerView[] {
    if (this.frozen)
      return [...this.frozen]
        .map(([name, t]) => ({ name, due: this.io.now() + t.left }))
        .sort((a, b) => a.due - b.due);
    return [...this.timers]
      .map(([name, t]) => ({ name, due: t.due }))
      .sort((a, b) => a.due - b.due);
  }
}
