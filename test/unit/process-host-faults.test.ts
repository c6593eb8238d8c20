// Issue 16, "Hosts contain what still throws": ProcessHost catches an exception from init or
// step, reports it with the event that caused it, and restarts the process from scratch (a crash
// and a recovery: state and timers dropped, init again); one that keeps throwing is stopped.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  withReports,
  type Algorithm,
  type Message,
} from '@shared/algorithms/algorithm.ts';
import {
  FAULT_WINDOW_MS,
  MAX_FAULTS,
  ProcessHost,
  type HostFault,
} from '@shared/sim/process-host.ts';
import { createRng } from '@shared/sim/rng.ts';
import { ManualClock } from '../helpers/manual-clock.ts';

interface S {
  starts: number;
  seen: number;
}
let starts = 0;
// Throws on BOOM, and on init when asked to; counts what it saw otherwise.
const fragile = (throwOnInit: () => boolean): Algorithm<S, Message> =>
  withReports<S, Message>({
    name: 'bully',
    messageTypes: ['BOOM', 'FINE'],
    init: () => {
      starts++;
      if (throwOnInit()) throw new Error('init failed');
      return {
        state: { starts, seen: 0 },
        effects: [{ kind: 'set-timer', name: 'beat', after: 100 }],
      };
    },
    step(s, e) {
      if (e.kind === 'message' && e.message.type === 'BOOM')
        throw new TypeError('cannot read x of undefined');
      return { state: { ...s, seen: s.seen + 1 }, effects: [] };
    },
    report: (s) => ({
      role: 'follower',
      coordinator: null,
      electing: false,
      detail: { seen: s.seen },
    }),
  });

const config = {
  self: 0,
  ids: [0, 1],
  ring: [0, 1],
  timing: DEFAULT_TIMING,
  detector: 'none' as const,
};

function setup(throwOnInit = () => false) {
  const clock = new ManualClock();
  const faults: HostFault[] = [];
  const host = new ProcessHost(fragile(throwOnInit), {
    send: () => {},
    report: () => {},
    setTimer: clock.setTimeout,
    clearTimer: clock.clearTimeout,
    now: clock.now,
    random: createRng(1),
    fault: (f) => faults.push(f),
  });
  return { clock, faults, host };
}

describe('process host containment', () => {
  it('restarts a process whose step throws, from scratch, and says which event did it', () => {
    starts = 0;
    const { host, faults, clock } = setup();
    host.start(config);
    host.deliver(1, { type: 'FINE' });
    expect(host.report?.detail).toEqual({ seen: 1 });
    expect(() => host.deliver(1, { type: 'BOOM' })).not.toThrow();
    expect(faults).toEqual([
      { error: 'cannot read x of undefined', event: 'message:BOOM', restarted: true },
    ]);
    // A fresh start: init ran again and the state is new.
    expect(starts).toBe(2);
    expect(host.isRunning).toBe(true);
    expect(host.report?.detail).toEqual({ seen: 0 });
    expect(host.timerList()).toEqual([{ name: 'beat', due: clock.now() + 100 }]);
  });

  it(`stops a process that throws ${MAX_FAULTS} times within ${FAULT_WINDOW_MS / 1000} s instead of restarting it forever`, () => {
    starts = 0;
    const { host, faults } = setup();
    host.start(config);
    for (let i = 0; i < MAX_FAULTS; i++) host.deliver(1, { type: 'BOOM' });
    expect(faults.map((f) => f.restarted)).toEqual([true, true, false]);
    expect(host.isRunning).toBe(false);
  });

  it('forgets old faults: a fault now and then is always restarted', () => {
    starts = 0;
    const { host, faults, clock } = setup();
    host.start(config);
    for (let i = 0; i < 5; i++) {
      host.deliver(1, { type: 'BOOM' });
      clock.advance(FAULT_WINDOW_MS);
    }
    expect(faults.every((f) => f.restarted)).toBe(true);
    expect(host.isRunning).toBe(true);
  });

  it('contains an init that throws, without a loop', () => {
    starts = 0;
    const { host, faults } = setup(() => true);
    expect(() => host.start(config)).not.toThrow();
    expect(faults.map((f) => [f.event, f.restarted])).toEqual([
      ['init', true],
      ['init', true],
      ['init', false],
    ]);
    expect(host.isRunning).toBe(false);
  });
});
