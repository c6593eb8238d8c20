// Issue 6 scenario, in the simulator: link delay raised above the timeouts the processes were
// configured with (T = 100 ms, heartbeats every 500 ms, silence after 1500 ms). Below them no
// election starts while the coordinator lives; above them false suspicions appear and the live
// checker counts them (003's constraint "Spurious: false detection of the circumstance to
// trigger an election should be avoided").
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, type AlgorithmName } from '@shared/algorithms/algorithm.ts';
import { ALGORITHMS } from '@shared/algorithms/registry.ts';
import { checkTrace } from '@shared/analysis/checker.ts';
import { simulate } from '@shared/sim/simulator.ts';

const ids = [0, 1, 2, 3, 4, 5, 6, 7];

/** Delay d with jitter d (arrivals uniform in [d, 2d], FIFO per link), the processes still told T = 100 ms. */
function spurious(algorithm: AlgorithmName, d: number, seed = 1) {
  const r = simulate({
    algorithm: ALGORITHMS[algorithm],
    ids,
    link: { delay: d, jitter: d },
    timing: { transmission: DEFAULT_TIMING.transmission },
    until: 10_000,
    seed,
    maxEvents: 400_000,
  });
  return checkTrace(r.trace, { algorithm, ids, timing: DEFAULT_TIMING }, r.endTime).summary;
}

describe.each(['bully', 'ring', 'ring-active-list', 'emergent', 'raft'] as const)(
  'delay vs timeouts: %s',
  (algorithm) => {
    it(`${algorithm}: with every heartbeat arriving well inside the silence timeout, no spurious election`, () => {
      for (const d of [50, 400]) {
        const s = spurious(algorithm, d);
        expect(s.spuriousElections, `delay ${d}`).toBe(0);
        expect(s.counts.spurious, `delay ${d}`).toBe(0);
      }
    });

    it(`${algorithm}: with delay above the silence timeout, live coordinators are suspected and the elections are counted`, () => {
      const s = spurious(algorithm, 1600);
      expect(s.spuriousElections).toBeGreaterThan(0);
      expect(s.counts.spurious).toBeGreaterThan(0);
      expect(s.counts.spurious).toBeLessThanOrEqual(s.spuriousElections);
      expect(s.recent.some((f) => f.kind === 'spurious' && f.detail.includes('was alive'))).toBe(
        true,
      );
    });
  },
);

describe('delay vs timeouts: consequences', () => {
  it('bully: past its UB the election misfires into split brains, which the checker reports', () => {
    // UB = 2T + M = 210 ms is the OK timeout; answers taking 2d > 210 ms come too late.
    expect(spurious('bully', 1600).counts.safety).toBeGreaterThan(0);
  });

  it('raft: terms keep its safety under any delay: spurious campaigns, never two leaders of one term', () => {
    for (const seed of [1, 2, 3]) {
      const s = spurious('raft', 2400, seed);
      expect(s.spuriousElections, `seed ${seed}`).toBeGreaterThan(0);
      expect(s.counts.safety, `seed ${seed}`).toBe(0);
    }
  });
});
