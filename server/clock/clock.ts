// The relay's notion of time, injectable so the scheduler and the labs can be driven by a manual
// clock in tests. `now` is monotonic ms (performance.now in the server), never wall-clock time.

import { PreciseTimers, Wake } from './precise-timer.ts';

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  /** A timer to a fraction of a ms (the fabric's delays), where the clock has one; cleared by `clearTimeout`. */
  setPreciseTimeout?(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

type Immediate = ReturnType<typeof setImmediate>;
type Timeout = ReturnType<typeof setTimeout>;

/** One worker for the whole relay (server/clock/precise-timer.ts), started by the relay or the first precise timer. */
let precise: PreciseTimers | null = null;

export function preciseTimers(): PreciseTimers {
  return (precise ??= new PreciseTimers());
}

/**
 * Node's setTimeout waits at least 1 ms even for 0, and the scheduler arms a 0 ms timer for
 * every message due now (link delay 0): those run on setImmediate, after pending I/O.
 */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => (ms <= 0 ? { immediate: setImmediate(fn) } : setTimeout(fn, ms)),
  setPreciseTimeout: (fn, ms) =>
    ms <= 0 ? { immediate: setImmediate(fn) } : preciseTimers().set(fn, ms),
  clearTimeout: (handle) => {
    if (handle instanceof Wake) precise?.clear(handle);
    else if (handle !== null && typeof handle === 'object' && 'immediate' in handle)
      clearImmediate((handle as { immediate: Immediate }).immediate);
    else clearTimeout(handle as Timeout);
  },
};
