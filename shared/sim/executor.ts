// The effect executor: the one place an algorithm's effects (send, set-timer, cancel-timer,
// report) are interpreted, for every host. ProcessHost (a browser tab, a bot, the relay's
// server-side bots), the simulator and the explorer each say what the four actions mean for
// them (a socket send or a queued delivery; a real timer, a generation-checked queue entry or a
// pending event); the order, and the rules below, are kept here.
//
// - Effects run in the order the algorithm listed them.
// - The host stores the algorithm's new state before the first effect runs (`commit`), so an
//   effect that feeds the process again (a send to itself handled at once) sees the new state.
// - Setting a timer that is already set replaces it; cancelling one that is not set does nothing.
import type {
  AlgorithmConfig,
  AlgorithmEvent,
  Effect,
  Message,
  ProcessId,
  Report,
  StepContext,
  AnyAlgorithm,
} from '../algorithms/algorithm.ts';

/** What the four effects mean for one kind of host; `P` is the host's handle on the process. */
export interface EffectHandlers<P> {
  send(p: P, to: ProcessId, message: Message): void;
  /** Replaces a timer of the same name. */
  setTimer(p: P, name: string, after: number): void;
  cancelTimer(p: P, name: string): void;
  report(p: P, report: Report): void;
}

/** Carries out `effects` for process `p`, in order. */
export function execute<P>(p: P, effects: readonly Effect[], h: EffectHandlers<P>): void {
  for (let i = 0; i < effects.length; i++) {
    const e = effects[i];
    // A module that is not ours (a student's) may return anything: skip what is not an effect.
    if (!e || typeof e !== 'object') continue;
    switch (e.kind) {
      case 'send':
        h.send(p, e.to, e.message);
        break;
      case 'set-timer':
        h.setTimer(p, e.name, e.after);
        break;
      case 'cancel-timer':
        h.cancelTimer(p, e.name);
        break;
      case 'report':
        if (e.report && typeof e.report.role === 'string') h.report(p, e.report);
        break;
    }
  }
}

/** A host that also keeps the process's state: `commit` stores it before the effects run. */
export interface StateHandlers<P> extends EffectHandlers<P> {
  commit(p: P, state: unknown): void;
}

/** Starts (or restarts from scratch) a process: `init`, then its effects. */
export function startProcess<P>(
  algorithm: AnyAlgorithm,
  config: AlgorithmConfig,
  ctx: StepContext,
  p: P,
  h: StateHandlers<P>,
): void {
  const out = algorithm.init(config, ctx);
  h.commit(p, out.state);
  execute(p, out.effects, h);
}

/** Feeds one event to a process: `step`, then its effects. */
export function stepProcess<P>(
  algorithm: AnyAlgorithm,
  state: unknown,
  event: AlgorithmEvent,
  ctx: StepContext,
  p: P,
  h: StateHandlers<P>,
): void {
  const out = algorithm.step(state, event, ctx);
  h.commit(p, out.state);
  execute(p, out.effects, h);
}

/**
 * Timers by generation, for hosts that queue timer events instead of arming real timers (the
 * simulator): setting or cancelling a timer bumps its name's generation, and a queued firing
 * counts only if it carries the current one. Cancelling is O(1); stale entries are skipped.
 */
export class TimerGenerations {
  private readonly gen = new Map<string, number>();

  /** The generation a newly set timer fires with (it replaces any earlier one). */
  set(name: string): number {
    const g = (this.gen.get(name) ?? 0) + 1;
    this.gen.set(name, g);
    return g;
  }

  cancel(name: string): void {
    const g = this.gen.get(name);
    if (g !== undefined) this.gen.set(name, g + 1);
  }

  /**
   * True when a firing of `name` with generation `g` is live; it is then used up. The name keeps
   * its (bumped) generation, so a timer set later never shares a number with a stale entry.
   */
  fire(name: string, g: number): boolean {
    if (this.gen.get(name) !== g) return false;
    this.gen.set(name, g + 1);
    return true;
  }

  /** Every timer set so far dies (a crash or a restart), and later ones never collide with them. */
  invalidate(): void {
    for (const [k, g] of this.gen) this.gen.set(k, g + 1);
  }
}
