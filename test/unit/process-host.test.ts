import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  withReports,
  type Algorithm,
  type Message,
} from '@shared/algorithms/algorithm.ts';
import { ProcessHost, type HostEvent } from '@shared/sim/process-host.ts';
import { createRng } from '@shared/sim/rng.ts';
import { ManualClock } from '../helpers/manual-clock.ts';

// A countdown algorithm: on start it sets `tick` for 100 ms; each tick sends TICK to process 1
// and re-arms, until `stop` arrives, which cancels the timer.
interface S {
  ticks: number;
  stopped: boolean;
}
const countdown: Algorithm<S, Message> = withReports<S, Message>({
  name: 'bully',
  messageTypes: ['TICK'],
  init: () => ({
    state: { ticks: 0, stopped: false },
    effects: [{ kind: 'set-timer', name: 'tick', after: 100 }],
  }),
  step(s, e) {
    if (e.kind === 'timer')
      return {
        state: { ...s, ticks: s.ticks + 1 },
        effects: [
          { kind: 'send', to: 1, message: { type: 'TICK', n: s.ticks } },
          { kind: 'set-timer', name: 'tick', after: 100 },
        ],
      };
    if (e.kind === 'message' && e.message.type === 'STOP')
      return { state: { ...s, stopped: true }, effects: [{ kind: 'cancel-timer', name: 'tick' }] };
    return { state: s, effects: [] };
  },
  report: (s) => ({
    role: s.stopped ? 'stopped' : 'ticking',
    coordinator: null,
    electing: false,
    detail: { ticks: s.ticks },
  }),
});

const config = {
  self: 0,
  ids: [0, 1],
  ring: [0, 1],
  timing: DEFAULT_TIMING,
  detector: 'none' as const,
};

function setup() {
  const clock = new ManualClock();
  const sent: Message[] = [];
  const reports: unknown[] = [];
  const log: HostEvent[] = [];
  const host = new ProcessHost(
    countdown,
    {
      send: (_to, m) => sent.push(m),
      report: (r) => reports.push(r),
      setTimer: clock.setTimeout,
      clearTimer: clock.clearTimeout,
      now: clock.now,
      random: createRng(1),
    },
    (e) => log.push(e),
  );
  return { clock, sent, reports, log, host };
}

describe('process host', () => {
  it('process host: executes timers and sends, and reports every state change', () => {
    const { clock, sent, reports, host } = setup();
    host.start(config);
    expect(host.timerList()).toEqual([{ name: 'tick', due: 100 }]);
    clock.advance(350);
    expect(sent.map((m) => m.n)).toEqual([0, 1, 2]);
    expect(reports).toHaveLength(4);
    expect(host.report?.detail).toEqual({ ticks: 3 });
  });

  it('process host: pause freezes its timers with their time left and handles nothing; resume runs them on', () => {
    const { clock, sent, host } = setup();
    host.start(config);
    clock.advance(130); // tick 0 at 100; the next is due at 200, 70 ms left
    host.pause();
    expect(clock.pending).toBe(0);
    clock.advance(1000);
    host.deliver(1, { type: 'STOP' });
    expect(sent).toHaveLength(1);
    expect(host.report?.role).toBe('ticking');
    host.resume();
    expect(host.timerList()).toEqual([{ name: 'tick', due: 1200 }]);
    clock.advance(69);
    expect(sent).toHaveLength(1);
    clock.advance(1);
    expect(sent.map((m) => m.n)).toEqual([0, 1]);
  });

  it('process host: a stop while paused ends the pause; a restart runs from scratch', () => {
    const { clock, sent, host } = setup();
    host.start(config);
    host.pause();
    host.start(config);
    clock.advance(100);
    expect(sent).toHaveLength(1);
  });

  it('process host: a cancelled timer never fires', () => {
    const { clock, sent, host } = setup();
    host.start(config);
    clock.advance(150);
    host.deliver(1, { type: 'STOP' });
    clock.advance(1000);
    expect(sent).toHaveLength(1);
    expect(clock.pending).toBe(0);
    expect(host.timerList()).toEqual([]);
  });

  it('process host: stop (a crash) drops state and timers; start again begins from scratch', () => {
    const { clock, sent, host, log } = setup();
    host.start(config);
    clock.advance(250);
    host.stop();
    expect(host.isRunning).toBe(false);
    clock.advance(1000);
    expect(sent).toHaveLength(2);
    host.deliver(1, { type: 'STOP' });
    expect(log.filter((e) => e.kind === 'in')).toHaveLength(2);
    host.start(config);
    clock.advance(100);
    expect(sent.at(-1)).toEqual({ type: 'TICK', n: 0 });
  });
});
