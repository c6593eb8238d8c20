// Properties of Bully over many seeded random runs (crashes, recoveries, jitter, loss).
// 002, Requirements: "All processes (that have not crashed) eventually set e_i = P", P being the
// non-crashed process with the highest id; 003: "Safety: one non-failed machine is selected.
// Liveness: Elections terminate".
import { describe, expect, it } from 'vitest';
import type { DetectorMode } from '@shared/algorithms/algorithm.ts';
import { bully } from '@shared/algorithms/bully.ts';
import { createRng } from '@shared/sim/rng.ts';
import { simulate, type SimulationResult, type SimulationSpec } from '@shared/sim/simulator.ts';

const SEEDS = 200;
const LAST_FAULT = 5000; // every crash and recovery happens before this
const SETTLE = 20_000; // then the run goes on this long: ample for detection plus a few re-elections

/** A random but reproducible run: 3-10 processes, some crash (a few recover), jittery links. */
function randomSpec(seed: number, detector: DetectorMode, drop = 0): SimulationSpec {
  const rng = createRng(seed * 7919 + 17);
  const n = 3 + Math.floor(rng() * 8);
  const ids = Array.from({ length: n }, (_, i) => i);
  const crashes: { id: number; at: number }[] = [];
  const recoveries: { id: number; at: number }[] = [];
  const victims = ids.filter(() => rng() < 0.4).slice(0, n - 1); // someone always stays up
  for (const id of victims) {
    const at = Math.floor(rng() * (LAST_FAULT - 1000));
    crashes.push({ id, at });
    if (rng() < 0.4) recoveries.push({ id, at: at + 200 + Math.floor(rng() * 800) });
  }
  return {
    algorithm: bully,
    ids,
    detector,
    initialCoordinator: rng() < 0.3 ? null : n - 1,
    link: { delay: 20 + Math.floor(rng() * 80), jitter: Math.floor(rng() * 60), drop },
    ...(drop > 0 ? { dropUntil: LAST_FAULT } : {}),
    crashes,
    recoveries,
    seed,
    until: LAST_FAULT + SETTLE,
    trace: true,
  };
}

function expectSettledOnHighestLive(run: SimulationResult, label: string) {
  expect(run.live.length, label).toBeGreaterThan(0);
  const highest = Math.max(...run.live);
  for (const id of run.live)
    expect(run.coordinatorByNode[id], `${label}: process ${id}`).toBe(highest);
  expect(
    run.live.filter((id) => run.reports[id]?.role === 'coordinator'),
    label,
  ).toEqual([highest]);
  expect(
    run.live.every((id) => run.reports[id]?.electing === false),
    label,
  ).toBe(true);
  // Stable, not just momentarily agreed: no election traffic in the last 5 s.
  const late = run.trace.filter(
    (e) => e.kind === 'send' && e.type === 'ELECTION' && e.t > LAST_FAULT + SETTLE - 5000,
  );
  expect(late, label).toEqual([]);
}

describe('bully: properties over random runs', () => {
  for (const detector of ['heartbeat', 'poll'] as const) {
    it(`bully: with no loss every live process ends believing the highest live id (${detector}, ${SEEDS} seeds)`, () => {
      for (let seed = 1; seed <= SEEDS; seed++) {
        expectSettledOnHighestLive(
          simulate(randomSpec(seed, detector)),
          `${detector} seed ${seed}`,
        );
      }
    });

    it(`bully: with loss during a window that then stops, live processes agree afterwards (${detector}, ${SEEDS} seeds)`, () => {
      let dropped = 0;
      for (let seed = 1; seed <= SEEDS; seed++) {
        const run = simulate(randomSpec(seed, detector, 0.05 + (seed % 4) * 0.08));
        dropped += run.messages.dropped;
        expectSettledOnHighestLive(run, `${detector} lossy seed ${seed}`);
      }
      expect(dropped).toBeGreaterThan(SEEDS); // the loss window really did drop messages
    });
  }

  it('bully: the same seed gives an identical trace, another seed a different one', () => {
    const a = simulate(randomSpec(42, 'heartbeat', 0.2));
    const b = simulate(randomSpec(42, 'heartbeat', 0.2));
    const c = simulate({ ...randomSpec(42, 'heartbeat', 0.2), seed: 43 });
    expect(a.trace.length).toBeGreaterThan(100);
    expect(b.trace).toEqual(a.trace);
    expect(c.trace).not.toEqual(a.trace);
  });
});
