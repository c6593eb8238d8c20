// Bully on links slower than the documents' bound (T = 100 ms declared, so UB = 210 ms, while
// one-way delays reach 350-650 ms): OKs arrive after their timeout, and ELECTIONs of elections
// already over reach processes that have settled. In the live relay 25 processes sent thousands
// of COORDINATORs; here, before the fix, a fresh start of 25 sent 28,804 COORDINATORs and
// 9,565 ELECTIONs in its first 3 virtual seconds and never settled (docs/ALGORITHMS.md,
// "Late answers"). Each rule checked here cites the header of shared/algorithms/bully.ts.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  roundTripBound,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type DetectorMode,
  type Effect,
} from '@shared/algorithms/algorithm.ts';
import {
  bully,
  bullyTimeouts,
  TIMER_OK,
  type BullyMessage,
  type BullyState,
} from '@shared/algorithms/bully.ts';
import { createRng } from '@shared/sim/rng.ts';
import { simulate, type SimulationResult, type SimulationSpec } from '@shared/sim/simulator.ts';

const N = 25;
const T = 100;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
/** One-way delays of 50-350 ms for the first 5 s, then back within T. */
const SLOW: Partial<SimulationSpec> = {
  link: { delay: 50, jitter: 300 },
  linkChanges: [{ at: 5000, link: { delay: 80, jitter: 20 } }],
};
const WORST = (N * (N - 1)) / 2; // 002/003's worst case: N(N-1)/2 ELECTIONs

function run(
  detector: DetectorMode,
  start: 'fresh' | 'crash',
  extra: Partial<SimulationSpec> = {},
): SimulationResult {
  return simulate({
    algorithm: bully,
    ids: range(N),
    detector,
    timing: { transmission: T },
    until: 40_000,
    maxEvents: 2_000_000,
    ...(start === 'fresh'
      ? { initialCoordinator: null }
      : {
          crashes: [{ id: N - 1, at: 0 }],
          elections: detector === 'none' ? [{ id: 0, at: 0 }] : [],
        }),
    ...SLOW,
    ...extra,
  });
}

function expectSettledOn(r: SimulationResult, highest: number, label: string) {
  for (const id of r.live)
    expect(r.reports[id], `${label}, process ${id}`).toMatchObject({
      coordinator: highest,
      electing: false,
    });
  expect(
    r.live.filter((id) => r.reports[id]!.role === 'coordinator'),
    label,
  ).toEqual([highest]);
}

const count = (r: SimulationResult, type: string) => r.messages.byType[type] ?? 0;

describe('bully: OKs later than UB and leftover ELECTIONs stay bounded (N = 25)', () => {
  for (const detector of ['none', 'heartbeat'] as const) {
    for (const start of ['fresh', 'crash'] as const) {
      it(`bully: ${start === 'fresh' ? 'all starting at once' : 'the coordinator crashed'} on slow links (${detector}): each process holds one election, N(N-1)/2 ELECTIONs at most, and all agree once links are back`, () => {
        for (const seed of [1, 2, 3]) {
          const r = run(detector, start, { seed });
          const label = `${detector} ${start} seed ${seed}`;
          expect(count(r, 'ELECTION'), label).toBeLessThanOrEqual(WORST);
          expect(
            r.live.every((id) => Number(r.reports[id]!.detail?.['elections']) <= 1),
            label,
          ).toBe(true);
          // Declarations: each process at most once, to its lower ids (early ones: their OK came
          // late), plus the coordinator bullying each early declarer it hears heartbeat.
          expect(count(r, 'COORDINATOR'), label).toBeLessThanOrEqual(2 * WORST);
          expectSettledOn(r, start === 'fresh' ? N - 1 : N - 2, label);
        }
      });
    }
  }

  it('bully: the lowest id detecting on slow links still costs exactly the worst case of 002/003: N(N-1)/2 ELECTION, (N-1)(N-2)/2 OK', () => {
    const r = run('none', 'crash');
    expect(count(r, 'ELECTION')).toBe(WORST);
    expect(count(r, 'OK')).toBe(((N - 1) * (N - 2)) / 2);
    expectSettledOn(r, N - 2, 'none crash');
  });

  it('bully: poll detection on slow links: every unanswered PING costs one bounded election, and all agree once links are back', () => {
    for (let seed = 1; seed <= 4; seed++) {
      const rnd = createRng(seed + 300);
      const start = rnd() < 0.5 ? 'fresh' : 'crash';
      const r = run('poll', start, {
        seed,
        link: { delay: 50, jitter: 250 + Math.floor(rnd() * 350) },
      });
      const label = `poll ${start} seed ${seed}`;
      expect(count(r, 'ELECTION'), label).toBeLessThanOrEqual(8 * WORST);
      expect(count(r, 'COORDINATOR'), label).toBeLessThanOrEqual(4 * WORST);
      expectSettledOn(r, start === 'fresh' ? N - 1 : N - 2, label);
    }
  });
});

describe('bully: the rules that bound it (shared/algorithms/bully.ts, "Late answers")', () => {
  const ids = range(8);
  const ctx = { now: 0, random: () => 0.5 };
  const config = (self: number, extra: Partial<AlgorithmConfig> = {}): AlgorithmConfig => ({
    self,
    ids,
    ring: ids,
    timing: DEFAULT_TIMING,
    detector: 'none',
    ...extra,
  });
  const step = (s: BullyState, e: AlgorithmEvent<BullyMessage>) => bully.step(s, e, ctx);
  const msg = (from: number, message: BullyMessage): AlgorithmEvent<BullyMessage> => ({
    kind: 'message',
    from,
    message,
  });
  const sends = (out: { effects: Effect<BullyMessage>[] }) =>
    out.effects.flatMap((e) => (e.kind === 'send' ? [`${e.message.type}->${e.to}`] : []));
  const follower = (self: number, detector: DetectorMode = 'none') =>
    bully.init(config(self, { initialCoordinator: 7, detector }), ctx).state;

  it('bully: an election held because of an ELECTION from below keeps its term; a new one of its own opens the next term', () => {
    const joined = step(follower(4), msg(2, { type: 'ELECTION', election: 1, term: 5 }));
    expect(joined.effects).toContainEqual({
      kind: 'send',
      to: 5,
      message: { type: 'ELECTION', election: 1, term: 5 },
    });
    const own = step(joined.state, { kind: 'elect' });
    expect(own.effects).toContainEqual({
      kind: 'send',
      to: 5,
      message: { type: 'ELECTION', election: 2, term: 6 },
    });
  });

  it('bully: a settled process answers an ELECTION of a term it held an election in with OK only ("unless it is already holding one" extended to the term)', () => {
    const held = step(follower(4), msg(2, { type: 'ELECTION', election: 1, term: 5 })).state;
    const settled = step(held, msg(6, { type: 'COORDINATOR', term: 5 })).state;
    expect(bully.report(settled)).toMatchObject({ role: 'follower', coordinator: 6 });
    expect(sends(step(settled, msg(3, { type: 'ELECTION', election: 9, term: 5 })))).toEqual([
      'OK->3',
    ]);
    // A newer term is a new election: held as the documents say.
    expect(sends(step(settled, msg(3, { type: 'ELECTION', election: 9, term: 6 })))).toEqual([
      'OK->3',
      'ELECTION->5',
      'ELECTION->6',
      'ELECTION->7',
    ]);
  });

  it('bully: within one term the highest declared id wins: a lower COORDINATOR of the same term is stale, of a newer term it is believed', () => {
    const held = step(follower(2), msg(1, { type: 'ELECTION', election: 1, term: 3 })).state;
    const onSix = step(held, msg(6, { type: 'COORDINATOR', term: 3 })).state;
    expect(
      bully.report(step(onSix, msg(4, { type: 'COORDINATOR', term: 3 })).state).coordinator,
    ).toBe(6);
    expect(
      bully.report(step(onSix, msg(4, { type: 'COORDINATOR', term: 4 })).state).coordinator,
    ).toBe(4);
    // A higher one is always believed (000: a restarted 7 "will just send the others a COORDINATOR message").
    expect(
      bully.report(step(onSix, msg(7, { type: 'COORDINATOR', term: 1 })).state).coordinator,
    ).toBe(7);
  });

  it('bully: a follower whose heartbeat detector vouches for its coordinator answers OK only; without a detector it holds an election (000)', () => {
    expect(
      sends(step(follower(4, 'heartbeat'), msg(2, { type: 'ELECTION', election: 1 }))),
    ).toEqual(['OK->2']);
    expect(sends(step(follower(4, 'poll'), msg(2, { type: 'ELECTION', election: 1 })))).toEqual([
      'OK->2',
    ]);
    expect(sends(step(follower(4), msg(2, { type: 'ELECTION', election: 1 })))).toEqual([
      'OK->2',
      'ELECTION->5',
      'ELECTION->6',
      'ELECTION->7',
    ]);
  });

  it('bully: an OK that comes after the OK timeout (the process declared itself) doubles both election timeouts, up to 8 times', () => {
    const base = bullyTimeouts(DEFAULT_TIMING);
    let s = step(step(follower(5), { kind: 'elect' }).state, {
      kind: 'timer',
      name: TIMER_OK,
    }).state;
    expect(bully.report(s).role).toBe('coordinator');
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      s = step(s, msg(6, { type: 'OK', election: s.elections })).state;
      waits.push(s.okTimeout);
    }
    const ub = roundTripBound(DEFAULT_TIMING);
    expect(waits).toEqual([2 * ub, 4 * ub, 8 * ub, 8 * ub, 8 * ub]);
    expect(s.coordinatorTimeout).toBe(8 * base.coordinatorTimeout);
    // The next election waits that long for its OKs.
    expect(step(s, { kind: 'elect' }).effects).toContainEqual({
      kind: 'set-timer',
      name: TIMER_OK,
      after: 8 * ub,
    });
  });
});
