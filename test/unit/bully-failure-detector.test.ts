// The failure detector (shared/algorithms/failure-detector.ts) on its own, then as Bully uses it.
// 003: "Co-ordinator sends a short message to all machines regularly (heartbeat). A machine which
// notices that the message is absent then starts an election." 000: "Processes are set to poll
// the leader every 3 seconds", with UB = 2T + M bounding each answer.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  roundTripBound,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type DetectorMode,
  type Effect,
  type Message,
} from '@shared/algorithms/algorithm.ts';
import { bully, type BullyMessage, type BullyState } from '@shared/algorithms/bully.ts';
import {
  detectorMessage,
  detectorTimer,
  follow,
  lead,
  stopDetector,
  TIMER_BEAT,
  TIMER_POLL,
  TIMER_PONG,
  TIMER_SILENCE,
  type DetectorSetup,
} from '@shared/algorithms/failure-detector.ts';

const T = DEFAULT_TIMING;
const setup = (mode: DetectorMode, probes: number[] = []): DetectorSetup => ({
  mode,
  timing: T,
  peers: [0, 1, 2],
  probes,
});
const sends = (effects: Effect<Message>[]) =>
  effects.flatMap((e) => (e.kind === 'send' ? [`${e.message.type}->${e.to}`] : []));
const timersSet = (effects: Effect<Message>[]) =>
  Object.fromEntries(effects.flatMap((e) => (e.kind === 'set-timer' ? [[e.name, e.after]] : [])));

describe('failure detector: heartbeat', () => {
  it('detector: a leader heartbeats every peer each interval', () => {
    const l = lead(setup('heartbeat'));
    expect(timersSet(l.effects)).toEqual({ [TIMER_BEAT]: T.heartbeatInterval });
    const beat = detectorTimer(setup('heartbeat'), l.state, TIMER_BEAT);
    expect(sends(beat.effects)).toEqual(['HEARTBEAT->0', 'HEARTBEAT->1', 'HEARTBEAT->2']);
    expect(timersSet(beat.effects)).toEqual({ [TIMER_BEAT]: T.heartbeatInterval });
  });

  it('detector: a heartbeat from the followed leader re-arms the silence timer; silence past the timeout is a suspicion', () => {
    const f = follow(setup('heartbeat'), 3);
    expect(timersSet(f.effects)).toEqual({ [TIMER_SILENCE]: T.heartbeatTimeout });
    const hb = detectorMessage(setup('heartbeat'), f.state, 3, { type: 'HEARTBEAT' });
    expect(timersSet(hb.effects)).toEqual({ [TIMER_SILENCE]: T.heartbeatTimeout });
    expect(hb.observed).toEqual({ kind: 'none' });
    expect(detectorTimer(setup('heartbeat'), f.state, TIMER_SILENCE).observed).toEqual({
      kind: 'suspect',
      leader: 3,
    });
  });

  it('detector: a heartbeat from anyone but the followed leader reports that leader', () => {
    const f = follow(setup('heartbeat'), 3);
    expect(detectorMessage(setup('heartbeat'), f.state, 5, { type: 'HEARTBEAT' }).observed).toEqual(
      { kind: 'leader-seen', id: 5 },
    );
  });
});

describe('failure detector: poll', () => {
  it('detector: a follower PINGs its leader each interval and suspects it when no PONG comes within UB', () => {
    const s = setup('poll');
    const f = follow(s, 3);
    expect(timersSet(f.effects)).toEqual({ [TIMER_POLL]: T.heartbeatInterval });
    const poll = detectorTimer(s, f.state, TIMER_POLL);
    expect(sends(poll.effects)).toEqual(['PING->3']);
    expect(timersSet(poll.effects)).toEqual({
      [TIMER_PONG]: roundTripBound(T),
      [TIMER_POLL]: T.heartbeatInterval,
    });
    // A second poll while the first PING is unanswered sends nothing and keeps the UB timer.
    expect(sends(detectorTimer(s, poll.state, TIMER_POLL).effects)).toEqual([]);
    expect(detectorTimer(s, poll.state, TIMER_PONG).observed).toEqual({
      kind: 'suspect',
      leader: 3,
    });
  });

  it('detector: a PONG from the leader clears the pending poll', () => {
    const s = setup('poll');
    const poll = detectorTimer(s, follow(s, 3).state, TIMER_POLL);
    const pong = detectorMessage(s, poll.state, 3, { type: 'PONG' });
    expect(pong.effects).toEqual([{ kind: 'cancel-timer', name: TIMER_PONG }]);
    expect(pong.state.awaiting).toBe(false);
  });

  it('detector: only a leader answers PING', () => {
    const s = setup('poll');
    expect(sends(detectorMessage(s, lead(s).state, 1, { type: 'PING' }).effects)).toEqual([
      'PONG->1',
    ]);
    expect(sends(detectorMessage(s, follow(s, 3).state, 1, { type: 'PING' }).effects)).toEqual([]);
  });

  it('detector: a leader polls its probes, and a PONG from one reveals a rival leader', () => {
    const s = setup('poll', [5, 6]);
    const l = lead(s);
    const poll = detectorTimer(s, l.state, TIMER_POLL);
    expect(sends(poll.effects)).toEqual(['PING->5', 'PING->6']);
    expect(detectorMessage(s, poll.state, 6, { type: 'PONG' }).observed).toEqual({
      kind: 'leader-seen',
      id: 6,
    });
    expect(timersSet(lead(setup('poll')).effects)).toEqual({}); // nobody to probe: no timer
  });
});

describe('failure detector: off and none', () => {
  it("detector: mode 'none' sets no timers and sends nothing", () => {
    expect(lead(setup('none')).effects).toEqual([]);
    expect(follow(setup('none'), 3).effects).toEqual([]);
  });

  it('detector: stopping cancels every detector timer', () => {
    const stopped = stopDetector(setup('poll'), follow(setup('poll'), 3).state);
    expect(stopped.state.role).toBe('off');
    expect(stopped.effects.every((e) => e.kind === 'cancel-timer')).toBe(true);
    expect(stopped.effects.map((e) => (e.kind === 'cancel-timer' ? e.name : ''))).toEqual(
      expect.arrayContaining([TIMER_BEAT, TIMER_SILENCE, TIMER_POLL, TIMER_PONG]),
    );
  });
});

// Bully's use of the detector.
const ids = [0, 1, 2, 3, 4, 5, 6, 7];
const ctx = { now: 0, random: () => 0.5 };
const cfg = (self: number, detector: DetectorMode, initialCoordinator = 7): AlgorithmConfig => ({
  self,
  ids,
  ring: ids,
  timing: T,
  detector,
  initialCoordinator,
});
const step = (s: BullyState, e: AlgorithmEvent<BullyMessage>) => bully.step(s, e, ctx);

describe('bully with a failure detector', () => {
  it('bully: a follower that hears no heartbeat for the timeout starts an election (003)', () => {
    const f = bully.init(cfg(4, 'heartbeat'), ctx).state;
    const out = step(f, { kind: 'timer', name: TIMER_SILENCE });
    expect(sends(out.effects)).toEqual(['ELECTION->5', 'ELECTION->6', 'ELECTION->7']);
  });

  it('bully: a follower whose PING goes unanswered within UB starts an election (000, poll variant)', () => {
    const f = bully.init(cfg(4, 'poll'), ctx).state;
    const polled = step(f, { kind: 'timer', name: TIMER_POLL });
    expect(sends(polled.effects)).toEqual(['PING->7']);
    const out = step(polled.state, { kind: 'timer', name: TIMER_PONG });
    expect(sends(out.effects)).toEqual(['ELECTION->5', 'ELECTION->6', 'ELECTION->7']);
  });

  it('bully: the coordinator heartbeats every other process, higher ids included', () => {
    const c = bully.init(cfg(5, 'heartbeat', 5), ctx).state;
    expect(sends(step(c, { kind: 'timer', name: TIMER_BEAT }).effects)).toEqual(
      [0, 1, 2, 3, 4, 6, 7].map((i) => `HEARTBEAT->${i}`),
    );
  });

  it('bully: a heartbeat from a process above our coordinator starts an election (003: "The one with the highest ID")', () => {
    const f = bully.init(cfg(2, 'heartbeat', 5), ctx).state;
    expect(
      sends(step(f, { kind: 'message', from: 6, message: { type: 'HEARTBEAT' } }).effects),
    ).toEqual([3, 4, 5, 6, 7].map((i) => `ELECTION->${i}`));
    // One below our coordinator is left to our coordinator.
    expect(step(f, { kind: 'message', from: 4, message: { type: 'HEARTBEAT' } }).effects).toEqual(
      [],
    );
  });

  it('bully: a coordinator hearing a lower rival heartbeat bullies it with COORDINATOR', () => {
    const c = bully.init(cfg(6, 'heartbeat', 6), ctx).state;
    expect(
      sends(step(c, { kind: 'message', from: 3, message: { type: 'HEARTBEAT' } }).effects),
    ).toEqual(['COORDINATOR->3']);
  });

  it('bully: a coordinator that finds a higher coordinator by polling starts an election', () => {
    const c = bully.init(cfg(5, 'poll', 5), ctx).state;
    const polled = step(c, { kind: 'timer', name: TIMER_POLL });
    expect(sends(polled.effects)).toEqual(['PING->6', 'PING->7']);
    const out = step(polled.state, { kind: 'message', from: 7, message: { type: 'PONG' } });
    expect(sends(out.effects)).toEqual(['ELECTION->6', 'ELECTION->7']);
  });

  it('bully: detector messages are ignored while an election is held', () => {
    const e = step(bully.init(cfg(2, 'heartbeat'), ctx).state, { kind: 'elect' }).state;
    expect(step(e, { kind: 'message', from: 6, message: { type: 'HEARTBEAT' } }).effects).toEqual(
      [],
    );
  });
});
