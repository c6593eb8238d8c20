// The relay's notion of time, injectable so the scheduler and the labs can be driven by a manual
// clock in tests. `now` is monotonic ms (performance.now in the server), never wall-clock time.

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

type Immediate = ReturnType<typeof setImmediate>;
type Timeout = ReturnType<typeof setTimeout>;

/**
 * Node's setTimeout waits at least 1 ms even for 0, and the scheduler arms a 0 ms timer for
 * every message due now (link delay 0): those run on setImmediate, after pending I/O.
 */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => (ms <= 0 ? { immediate: setImmediate(fn) } : setTimeout(fn, ms)),
  clearTimeout: (handle) => {
    if (handle !== null && typeof handle === 'object' && 'immediate' in handle) clearImmediate((handle as { immediate: Immediate }).immediate);
    else clearTimeout(handle as Timeout);
  },
};
