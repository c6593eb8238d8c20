// The Hand play panel's figure (client/src/utils/hand-load.ts, issue 24 "Time that fits
// people"): what the busiest student owes in Bully's start election, checked against what her
// tab really offers her (the hand runner's queue and the coach's hints), not against a formula.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, type Message } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { HandRunner } from '@shared/coach/hand-runner.ts';
import { hints } from '@shared/coach/hints.ts';
import { busiestLoad } from '../../client/src/utils/hand-load.ts';
import { ManualClock } from '../helpers/manual-clock.ts';

/** The top id of `n` after every lower id's start ELECTION reached her (000; 003: "a process holds an election on start"). */
function topOf(n: number) {
  const ids = Array.from({ length: n }, (_, i) => i + 1);
  const clock = new ManualClock();
  const r = new HandRunner({
    algorithm: getAlgorithm('bully'),
    io: {
      send: () => {},
      report: () => {},
      setTimer: clock.setTimeout,
      clearTimer: clock.clearTimeout,
      now: clock.now,
      random: () => 0.5,
    },
    seed: 1,
    autoBeat: true,
  });
  r.start({ self: n, ids, ring: ids, timing: DEFAULT_TIMING, detector: 'none' });
  for (const from of ids.slice(0, -1))
    r.deliver(from, { type: 'ELECTION', election: 1, term: 1 } as Message);
  return r;
}

describe("the busiest student's load, as the Hand play panel states it", () => {
  it.each([4, 7, 12])(
    'Bully, %i ids: 2(N-1) sends, 2 clicks with hints, N without; as her tab offers them',
    (n) => {
      const load = busiestLoad('bully', n)!;
      expect(load).toEqual({ sends: 2 * (n - 1), clicksWithHints: 2, clicksWithout: n });
      const r = topOf(n);
      const withOffers = hints(r.view(), n).filter((h) => h.offer !== null);
      expect(withOffers).toHaveLength(load.clicksWithHints);
      expect(
        withOffers.flatMap((h) => h.offer!.steps.filter((s) => s.kind === 'send')),
      ).toHaveLength(load.sends);
      // Without hints: one "Answer OK" per ELECTION and her declaration (COORDINATOR to every lower id).
      const open = r.view().queue.filter((q) => !q.done && q.offers.length > 0);
      expect(open).toHaveLength(load.clicksWithout);
      expect(
        open.reduce((k, q) => k + q.offers[0]!.steps.filter((s) => s.kind === 'send').length, 0),
      ).toBe(load.sends);
    },
  );

  it('states no figure for the other algorithms (none derived yet: npm run class measures them), nor for one id', () => {
    for (const a of ['ring', 'ring-active-list', 'raft', 'emergent'] as const)
      expect(busiestLoad(a, 30)).toBeNull();
    expect(busiestLoad('bully', 1)).toBeNull();
  });
});
