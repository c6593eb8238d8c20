// Issue 24's reproduced faults of hand mode at class size, one test each, on a manual clock:
// the coach's shadow is the lab's algorithm (detector included), its hints never dead-end nor go
// stale, the tab and the coach agree, superseded items expire, and the top student owes what the
// documents need. Each fails without its fix (shared/coach/: coach.ts, hints.ts, hand-queue.ts,
// hand-runner.ts).
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  roundTripBound,
  type AlgorithmConfig,
  type Message,
} from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { coach } from '@shared/coach/coach.ts';
import { HandRunner } from '@shared/coach/hand-runner.ts';
import { hints } from '@shared/coach/hints.ts';
import { openFirst } from '@shared/coach/hand-queue.ts';
import { secondsLeft, timerName } from '@shared/coach/hand-kit.ts';
import { ManualClock } from '../helpers/manual-clock.ts';

const ids = [1, 2, 3, 4, 5, 6, 7];
const UB = roundTripBound(DEFAULT_TIMING);

function bully(
  self: number,
  detector: AlgorithmConfig['detector'],
  algorithm: 'bully' | 'ring-active-list' = 'bully',
) {
  const clock = new ManualClock();
  const sent: { to: number; message: Message }[] = [];
  const r = new HandRunner({
    algorithm: getAlgorithm(algorithm),
    io: {
      send: (to, message) => sent.push({ to, message }),
      report: () => {},
      setTimer: clock.setTimeout,
      clearTimer: clock.clearTimeout,
      now: clock.now,
      random: () => 0.5,
    },
    seed: 1,
    autoBeat: true,
  });
  r.start({ self, ids, ring: ids, timing: DEFAULT_TIMING, detector });
  const hint = () => hints(r.view(), self)[0]!;
  /** She clicks the coach's first hint. */
  const follow = () => r.act(hint().offer!);
  return { r, clock, sent, hint, follow };
}

describe('issue 24: the coach at class size', () => {
  it("a stale ELECTION (a newer term, from below) while the heartbeat detector vouches for the coordinator is answered OK only, as the lab's Bully does: no ELECTIONs up the ids", () => {
    const { r, clock, hint, follow } = bully(5, 'heartbeat');
    follow(); // her start election: ELECTION to 6 and 7
    r.deliver(7, { type: 'OK', election: 1, term: 1 });
    r.deliver(7, { type: 'COORDINATOR', term: 1 });
    follow(); // believe 7
    expect(r.view().report.coordinator).toBe(7);
    for (let i = 0; i < 3; i++) {
      clock.advance(DEFAULT_TIMING.heartbeatInterval);
      r.deliver(7, { type: 'HEARTBEAT' });
    }
    r.deliver(2, { type: 'ELECTION', election: 4, term: 3 });
    expect(r.view().coach.suggestions.map((s) => `${s.message.type}->${s.to}`)).toEqual(['OK->2']);
    expect(hint().label).toBe('Answer OK to 2');
    follow();
    clock.advance(200);
    r.deliver(7, { type: 'HEARTBEAT' });
    clock.advance(3 * UB);
    expect(r.view().deviations).toEqual([]);
    expect(hints(r.view(), 5)[0]!.label).toBe('Nothing to do: you follow 7.');
  });

  it('ELECTION hints she let pass are still offered (marked once, as late) and lead on: the reference waits for them, then she declares; never "nothing to do" while electing', () => {
    const { r, clock, hint, follow } = bully(5, 'none');
    clock.advance(UB + 50);
    expect(r.view().deviations.map((d) => d.rule)).toEqual(['bully.hold']);
    expect(
      hint().offer?.steps.map((s) => (s.kind === 'send' ? `${s.message.type}->${s.to}` : s.kind)),
    ).toEqual(['ELECTION->6', 'ELECTION->7']);
    follow();
    clock.advance(UB + 10);
    // No OK came: 003 "it sends a coordinator message to all processes with a lower ID".
    expect(hint().label).toBe('Declare myself coordinator: Send COORDINATOR to all 4 (1, 2, 3, 4)');
    follow();
    clock.advance(3 * UB);
    expect(r.view().deviations.map((d) => d.rule)).toEqual(['bully.hold']);
    expect(r.view().report).toMatchObject({ coordinator: 5, electing: false });
  });

  it('her tab says electing while the coach has settled on 7 (she held an election nobody asked for): the hint reconciles them', () => {
    const { r, hint, follow } = bully(5, 'none');
    follow();
    r.deliver(7, { type: 'OK', election: 1, term: 1 });
    r.deliver(7, { type: 'COORDINATOR', term: 1 });
    follow();
    r.act(r.view().moves.find((m) => m.key === 'elect')!);
    expect(r.view().report).toMatchObject({ coordinator: 7, electing: true });
    expect(r.view().coach.report).toMatchObject({ coordinator: 7, electing: false });
    expect(hint().label).toBe(
      'Believe 7 is coordinator (your tab says you are electing; the election is over)',
    );
    follow();
    expect(r.view().report).toMatchObject({ coordinator: 7, electing: false });
  });

  it('superseded items expire and are counted: "Believe 7" once she believes 7 another way, an OK whose election is over, a call for an election once she settled', () => {
    const { r, clock, follow } = bully(5, 'none');
    r.deliver(2, { type: 'ELECTION', election: 1, term: 1 });
    follow(); // ELECTION to 6 and 7, most urgent
    r.deliver(7, { type: 'OK', election: 1, term: 1 });
    r.deliver(7, { type: 'COORDINATOR', term: 1 });
    r.act({ key: 'believe', label: 'I believe 7', steps: [{ kind: 'believe', coordinator: 7 }] });
    const coordinator = r.view().queue.find((q) => q.message?.type === 'COORDINATOR')!;
    expect(coordinator).toMatchObject({ done: true, expired: 'you believe 7 already' });
    // She never answered 2: once its UB passed and the coach owes it no longer, it goes too.
    clock.advance(UB + 10);
    const election = r.view().queue.find((q) => q.message?.type === 'ELECTION')!;
    expect(election).toMatchObject({
      done: true,
      expired: 'too late to matter: the election it belonged to is over',
    });
    const started = r.view().queue.find((q) => q.note.startsWith('started'))!;
    expect(started.offers.map((o) => o.key)).toEqual(['elect']);
    expect(started.done).toBe(true);
    expect(r.view().expired).toBeGreaterThanOrEqual(3);
    expect(r.view().queue.filter((q) => !q.done)).toEqual([]);
  });

  it('active list: an Elected(6) she has not believed yet stays offered past UB (001: "set coordinator to x" is how she learns 6; it is not superseded); once she believes 6 it goes when its ACK is past UB', () => {
    const { r, clock, sent } = bully(3, 'none', 'ring-active-list');
    r.deliver(2, { type: 'ELECTED', seq: 5, coordinator: 6, epoch: 1 });
    clock.advance(3 * UB);
    const item = () => r.view().queue.find((q) => q.message?.type === 'ELECTED')!;
    // Clicked late, it still believes 6 (and acknowledges the hop).
    expect(item()).toMatchObject({ done: false });
    expect(item().offers.map((o) => o.key)).toEqual(['believe-6']);
    r.act(item().offers[0]!, item());
    expect(r.view().report).toMatchObject({ coordinator: 6, electing: false });
    expect(sent).toEqual([{ to: 2, message: { type: 'ACK', seq: 5 } }]);
    // Believing 6 another way leaves the hop's ACK offered until its UB has passed, then it goes.
    r.deliver(2, { type: 'ELECTED', seq: 6, coordinator: 6, epoch: 1 });
    expect(item()).toMatchObject({ done: false });
    clock.advance(UB + 10);
    expect(item()).toMatchObject({ done: true, expired: 'you believe 6 already' });
  });

  it('a hint carrying the waiting ring ACKs answers only the items whose own move it made: an Elect still to be forwarded stays open until she forwards it (the ACK is plumbing, not its answer)', () => {
    const { r, clock, sent, hint, follow } = bully(3, 'none', 'ring-active-list');
    follow(); // her start Elect(3) to 4
    r.deliver(2, { type: 'ELECT', seq: 1, id: 3, epoch: 0 }); // hers, back: Elected(3) owed
    clock.advance(100);
    r.deliver(2, { type: 'ELECT', seq: 2, id: 2, epoch: 0 }); // 2's: forward it (001 (b))
    const forward = () => r.view().queue.find((q) => q.message?.id === 2)!;
    expect(hint().label).toMatch(/^Send ELECTED to 4/);
    follow(); // Elected(3) to 4, with both ACKs
    expect(
      sent
        .filter((s) => s.message.type === 'ACK')
        .map((s) => s.message.seq)
        .sort(),
    ).toEqual([1, 2]);
    expect(forward()).toMatchObject({ done: false });
    expect(hint().label).toMatch(/^Send ELECT to 4/);
    follow();
    expect(sent.at(-1)).toMatchObject({ to: 4, message: { type: 'ELECT', id: 2 } });
    expect(forward()).toMatchObject({ done: true });
    expect(forward().expired).toBeUndefined();
    expect(r.view().deviations).toEqual([]);
  });

  it('her tab lists the open items first (newest first), then the answered and expired ones, so none waits below a page of history', () => {
    const { r, clock, follow } = bully(5, 'none');
    follow(); // her start election (its item stays open while she elects)
    r.deliver(2, { type: 'ELECTION', election: 1, term: 1 });
    clock.advance(100);
    r.deliver(3, { type: 'ELECTION', election: 1, term: 1 });
    const from3 = r.view().queue[0]!;
    r.act(
      from3.offers.find((o) => o.key === 'ok-3')!,
      from3,
    );
    const listed = openFirst(r.view().queue).map((q) => [q.note, q.done]);
    expect(listed).toEqual([
      ['ELECTION from 2', false],
      ['started: the documents say a process holds an election on start (003)', false],
      ['ELECTION from 3', true],
    ]);
  });

  it('the top student in the start election owes COORDINATOR and OK once to each lower id (2(N-1) sends in two clicks), not a second COORDINATOR per ELECTION; nothing marked', () => {
    const { r, clock, sent, hint, follow } = bully(7, 'none');
    for (const from of [1, 2, 3, 4, 5, 6])
      r.deliver(from, { type: 'ELECTION', election: 1, term: 1 });
    expect(hints(r.view(), 7).map((h) => h.label)).toEqual([
      'Declare myself coordinator: Send COORDINATOR to all 6 (1, 2, 3, 4, 5, 6)',
      'Answer OK to all 6 (1, 2, 3, 4, 5, 6)',
    ]);
    follow();
    follow();
    expect(sent.map((s) => s.message.type).sort()).toEqual([
      ...Array(6).fill('COORDINATOR'),
      ...Array(6).fill('OK'),
    ]);
    // Each OK is its own message, with the reference's numbers.
    expect(sent.filter((s) => s.message.type === 'OK').map((s) => s.message)).toEqual(
      Array(6).fill({ type: 'OK', election: 1, term: 1 }),
    );
    clock.advance(3 * UB);
    expect(r.view().deviations).toEqual([]);
    expect(hint().label).toBe('Nothing to do: you are the coordinator.');
  });

  it("a coordinator that misses its COORDINATOR reply to an ELECTION is marked with 000's announcement, not with the declaring time-out", () => {
    const config: AlgorithmConfig = {
      self: 7,
      ids,
      ring: ids,
      timing: DEFAULT_TIMING,
      detector: 'none',
      initialCoordinator: 7,
    };
    const view = coach(
      getAlgorithm('bully'),
      config,
      [
        {
          kind: 'event',
          at: 100,
          event: { kind: 'message', from: 2, message: { type: 'ELECTION', election: 1, term: 1 } },
        },
      ],
      100 + UB + 1,
      1,
    );
    expect(view.deviations.map((d) => d.rule).sort()).toEqual(['bully.announce', 'bully.answer']);
  });

  it('a call for an election has its move, and her own timer running out says so in seconds and asks nothing', () => {
    const { r, clock } = bully(5, 'none');
    r.elect();
    expect(r.view().queue[0]!.offers.map((o) => o.key)).toEqual(['elect']);
    r.act(r.view().moves.find((m) => m.key === 'ub')!);
    expect(r.view().moves.find((m) => m.key === 'ub')!.label).toBe('Set a timeout of UB (0.2 s)');
    clock.advance(UB + 1);
    expect(r.view().queue[0]).toMatchObject({
      note: 'your UB timeout (0.2 s) ran out: no answer came within UB',
      done: true,
    });
  });

  it('the Timers panel and the inbox name her timers in her words and count in seconds (issue 24: "Timers are named in the student\'s words, in seconds")', () => {
    const { r } = bully(5, 'heartbeat');
    r.act(r.view().moves.find((m) => m.key === 'ub')!);
    expect(r.timerList().map((t) => timerName(t.name))).toContain('your UB timeout');
    expect(timerName('her:coordinator-wait')).toBe('your coordinator wait');
    expect(timerName('auto:silence')).toBe("the coordinator's silence watch");
    expect(timerName('her:ack:4:12')).toBe('the ACK wait for 4');
    // An algorithm's own timer (auto mode) keeps its name.
    expect(timerName('election-timeout')).toBe('election-timeout');
    expect([secondsLeft(1807), secondsLeft(21_000), secondsLeft(40), secondsLeft(-5)]).toEqual([
      '1.9 s',
      '21.0 s',
      '0.1 s',
      '0.0 s',
    ]);
  });
});
