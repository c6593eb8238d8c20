// Unit tests of the Bully state machine's step function, one rule per test, each citing the seed
// document it checks: 000 (lecture notes), 002 (Module 3), 003 (Elections).
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  roundTripBound,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type Effect,
} from '@shared/algorithms/algorithm.ts';
import {
  bully,
  bullyTimeouts,
  TIMER_COORDINATOR,
  TIMER_OK,
  type BullyMessage,
  type BullyState,
} from '@shared/algorithms/bully.ts';

const ids = [0, 1, 2, 3, 4, 5, 6, 7];
const ctx = { now: 0, random: () => 0.5 };
const UB = roundTripBound(DEFAULT_TIMING); // 2T + M = 210 with the default timing

function config(self: number, extra: Partial<AlgorithmConfig> = {}): AlgorithmConfig {
  return { self, ids, ring: ids, timing: DEFAULT_TIMING, detector: 'none', ...extra };
}
function start(self: number, extra: Partial<AlgorithmConfig> = {}) {
  return bully.init(config(self, extra), ctx);
}
function step(state: BullyState, event: AlgorithmEvent<BullyMessage>) {
  return bully.step(state, event, ctx);
}
const msg = (from: number, message: BullyMessage): AlgorithmEvent<BullyMessage> => ({
  kind: 'message',
  from,
  message,
});
const timer = (name: string): AlgorithmEvent<BullyMessage> => ({ kind: 'timer', name });
function sends(effects: Effect<BullyMessage>[]): string[] {
  return effects.flatMap((e) => (e.kind === 'send' ? [`${e.message.type}->${e.to}`] : []));
}
function timersSet(effects: Effect<BullyMessage>[]): Record<string, number> {
  return Object.fromEntries(
    effects.flatMap((e) => (e.kind === 'set-timer' ? [[e.name, e.after]] : [])),
  );
}
function cancelled(effects: Effect<BullyMessage>[]): string[] {
  return effects.flatMap((e) => (e.kind === 'cancel-timer' ? [e.name] : []));
}
/** A process in steady state following `coordinator` (detector 'none'). */
function follower(self: number, coordinator = 7): BullyState {
  return start(self, { initialCoordinator: coordinator }).state;
}
/** A process that has started an election with `elect`. */
function electing(self: number): BullyState {
  return step(follower(self), { kind: 'elect' }).state;
}

describe('bully: starting an election', () => {
  it('bully: an initiator sends ELECTION to every higher id and waits UB = 2T + M for an OK (003, 002)', () => {
    const out = step(follower(4), { kind: 'elect' });
    expect(sends(out.effects)).toEqual(['ELECTION->5', 'ELECTION->6', 'ELECTION->7']);
    expect(timersSet(out.effects)).toEqual({ [TIMER_OK]: UB });
    expect(bully.report(out.state)).toMatchObject({
      role: 'electing',
      electing: true,
      coordinator: null,
    });
  });

  it('bully: the highest id declares itself at once and sends COORDINATOR to all lower ids only (000 pseudocode)', () => {
    const out = step(follower(7, 7), { kind: 'elect' });
    expect(sends(out.effects)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `COORDINATOR->${i}`));
    expect(timersSet(out.effects)).toEqual({});
    expect(bully.report(out.state)).toMatchObject({
      role: 'coordinator',
      coordinator: 7,
      electing: false,
    });
  });

  it('bully: a process holds an election on start when no coordinator is given (003: "A process holds an election on start or re-start")', () => {
    expect(sends(start(2).effects)).toEqual([
      'ELECTION->3',
      'ELECTION->4',
      'ELECTION->5',
      'ELECTION->6',
      'ELECTION->7',
    ]);
    expect(sends(start(7, { initialCoordinator: null }).effects)).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((i) => `COORDINATOR->${i}`),
    );
  });

  it('bully: a steady start believes the given coordinator and sends nothing', () => {
    const f = start(3, { initialCoordinator: 7 });
    expect(sends(f.effects)).toEqual([]);
    expect(bully.report(f.state)).toMatchObject({
      role: 'follower',
      coordinator: 7,
      electing: false,
    });
    const c = start(7, { initialCoordinator: 7 });
    expect(sends(c.effects)).toEqual([]);
    expect(bully.report(c.state)).toMatchObject({ role: 'coordinator', coordinator: 7 });
  });

  it('bully: the elect event starts a new election even while one is being held', () => {
    const first = electing(4);
    const again = step(first, { kind: 'elect' });
    expect(sends(again.effects)).toEqual(['ELECTION->5', 'ELECTION->6', 'ELECTION->7']);
    expect(again.state.elections).toBe(first.elections + 1);
  });
});

describe('bully: the initiator after its ELECTION', () => {
  it('bully: no OK within UB makes the initiator coordinator, announcing to lower ids only (003: "If no reply is received during a time-out period")', () => {
    const out = step(electing(5), timer(TIMER_OK));
    expect(sends(out.effects)).toEqual([0, 1, 2, 3, 4].map((i) => `COORDINATOR->${i}`));
    expect(bully.report(out.state)).toMatchObject({
      role: 'coordinator',
      coordinator: 5,
      electing: false,
    });
  });

  it('bully: an OK makes the initiator wait for COORDINATOR under its own timeout (003: "it sets a time out on the wait for the coordinator message")', () => {
    const s = electing(4);
    const out = step(s, msg(6, { type: 'OK', election: s.elections }));
    expect(sends(out.effects)).toEqual([]);
    expect(cancelled(out.effects)).toContain(TIMER_OK);
    expect(timersSet(out.effects)).toEqual({
      [TIMER_COORDINATOR]: bullyTimeouts(DEFAULT_TIMING).coordinatorTimeout,
    });
    expect(bully.report(out.state)).toMatchObject({
      role: 'waiting',
      electing: true,
      coordinator: null,
    });
  });

  it('bully: a second OK changes nothing while waiting', () => {
    const s = electing(4);
    const waiting = step(s, msg(6, { type: 'OK', election: s.elections })).state;
    const out = step(waiting, msg(5, { type: 'OK', election: s.elections }));
    expect(out.state).toBe(waiting);
    expect(out.effects).toEqual([]);
  });

  it('bully: no COORDINATOR before the timeout starts a new election (000: "If it does not receive this message in time, it re-broadcasts the election message")', () => {
    const s = electing(4);
    const waiting = step(s, msg(6, { type: 'OK', election: s.elections })).state;
    const out = step(waiting, timer(TIMER_COORDINATOR));
    expect(sends(out.effects)).toEqual(['ELECTION->5', 'ELECTION->6', 'ELECTION->7']);
    expect(out.state.elections).toBe(s.elections + 1);
    expect(bully.report(out.state).role).toBe('electing');
  });

  it('bully: an OK answering an earlier election of ours is ignored', () => {
    const s = electing(4);
    const out = step(s, msg(6, { type: 'OK', election: s.elections - 1 }));
    expect(out.state).toBe(s);
  });

  it('bully: an OK timeout that fires after the process moved on does nothing', () => {
    const s = electing(4);
    const waiting = step(s, msg(6, { type: 'OK', election: s.elections })).state;
    expect(step(waiting, timer(TIMER_OK)).state).toBe(waiting);
    expect(step(follower(4), timer(TIMER_COORDINATOR)).effects).toEqual([]);
  });
});

describe('bully: receiving ELECTION', () => {
  it('bully: ELECTION from a lower id is answered OK and the receiver holds its own election (000: "the receiver sends an OK message back ... The receiver then holds an election")', () => {
    const out = step(follower(5), msg(4, { type: 'ELECTION', election: 3 }));
    expect(sends(out.effects)).toEqual(['OK->4', 'ELECTION->6', 'ELECTION->7']);
    const ok = out.effects.find((e) => e.kind === 'send' && e.message.type === 'OK');
    expect(ok).toMatchObject({ message: { election: 3 } }); // it echoes the election it answers
  });

  it('bully: a process already holding an election only answers OK (000: "unless it is already holding one")', () => {
    const s = electing(5);
    expect(sends(step(s, msg(4, { type: 'ELECTION', election: 1 })).effects)).toEqual(['OK->4']);
    const waiting = step(s, msg(6, { type: 'OK', election: s.elections })).state;
    expect(sends(step(waiting, msg(3, { type: 'ELECTION', election: 1 })).effects)).toEqual([
      'OK->3',
    ]);
  });

  it('bully: a coordinator receiving ELECTION answers OK and bullies that sender alone with COORDINATOR (not every lower id again)', () => {
    // Re-announcing to all for every ELECTION made the highest process send N-1 COORDINATORs per
    // ELECTION it got: 28,804 COORDINATORs in 3 s for N = 25 on links slower than UB.
    for (const coordinator of [follower(7, 7), step(electing(6), timer(TIMER_OK)).state]) {
      const out = step(coordinator, msg(2, { type: 'ELECTION', election: 1 }));
      expect(sends(out.effects)).toEqual(['OK->2', 'COORDINATOR->2']);
      expect(bully.report(out.state)).toMatchObject({ role: 'coordinator', electing: false });
    }
  });
});

describe('bully: receiving COORDINATOR', () => {
  it('bully: COORDINATOR from a higher id is believed and ends the election, cancelling its timers', () => {
    const s = electing(4);
    const waiting = step(s, msg(6, { type: 'OK', election: s.elections })).state;
    for (const before of [s, waiting]) {
      const out = step(before, msg(6, { type: 'COORDINATOR' }));
      expect(sends(out.effects)).toEqual([]);
      expect(cancelled(out.effects)).toEqual(expect.arrayContaining([TIMER_OK, TIMER_COORDINATOR]));
      expect(bully.report(out.state)).toMatchObject({
        role: 'follower',
        coordinator: 6,
        electing: false,
      });
    }
  });

  it('bully: a coordinator steps down for a higher one (000: "If process 7 is ever restarted, it will just send the others a COORDINATOR message and bully them")', () => {
    const six = step(electing(6), timer(TIMER_OK)).state;
    expect(bully.report(six).role).toBe('coordinator');
    const out = step(six, msg(7, { type: 'COORDINATOR' }));
    expect(bully.report(out.state)).toMatchObject({ role: 'follower', coordinator: 7 });
  });

  it('bully: COORDINATOR from a lower id starts a new election (000: "if P receives a victory message from a process with a lower ID number, it immediately initiates a new election")', () => {
    const out = step(follower(5), msg(2, { type: 'COORDINATOR' }));
    expect(sends(out.effects)).toEqual(['ELECTION->6', 'ELECTION->7']);
    expect(bully.report(out.state).role).toBe('electing');
    const top = step(follower(7, 7), msg(2, { type: 'COORDINATOR' }));
    expect(sends(top.effects)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `COORDINATOR->${i}`));
  });

  it('bully: COORDINATOR from a lower id does not restart an election already being held', () => {
    const s = electing(5);
    const out = step(s, msg(2, { type: 'COORDINATOR' }));
    expect(out.state).toBe(s);
    expect(out.effects).toEqual([]);
  });
});

describe('bully: timeouts and reports', () => {
  it('bully: the OK timeout is UB = 2T + M and the COORDINATOR timeout outlasts the worst chain 4T + 3M (000, 002, 003)', () => {
    const timing = {
      transmission: 40,
      processing: 5,
      heartbeatInterval: 500,
      heartbeatTimeout: 1500,
    };
    const t = bullyTimeouts(timing);
    expect(t.okTimeout).toBe(2 * 40 + 5);
    expect(t.coordinatorTimeout).toBeGreaterThan(4 * 40 + 3 * 5);
    expect(t.coordinatorTimeout).toBe(2 * t.okTimeout + 40 + 5);
  });

  it('bully: options override the timeouts; invalid values fall back to the derived ones', () => {
    expect(bullyTimeouts(DEFAULT_TIMING, { okTimeout: 99, coordinatorTimeout: 999 })).toEqual({
      okTimeout: 99,
      coordinatorTimeout: 999,
    });
    expect(bullyTimeouts(DEFAULT_TIMING, { okTimeout: -1, coordinatorTimeout: 'x' })).toEqual(
      bullyTimeouts(DEFAULT_TIMING),
    );
    const out = step(start(4, { initialCoordinator: 7, options: { okTimeout: 77 } }).state, {
      kind: 'elect',
    });
    expect(timersSet(out.effects)).toEqual({ [TIMER_OK]: 77 });
  });

  it('bully: a report effect accompanies every change of role or coordinator', () => {
    const init = start(4, { initialCoordinator: 7 });
    expect(init.effects.at(-1)).toEqual({ kind: 'report', report: bully.report(init.state) });
    const out = step(init.state, { kind: 'elect' });
    expect(out.effects.at(-1)).toEqual({
      kind: 'report',
      report: expect.objectContaining({ role: 'electing', electing: true }),
    });
  });

  it('bully: step never mutates the state it is given', () => {
    const deepFreeze = <T>(o: T): T => {
      if (o && typeof o === 'object') {
        for (const v of Object.values(o)) deepFreeze(v);
        Object.freeze(o);
      }
      return o;
    };
    const s = deepFreeze(electing(4));
    const snapshot = JSON.stringify(s);
    const events: AlgorithmEvent<BullyMessage>[] = [
      msg(6, { type: 'OK', election: s.elections }),
      msg(2, { type: 'ELECTION', election: 1 }),
      msg(6, { type: 'COORDINATOR' }),
      msg(1, { type: 'COORDINATOR' }),
      timer(TIMER_OK),
      { kind: 'elect' },
    ];
    for (const e of events) expect(() => step(s, e)).not.toThrow();
    expect(JSON.stringify(s)).toBe(snapshot);
  });
});
