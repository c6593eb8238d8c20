// Unit tests of the active-list ring's step function (shared/algorithms/ring-active-list.ts), rule by rule
// from 001 ("Election In A Ring").
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type DetectorMode,
  type Effect,
  type StepContext,
} from '@shared/algorithms/algorithm.ts';
import {
  ringActiveList,
  type ActiveListMessage,
  type ActiveListState,
} from '@shared/algorithms/ring-active-list.ts';
import { TIMER_PONG, TIMER_POLL } from '@shared/algorithms/failure-detector.ts';
import { WATCHDOG_TIMER } from '@shared/algorithms/ring-detection.ts';

const ids = [1, 2, 3, 4];
const ctx: StepContext = { now: 0, random: () => 0.5 };
const config = (self: number, detector: DetectorMode = 'none'): AlgorithmConfig => ({
  self,
  ids,
  ring: ids,
  timing: DEFAULT_TIMING,
  detector,
  initialCoordinator: 4,
});
const start = (self: number, detector: DetectorMode = 'none') =>
  ringActiveList.init(config(self, detector), ctx).state;
const deliver = (s: ActiveListState, from: number, message: Record<string, unknown>) =>
  ringActiveList.step(
    s,
    { kind: 'message', from, message } as AlgorithmEvent<ActiveListMessage>,
    ctx,
  );
const hopsSent = (effects: Effect<ActiveListMessage>[]) =>
  effects.flatMap((e) =>
    e.kind === 'send' && e.message.type !== 'ACK' ? [{ to: e.to, ...e.message }] : [],
  );
const listOf = (s: ActiveListState) => ringActiveList.report(s).activeList;

describe('ring-active-list step (001: Election In A Ring)', () => {
  it('ring-active-list: on detection "P2 sends Elect(2) message to P3; P2 sets active list to [2]"', () => {
    const out = ringActiveList.step(start(2), { kind: 'elect' }, ctx);
    expect(hopsSent(out.effects)).toEqual([{ to: 3, type: 'ELECT', id: 2, epoch: 1, seq: 1 }]);
    expect(listOf(out.state)).toEqual([2]);
    expect(ringActiveList.report(out.state).electing).toBe(true);
  });

  it('ring-active-list: rule (a), first Elect seen: active list [i,j], "send Elect(i) + send Elect(j)" in that order', () => {
    const out = deliver(start(3), 2, { type: 'ELECT', id: 2, epoch: 1, seq: 1 });
    expect(hopsSent(out.effects)).toEqual([
      { to: 4, type: 'ELECT', id: 3, epoch: 1, seq: 1 },
      { to: 4, type: 'ELECT', id: 2, epoch: 1, seq: 2 },
    ]);
    // 001 writes P3's list as [2,3]: the list is a set, shown ascending.
    expect(listOf(out.state)).toEqual([2, 3]);
  });

  it('ring-active-list: rule (b), i != j: adds j (as 001\'s example does: "P2 adds 3 to its active list") and forwards Elect(j)', () => {
    const p2 = ringActiveList.step(start(2), { kind: 'elect' }, ctx).state;
    const out = deliver(p2, 3, { type: 'ELECT', id: 3, epoch: 1, seq: 5 });
    expect(hopsSent(out.effects)).toEqual([{ to: 3, type: 'ELECT', id: 3, epoch: 1, seq: 2 }]);
    expect(listOf(out.state)).toEqual([2, 3]);
  });

  it('ring-active-list: rule (c), i == j: the list is complete; "choose highest process ID + send Elected(x)" to the neighbour', () => {
    const p2 = deliver(ringActiveList.step(start(2), { kind: 'elect' }, ctx).state, 3, {
      type: 'ELECT',
      id: 3,
      epoch: 1,
      seq: 5,
    }).state;
    const out = deliver(p2, 3, { type: 'ELECT', id: 2, epoch: 1, seq: 6 });
    expect(hopsSent(out.effects)).toEqual([
      { to: 3, type: 'ELECTED', coordinator: 3, epoch: 1, seq: 3 },
    ]);
    // 001 sets the coordinator only on Elected(x); until then the choice is shown as a detail.
    expect(ringActiveList.report(out.state)).toMatchObject({
      coordinator: 4,
      electing: true,
      detail: { chosen: 3, epoch: 1 },
    });
  });

  it('ring-active-list: on Elected(x) "set coordinator to x"; Elected is not forwarded', () => {
    const p3 = deliver(start(3), 2, { type: 'ELECT', id: 2, epoch: 1, seq: 1 }).state;
    const out = deliver(p3, 2, { type: 'ELECTED', coordinator: 3, epoch: 1, seq: 2 });
    expect(hopsSent(out.effects)).toEqual([]);
    expect(ringActiveList.report(out.state)).toMatchObject({
      role: 'coordinator',
      coordinator: 3,
      electing: false,
    });
  });

  it('ring-active-list: its own Elect(i) arriving after Elected(x) still applies rule (c), once: its successor hears Elected only from it (001 (c) has no "unless settled")', () => {
    const done = deliver(
      deliver(start(3), 2, { type: 'ELECT', id: 2, epoch: 1, seq: 1 }).state,
      2,
      { type: 'ELECTED', coordinator: 3, epoch: 1, seq: 2 },
    ).state;
    const out = deliver(done, 2, { type: 'ELECT', id: 3, epoch: 1, seq: 3 });
    expect(hopsSent(out.effects)).toEqual([
      { to: 4, type: 'ELECTED', coordinator: 3, epoch: 1, seq: 3 },
    ]);
    expect(ringActiveList.report(out.state)).toMatchObject({ electing: false, coordinator: 3 });
    const again = deliver(out.state, 2, { type: 'ELECT', id: 3, epoch: 1, seq: 4 });
    expect(hopsSent(again.effects)).toEqual([]);
  });

  it('ring-active-list: a second detection while its Elect is going round sends nothing more', () => {
    const once = ringActiveList.step(start(2), { kind: 'elect' }, ctx).state;
    expect(hopsSent(ringActiveList.step(once, { kind: 'elect' }, ctx).effects)).toEqual([]);
  });

  it('ring-active-list: a dead successor is skipped after UB without an ACK (001: "The messages pass P4 + P1")', () => {
    const p3 = deliver(start(3), 2, { type: 'ELECT', id: 2, epoch: 1, seq: 1 });
    const past4 = ringActiveList.step(p3.state, { kind: 'timer', name: 'ack:1' }, ctx);
    expect(hopsSent(past4.effects)).toEqual([
      { to: 1, type: 'ELECT', id: 3, epoch: 1, seq: 3 },
      { to: 1, type: 'ELECT', id: 2, epoch: 1, seq: 4 },
    ]);
    expect(ringActiveList.report(past4.state).successor).toBe(1);
  });

  it('ring-active-list: a poll that gets no PONG within UB starts an election (001: "if no response in T time units")', () => {
    const polled = ringActiveList.step(start(2, 'poll'), { kind: 'timer', name: TIMER_POLL }, ctx);
    expect(polled.effects).toContainEqual({ kind: 'send', to: 4, message: { type: 'PING' } });
    const out = ringActiveList.step(polled.state, { kind: 'timer', name: TIMER_PONG }, ctx);
    expect(hopsSent(out.effects)).toEqual([{ to: 3, type: 'ELECT', id: 2, epoch: 1, seq: 1 }]);
  });

  it('ring-active-list: the watchdog restarts an election that never ended', () => {
    const stuck = ringActiveList.step(start(2), { kind: 'elect' }, ctx).state;
    const out = ringActiveList.step(stuck, { kind: 'timer', name: WATCHDOG_TIMER }, ctx);
    expect(hopsSent(out.effects)).toEqual([{ to: 3, type: 'ELECT', id: 2, epoch: 2, seq: 2 }]);
  });

  it('ring-active-list: alone on the ring, a process elects itself', () => {
    let s = ringActiveList.step(start(2), { kind: 'elect' }, ctx).state;
    for (let i = 0; i < ids.length && s.fwd.pending.length > 0; i++) {
      s = ringActiveList.step(
        s,
        { kind: 'timer', name: `ack:${s.fwd.pending[0]!.seq}` },
        ctx,
      ).state;
    }
    expect(ringActiveList.report(s)).toMatchObject({
      coordinator: 2,
      electing: false,
      activeList: [2],
      successor: null,
    });
  });
  describe('epochs (not in 001: they keep rules (a)-(c) inside one election under message loss)', () => {
    const idleAfterEpoch1 = () =>
      deliver(deliver(start(3), 2, { type: 'ELECT', id: 2, epoch: 1, seq: 1 }).state, 2, {
        type: 'ELECTED',
        coordinator: 3,
        epoch: 1,
        seq: 2,
      }).state;

    it('ring-active-list: a late Elect of an election already decided here does not start a new round; rule (b) passes it on once', () => {
      // Elect(1) was overtaken (a late ACK's resend): it still goes round, so every process learns 1.
      const out = deliver(idleAfterEpoch1(), 2, { type: 'ELECT', id: 1, epoch: 1, seq: 3 });
      expect(hopsSent(out.effects)).toEqual([{ to: 4, type: 'ELECT', id: 1, epoch: 1, seq: 3 }]);
      expect(out.state.participating).toBe(false);
      expect(
        hopsSent(deliver(out.state, 2, { type: 'ELECT', id: 1, epoch: 1, seq: 4 }).effects),
      ).toEqual([]);
      expect(
        hopsSent(deliver(idleAfterEpoch1(), 2, { type: 'ELECT', id: 2, epoch: 1, seq: 3 }).effects),
      ).toEqual([]);
    });

    it('ring-active-list: an Elect of a newer epoch is "the first message seen" (rule (a)) even mid-election', () => {
      const inEpoch1 = deliver(start(3), 2, { type: 'ELECT', id: 2, epoch: 1, seq: 1 }).state;
      const out = deliver(inEpoch1, 2, { type: 'ELECT', id: 1, epoch: 2, seq: 2 });
      expect(hopsSent(out.effects)).toEqual([
        { to: 4, type: 'ELECT', id: 3, epoch: 2, seq: 3 },
        { to: 4, type: 'ELECT', id: 1, epoch: 2, seq: 4 },
      ]);
      expect(listOf(out.state)).toEqual([1, 3]);
    });

    it('ring-active-list: an Elect or Elected of an older epoch is dropped', () => {
      const inEpoch2 = deliver(start(3), 2, { type: 'ELECT', id: 2, epoch: 2, seq: 1 }).state;
      expect(
        hopsSent(deliver(inEpoch2, 2, { type: 'ELECT', id: 1, epoch: 1, seq: 2 }).effects),
      ).toEqual([]);
      expect(
        ringActiveList.report(
          deliver(inEpoch2, 2, { type: 'ELECTED', coordinator: 2, epoch: 1, seq: 2 }).state,
        ).coordinator,
      ).toBe(4);
    });

    it('ring-active-list: a restarted process (epoch unknown, 0) reaching an idle process gets a fresh election', () => {
      const out = deliver(idleAfterEpoch1(), 2, { type: 'ELECT', id: 2, epoch: 0, seq: 3 });
      expect(hopsSent(out.effects)).toEqual([{ to: 4, type: 'ELECT', id: 3, epoch: 2, seq: 3 }]);
    });

    it('ring-active-list: a copy of a start-election Elect(j) (epoch 0, j already in the list) at a process that settled that election is dropped, not taken for a newcomer (rule (b) forwards Elect(j) once)', () => {
      // 3 starts with no coordinator (epoch 0), passes 2's Elect on, and is told Elected(4).
      const fresh = ringActiveList.init({ ...config(3), initialCoordinator: null }, ctx).state;
      const passed = deliver(fresh, 2, { type: 'ELECT', id: 2, epoch: 0, seq: 1 }).state;
      const settled = deliver(passed, 2, {
        type: 'ELECTED',
        coordinator: 4,
        epoch: 0,
        seq: 2,
      }).state;
      expect(ringActiveList.report(settled)).toMatchObject({ coordinator: 4, electing: false });
      const copy = deliver(settled, 1, { type: 'ELECT', id: 2, epoch: 0, seq: 7 });
      expect(hopsSent(copy.effects)).toEqual([]);
      expect(ringActiveList.report(copy.state)).toMatchObject({ coordinator: 4, electing: false });
      // An Elect(1) that never passed here is still a newcomer's: a fresh election.
      const newcomer = deliver(settled, 2, { type: 'ELECT', id: 1, epoch: 0, seq: 8 });
      expect(ringActiveList.report(newcomer.state).electing).toBe(true);
    });

    it('ring-active-list: a restarted process reaching one mid-election is carried into that election (rule (b))', () => {
      const inEpoch1 = deliver(start(3), 2, { type: 'ELECT', id: 2, epoch: 1, seq: 1 }).state;
      const out = deliver(inEpoch1, 2, { type: 'ELECT', id: 1, epoch: 0, seq: 2 });
      expect(hopsSent(out.effects)).toEqual([{ to: 4, type: 'ELECT', id: 1, epoch: 1, seq: 3 }]);
      expect(listOf(out.state)).toEqual([1, 2, 3]);
    });

    it('ring-active-list: a process that took part in this election and sends its own Elect of unknown epoch restarted: a newer election includes it (003: "a process holds an election on start or re-start")', () => {
      // 2 took part in epoch 1 (its Elect passed here), then crashed and came back with its state
      // lost. As a rule (b) copy its Elect would be dropped, and 2, skipped meanwhile, never told.
      const inEpoch1 = deliver(start(3), 2, { type: 'ELECT', id: 2, epoch: 1, seq: 1 }).state;
      const out = deliver(inEpoch1, 2, { type: 'ELECT', id: 2, epoch: 0, seq: 1 });
      expect(hopsSent(out.effects)).toEqual([{ to: 4, type: 'ELECT', id: 3, epoch: 2, seq: 3 }]);
      // The same Elect forwarded by another process is a copy still (a late ACK's resend).
      const copy = deliver(inEpoch1, 1, { type: 'ELECT', id: 2, epoch: 0, seq: 5 });
      expect(hopsSent(copy.effects)).toEqual([]);
    });

    it('ring-active-list: a restarted process missed by the election decided here, whose watchdog sends its own Elect of an older epoch, gets a newer election (003: "a process holds an election on start or re-start"; issue 26 restart lab)', () => {
      // 3 settled epoch 2 with the list [2,3]: 1 came back with its state lost, its epoch-0 Elect
      // was carried into epoch 2, which then skipped it as dead. Its watchdog knows only epoch 1.
      const inEpoch2 = deliver(start(3), 2, { type: 'ELECT', id: 2, epoch: 2, seq: 1 }).state;
      const idle = deliver(inEpoch2, 2, {
        type: 'ELECTED',
        coordinator: 3,
        epoch: 2,
        seq: 2,
      }).state;
      expect(ringActiveList.report(idle)).toMatchObject({ coordinator: 3, electing: false });
      const out = deliver(idle, 1, { type: 'ELECT', id: 1, epoch: 1, seq: 1 });
      expect(hopsSent(out.effects)).toEqual([{ to: 4, type: 'ELECT', id: 3, epoch: 3, seq: 3 }]);
      // Not from 1 itself, or from a process the last election included: a leftover, dropped.
      expect(
        hopsSent(deliver(idle, 2, { type: 'ELECT', id: 1, epoch: 1, seq: 3 }).effects),
      ).toEqual([]);
      expect(
        hopsSent(deliver(idle, 2, { type: 'ELECT', id: 2, epoch: 1, seq: 3 }).effects),
      ).toEqual([]);
    });

    it('ring-active-list: a process started without a coordinator elects in the unknown epoch 0', () => {
      const out = ringActiveList.init({ ...config(2), initialCoordinator: null }, ctx);
      expect(hopsSent(out.effects)).toEqual([{ to: 3, type: 'ELECT', id: 2, epoch: 0, seq: 1 }]);
    });
  });

  describe('late ACKs and duplicates (beyond 001: see docs/ALGORITHMS.md)', () => {
    const p3 = () => deliver(start(3), 2, { type: 'ELECT', id: 2, epoch: 1, seq: 1 }).state; // list [2,3]

    it('ring-active-list: rule (b) forwards Elect(j) only when j is new to the active list; a copy is acknowledged and dropped', () => {
      const again = deliver(p3(), 2, { type: 'ELECT', id: 2, epoch: 1, seq: 2 });
      expect(hopsSent(again.effects)).toEqual([]);
      expect(again.effects).toContainEqual({
        kind: 'send',
        to: 2,
        message: { type: 'ACK', seq: 2 },
      });
    });

    it('ring-active-list: rule (c) sends Elected(x) once per epoch, however many copies of Elect(i) come back', () => {
      const chose = deliver(p3(), 2, { type: 'ELECT', id: 3, epoch: 1, seq: 2 });
      expect(hopsSent(chose.effects)).toEqual([
        { to: 4, type: 'ELECTED', coordinator: 3, epoch: 1, seq: 3 },
      ]);
      expect(
        hopsSent(deliver(chose.state, 2, { type: 'ELECT', id: 3, epoch: 1, seq: 3 }).effects),
      ).toEqual([]);
    });

    it('ring-active-list: an Elect(j) that arrives after Elected(x) was sent, with j > x, goes on and is followed by Elected(j)', () => {
      const chose = deliver(p3(), 2, { type: 'ELECT', id: 3, epoch: 1, seq: 2 }).state;
      const late = deliver(chose, 2, { type: 'ELECT', id: 4, epoch: 1, seq: 3 });
      expect(hopsSent(late.effects)).toEqual([
        { to: 4, type: 'ELECT', id: 4, epoch: 1, seq: 4 },
        { to: 4, type: 'ELECTED', coordinator: 4, epoch: 1, seq: 5 },
      ]);
      expect(
        hopsSent(deliver(late.state, 2, { type: 'ELECT', id: 1, epoch: 1, seq: 4 }).effects),
      ).toEqual([{ to: 4, type: 'ELECT', id: 1, epoch: 1, seq: 6 }]);
    });

    it('ring-active-list: told a winner below itself, a process waits for the correction in its epoch, or detects anew if it never took part', () => {
      const waiting = deliver(p3(), 2, { type: 'ELECTED', coordinator: 2, epoch: 1, seq: 2 });
      expect(ringActiveList.report(waiting.state)).toMatchObject({
        electing: true,
        coordinator: 4,
      });
      expect(
        ringActiveList.report(
          deliver(waiting.state, 2, { type: 'ELECTED', coordinator: 3, epoch: 1, seq: 3 }).state,
        ),
      ).toMatchObject({ electing: false, coordinator: 3 });
      const missed = deliver(start(3), 2, { type: 'ELECTED', coordinator: 2, epoch: 4, seq: 1 });
      expect(hopsSent(missed.effects)).toEqual([{ to: 4, type: 'ELECT', id: 3, epoch: 5, seq: 1 }]);
    });

    it('ring-active-list: a lower Elected of an epoch already decided here is a stale copy', () => {
      const decided = deliver(p3(), 2, { type: 'ELECTED', coordinator: 4, epoch: 1, seq: 2 }).state;
      expect(
        ringActiveList.report(
          deliver(decided, 2, { type: 'ELECTED', coordinator: 3, epoch: 1, seq: 3 }).state,
        ).coordinator,
      ).toBe(4);
    });
  });
});
