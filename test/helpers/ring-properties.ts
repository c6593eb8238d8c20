// The random run both ring algorithms' property tests share: 3..10 processes, about 30 % crashed
// at the start, a few random initiators, jitter up to T; no failure detector.
import type { AnyAlgorithm } from '@shared/algorithms/algorithm.ts';
import { createRng } from '@shared/sim/rng.ts';
import { simulate, type SimulationResult } from '@shared/sim/simulator.ts';
import { range } from './ring-trace.ts';

export function randomRingElection(
  algorithm: AnyAlgorithm,
  seed: number,
  T: number,
): { r: SimulationResult; live: number[] } {
  const rnd = createRng(seed);
  const n = 3 + Math.floor(rnd() * 8);
  const ids = range(n);
  const crashed = ids.filter(() => rnd() < 0.3).slice(0, n - 1);
  const live = ids.filter((id) => !crashed.includes(id));
  const initiators = live.filter(() => rnd() < 0.4);
  const r = simulate({
    algorithm,
    ids,
    detector: 'none',
    seed,
    until: 60_000,
    link: { delay: T, jitter: Math.floor(rnd() * T) },
    crashes: crashed.map((id) => ({ id, at: 0 })),
    elections: (initiators.length ? initiators : [live[0]!]).map((id) => ({
      id,
      at: 1 + Math.floor(rnd() * 300),
    })),
  });
  return { r, live };
}
