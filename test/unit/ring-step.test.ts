// Unit tests of the ring algorithm's step function (shared/algorithms/ring.ts), rule by rule from 002.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type DetectorMode,
  type Effect,
  type StepContext,
} from '@shared/algorithms/algorithm.ts';
import { ring, type RingMessage, type RingState } from '@shared/algorithms/ring.ts';
import { TIMER_SILENCE } from '@shared/algorithms/failure-detector.ts';
import { WATCHDOG_TIMER } from '@shared/algorithms/ring-detection.ts';

const ids = [0, 1, 2, 3, 4, 5, 6, 7];
const ctx: StepContext = { now: 0, random: () => 0.5 };
const config = (
  self: number,
  detector: DetectorMode = 'none',
  initialCoordinator: number | null = 7,
): AlgorithmConfig => ({
  self,
  ids,
  ring: ids,
  timing: DEFAULT_TIMING,
  detector,
  ...(initialCoordinator === null ? {} : { initialCoordinator }),
});
const start = (self: number, detector: DetectorMode = 'none') =>
  ring.init(config(self, detector), ctx).state;
const deliver = (s: RingState, from: number, message: Record<string, unknown>) =>
  ring.step(s, { kind: 'message', from, message } as AlgorithmEvent<RingMessage>, ctx);
const sends = (effects: Effect<RingMessage>[]) =>
  effects.flatMap((e) => (e.kind === 'send' ? [{ to: e.to, ...e.message }] : []));
const ringSends = (effects: Effect<RingMessage>[]) =>
  sends(effects).filter((m) => m.type === 'ELECTION' || m.type === 'COORDINATOR');

describe('ring step (002: A Ring Algorithm)', () => {
  it('ring: the initiator "builds an ELECTION message which contains its own ID number" and sends it to its successor', () => {
    const out = ring.step(start(5), { kind: 'elect' }, ctx);
    expect(ringSends(out.effects)).toEqual([
      { to: 6, type: 'ELECTION', list: [5], eid: expect.stringMatching(/^5-/), seq: 1 },
    ]);
    expect(ring.report(out.state)).toMatchObject({
      role: 'initiator',
      electing: true,
      activeList: [5],
      successor: 6,
    });
  });

  it('ring: "each process adds its own number and forwards to next", acknowledging the hop', () => {
    const out = deliver(start(6), 5, { type: 'ELECTION', eid: '5-1', list: [5], seq: 4 });
    expect(sends(out.effects)).toEqual([
      { to: 5, type: 'ACK', seq: 4 },
      { to: 7, type: 'ELECTION', eid: '5-1', list: [5, 6], seq: 1 },
    ]);
    expect(ring.report(out.state)).toMatchObject({
      role: 'participant',
      electing: true,
      activeList: [5, 6],
    });
  });

  it('ring: when the message returns the initiator "sees its own process ID in the list" and circulates COORDINATOR with the highest', () => {
    const initiator = ring.step(start(5), { kind: 'elect' }, ctx).state;
    const eid = initiator.open[0]!;
    const out = deliver(initiator, 4, {
      type: 'ELECTION',
      eid,
      list: [5, 6, 0, 1, 2, 3, 4],
      seq: 1,
    });
    expect(ringSends(out.effects)).toEqual([
      { to: 6, type: 'COORDINATOR', eid, coordinator: 6, origin: 5, seq: 2 },
    ]);
    expect(ring.report(out.state)).toMatchObject({
      coordinator: 6,
      electing: false,
      activeList: [5, 6, 0, 1, 2, 3, 4],
    });
  });

  it('ring: a process receiving COORDINATOR sets its coordinator and forwards it unchanged', () => {
    const joined = deliver(start(0), 6, {
      type: 'ELECTION',
      eid: '5-1',
      list: [5, 6],
      seq: 1,
    }).state;
    const out = deliver(joined, 6, {
      type: 'COORDINATOR',
      eid: '5-1',
      coordinator: 6,
      origin: 5,
      seq: 2,
    });
    expect(ringSends(out.effects)).toEqual([
      { to: 1, type: 'COORDINATOR', eid: '5-1', coordinator: 6, origin: 5, seq: 2 },
    ]);
    expect(ring.report(out.state)).toMatchObject({
      role: 'follower',
      coordinator: 6,
      electing: false,
    });
  });

  it('ring: COORDINATOR stops when it gets back to the process that started it', () => {
    const initiator = ring.step(start(5), { kind: 'elect' }, ctx).state;
    const eid = initiator.open[0]!;
    const done = deliver(initiator, 4, {
      type: 'ELECTION',
      eid,
      list: [5, 6, 0, 1, 2, 3, 4],
      seq: 1,
    }).state;
    const out = deliver(done, 4, { type: 'COORDINATOR', eid, coordinator: 6, origin: 5, seq: 3 });
    expect(ringSends(out.effects)).toEqual([]);
    expect(sends(out.effects)).toEqual([{ to: 4, type: 'ACK', seq: 3 }]);
  });

  it('ring: a COORDINATOR whose origin died is passed on at most once, so it cannot circulate forever', () => {
    const once = deliver(start(1), 0, {
      type: 'COORDINATOR',
      eid: '3-9',
      coordinator: 6,
      origin: 3,
      seq: 1,
    }).state;
    const twice = deliver(once, 0, {
      type: 'COORDINATOR',
      eid: '3-9',
      coordinator: 6,
      origin: 3,
      seq: 2,
    });
    expect(ringSends(twice.effects)).toEqual([]);
  });

  it('ring: if the initiator died, the first process to see its own id again completes the circuit', () => {
    // 2 started [2,3,...] and died; 3 gets the list back from 1 (2 is skipped as down).
    const joined = deliver(start(3), 2, { type: 'ELECTION', eid: '2-1', list: [2], seq: 1 }).state;
    const out = deliver(joined, 1, {
      type: 'ELECTION',
      eid: '2-1',
      list: [2, 3, 4, 5, 6, 0, 1],
      seq: 1,
    });
    expect(ringSends(out.effects)).toEqual([
      { to: 4, type: 'COORDINATOR', eid: '2-1', coordinator: 6, origin: 3, seq: 2 },
    ]);
  });

  it('ring: two elections at once are both forwarded ("OK to have two elections at once", 002)', () => {
    const a = deliver(start(3), 2, { type: 'ELECTION', eid: '2-1', list: [2], seq: 1 });
    const b = deliver(a.state, 2, { type: 'ELECTION', eid: '5-1', list: [5, 6, 0, 1, 2], seq: 2 });
    expect(ringSends(b.effects)).toEqual([
      { to: 4, type: 'ELECTION', eid: '5-1', list: [5, 6, 0, 1, 2, 3], seq: 2 },
    ]);
    expect(b.state.open).toEqual(['2-1', '5-1']);
    // Still electing until both COORDINATORs have passed.
    const c = deliver(b.state, 2, {
      type: 'COORDINATOR',
      eid: '2-1',
      coordinator: 6,
      origin: 2,
      seq: 3,
    });
    expect(ring.report(c.state).electing).toBe(true);
    const d = deliver(c.state, 2, {
      type: 'COORDINATOR',
      eid: '5-1',
      coordinator: 6,
      origin: 5,
      seq: 4,
    });
    expect(ring.report(d.state).electing).toBe(false);
  });

  it('ring: a process alone on the ring elects itself once every successor failed to ACK', () => {
    let s = ring.step(start(2), { kind: 'elect' }, ctx).state;
    for (let i = 0; i < ids.length && s.open.length > 0; i++)
      s = ring.step(s, { kind: 'timer', name: `ack:${s.fwd.pending[0]!.seq}` }, ctx).state;
    expect(ring.report(s)).toMatchObject({
      coordinator: 2,
      electing: false,
      role: 'coordinator',
      successor: null,
      activeList: [2],
    });
  });

  it('ring: a process started without a coordinator holds an election (002: "when the system is initialized")', () => {
    const out = ring.init(config(3, 'none', null), ctx);
    expect(ringSends(out.effects)).toEqual([
      { to: 4, type: 'ELECTION', eid: expect.stringMatching(/^3-/), list: [3], seq: 1 },
    ]);
  });

  it('ring: heartbeat silence from the coordinator starts an election (001: "if no response in T time units, Pi initiates an election")', () => {
    const follower = start(2, 'heartbeat');
    const out = ring.step(follower, { kind: 'timer', name: TIMER_SILENCE }, ctx);
    expect(ringSends(out.effects)).toEqual([
      { to: 3, type: 'ELECTION', eid: expect.stringMatching(/^2-/), list: [2], seq: 1 },
    ]);
  });

  it('ring: an election that never ends is restarted by the watchdog', () => {
    const stuck = deliver(start(1), 0, { type: 'ELECTION', eid: '0-1', list: [0], seq: 1 }).state;
    const out = ring.step(stuck, { kind: 'timer', name: WATCHDOG_TIMER }, ctx);
    expect(ringSends(out.effects)).toEqual([
      { to: 2, type: 'ELECTION', eid: expect.stringMatching(/^1-/), list: [1], seq: 2 },
    ]);
    expect(out.state.open).toHaveLength(1);
  });

  it('ring: step is pure: it never changes the state it is given', () => {
    const s = start(5);
    const before = JSON.stringify(s);
    ring.step(s, { kind: 'elect' }, ctx);
    deliver(s, 4, { type: 'ELECTION', eid: 'x-1', list: [4], seq: 1 });
    expect(JSON.stringify(s)).toBe(before);
  });

  describe('late ACKs and duplicates (beyond 002: see docs/ALGORITHMS.md)', () => {
    it("ring: a second copy of an ELECTION already passed on is acknowledged, not forwarded (a late ACK's resend, a duplicate)", () => {
      const once = deliver(start(6), 5, { type: 'ELECTION', eid: '5-1', list: [5], seq: 4 }).state;
      for (const [from, list] of [
        [5, [5]],
        [4, [4]],
      ] as const) {
        const again = deliver(once, from, { type: 'ELECTION', eid: '5-1', list, seq: 9 });
        expect(sends(again.effects)).toEqual([{ to: from, type: 'ACK', seq: 9 }]);
      }
    });

    it('ring: a COORDINATOR naming a winner below this live process is passed on, then it holds a new election ("the process with the highest ID number will be the new coordinator")', () => {
      const joined = deliver(start(6), 5, {
        type: 'ELECTION',
        eid: '5-1',
        list: [5],
        seq: 1,
      }).state;
      const out = deliver(joined, 5, {
        type: 'COORDINATOR',
        eid: '5-1',
        coordinator: 5,
        origin: 4,
        seq: 2,
      });
      expect(ringSends(out.effects)).toEqual([
        { to: 7, type: 'COORDINATOR', eid: '5-1', coordinator: 5, origin: 4, seq: 2 },
        { to: 7, type: 'ELECTION', eid: expect.stringMatching(/^6-/), list: [6], seq: 3 },
      ]);
      // Not while an election of its own is open: that one ends with it or higher.
      const own = ring.step(joined, { kind: 'elect' }, ctx).state;
      expect(
        ringSends(
          deliver(own, 5, { type: 'COORDINATOR', eid: '5-1', coordinator: 5, origin: 4, seq: 2 })
            .effects,
        ),
      ).toHaveLength(1);
    });

    it('ring: of two results of one election the higher wins; the lower, or the same again, stops here', () => {
      const lower = deliver(start(1), 0, {
        type: 'COORDINATOR',
        eid: '3-9',
        coordinator: 5,
        origin: 3,
        seq: 1,
      }).state;
      const higher = deliver(lower, 0, {
        type: 'COORDINATOR',
        eid: '3-9',
        coordinator: 6,
        origin: 4,
        seq: 2,
      });
      expect(ringSends(higher.effects)).toEqual([
        { to: 2, type: 'COORDINATOR', eid: '3-9', coordinator: 6, origin: 4, seq: 2 },
      ]);
      expect(ring.report(higher.state).coordinator).toBe(6);
      for (const coordinator of [5, 6]) {
        const again = deliver(higher.state, 0, {
          type: 'COORDINATOR',
          eid: '3-9',
          coordinator,
          origin: 2,
          seq: 3,
        });
        expect(ringSends(again.effects)).toEqual([]);
        expect(ring.report(again.state).coordinator).toBe(6);
      }
    });
  });
});
