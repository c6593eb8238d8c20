// Issue 6 scenario, in the simulator: the emergent election against Bully as the idle pool grows.
// 003: "Elections in such systems involve number of messages which increase with some power of
// the number of processes participating ... Limiting the number of participants helps"; "Candidate
// elections take the same length of time independent of the idle pool". And under churn the
// slave pool keeps to its limits (003, Operation ii) while the live checker finds nothing wrong.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  type AlgorithmName,
  type ProcessId,
} from '@shared/algorithms/algorithm.ts';
import { ALGORITHMS } from '@shared/algorithms/registry.ts';
import { checkTrace } from '@shared/analysis/checker.ts';
import { EMERGENT_ELECTION_TYPES } from '@shared/algorithms/emergent.ts';
import { createRng } from '@shared/sim/rng.ts';
import { simulate, type SimulationResult } from '@shared/sim/simulator.ts';

const range = (n: number) => [...Array(n).keys()];
const BULLY_ELECTION_TYPES = ['ELECTION', 'OK', 'COORDINATOR'];
const POOL = 5; // the master and the default initial pool of 4 slaves

function crashTheCoordinator(algorithm: AlgorithmName, idles: number) {
  const ids = range(idles + POOL);
  const r = simulate({
    algorithm: ALGORITHMS[algorithm],
    ids,
    crashes: [{ id: ids.length - 1, at: 2000 }],
    until: 9000,
    seed: 1,
  });
  const types = algorithm === 'emergent' ? EMERGENT_ELECTION_TYPES : BULLY_ELECTION_TYPES;
  const election = types.reduce((n, t) => n + (r.messages.byType[t] ?? 0), 0);
  const { findings } = checkTrace(r.trace, { algorithm, ids, timing: DEFAULT_TIMING }, r.endTime);
  return { r, election, findings };
}

describe('election messages as the idle pool grows from 10 to 500', () => {
  const sizes = [10, 100, 500];
  const emergent = sizes.map((n) => crashTheCoordinator('emergent', n));
  const bully = sizes.map((n) => crashTheCoordinator('bully', n));

  it('emergent: the same election messages for 10, 100 and 500 idles, and the same new master', () => {
    expect(emergent[0]!.election).toBeGreaterThan(0);
    expect(emergent.map((e) => e.election)).toEqual(sizes.map(() => emergent[0]!.election));
    const masters = emergent.map(({ r }) => new Set(Object.values(r.coordinatorByNode)));
    for (const [i, m] of masters.entries())
      expect(m, `${sizes[i]} idles`).toEqual(new Set([sizes[i]! + POOL - 2]));
  });

  it('bully: election messages grow with N, about as N squared (004: (N-1)N/2 ELECTIONs when the lowest id detects)', () => {
    const [small, mid, large] = bully.map((b) => b.election);
    expect(mid!).toBeGreaterThan(small! * 10);
    expect(large!).toBeGreaterThan(mid! * 10);
    expect(large!).toBeGreaterThan(emergent[2]!.election * 1000);
  });

  it('both: the live checker finds no split brain, no late or spurious election and no disagreement', () => {
    for (const run of [...emergent, ...bully]) expect(run.findings).toEqual([]);
  });
});

/** The slave pool (live slaves and candidates, by their own reports) after every change. */
function poolSizes(r: SimulationResult): { t: number; size: number }[] {
  const inPool = new Map<ProcessId, boolean>();
  const out: { t: number; size: number }[] = [];
  for (const e of r.trace) {
    if (e.kind === 'report')
      inPool.set(e.node, e.report.role === 'slave' || e.report.role === 'candidate');
    else if (e.kind === 'crash') inPool.set(e.node, false);
    else continue;
    out.push({ t: e.t, size: [...inPool.values()].filter(Boolean).length });
  }
  return out;
}

describe('emergent under churn', () => {
  it('emergent: with masters, slaves and idles crashing and recovering, the pool stays within [poolMin, poolMax] once refilled, and the checker finds nothing', () => {
    const ids = range(30);
    const options = { poolMin: 3, poolMax: 5 };
    for (let seed = 1; seed <= 6; seed++) {
      const g = createRng(seed * 31);
      const crashes = range(8).map((k) => ({
        id: Math.floor(ids.length - g() * 12),
        at: 2000 + k * 3000 + g() * 1000,
      }));
      const recoveries = crashes.map((c) => ({ id: c.id, at: c.at + 1000 + g() * 4000 }));
      const r = simulate({
        algorithm: ALGORITHMS.emergent,
        ids,
        options,
        crashes,
        recoveries,
        link: { delay: 50, jitter: 50 },
        until: 45_000,
        seed,
      });
      const sizes = poolSizes(r);
      expect(Math.max(...sizes.map((p) => p.size)), `seed ${seed}`).toBeLessThanOrEqual(
        options.poolMax,
      );
      const final = sizes.at(-1)!.size;
      expect(final, `seed ${seed}`).toBeGreaterThanOrEqual(options.poolMin);
      const { findings } = checkTrace(
        r.trace,
        { algorithm: 'emergent', ids, timing: { ...DEFAULT_TIMING, transmission: 100 }, options },
        r.endTime,
      );
      expect(findings, `seed ${seed}`).toEqual([]);
    }
  });
});
