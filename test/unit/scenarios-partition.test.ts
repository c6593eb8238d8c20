// Issue 6 scenario, in the simulator: eight processes cut into {0..3} and {4..7}. Bully and the
// rings (002: the highest live id wins, with no quorum) end with a coordinator on each side, and
// the live checker flags the split brain (003, "Uniqueness") and the disagreement; Raft never has
// two leaders in one term (Ongaro & Ousterhout, Figure 3) and a side without a majority elects
// none. Healing the cut brings the lab back to one coordinator.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  type AlgorithmName,
  type ProcessId,
} from '@shared/algorithms/algorithm.ts';
import { ALGORITHMS } from '@shared/algorithms/registry.ts';
import { checkTrace } from '@shared/analysis/checker.ts';
import { simulate, type SimulationResult } from '@shared/sim/simulator.ts';

const ids = [0, 1, 2, 3, 4, 5, 6, 7];
const low = [0, 1, 2, 3];
const high = [4, 5, 6, 7];
const CUT = 2000;
const HEAL = 15_000;

function run(algorithm: AlgorithmName, groups: ProcessId[][], heal?: number): SimulationResult {
  const partitions = [
    { at: CUT, groups },
    ...(heal === undefined ? [] : [{ at: heal, groups: null }]),
  ];
  return simulate({
    algorithm: ALGORITHMS[algorithm],
    ids,
    partitions,
    until: heal === undefined ? HEAL : heal + 15_000,
    seed: 1,
  });
}

const check = (algorithm: AlgorithmName, r: SimulationResult) =>
  checkTrace(r.trace, { algorithm, ids, timing: DEFAULT_TIMING }, r.endTime);

/** Processes that switched to acting as coordinator (report naming itself) within [from, to). */
function newCoordinators(
  r: SimulationResult,
  from: number,
  to = Infinity,
): { node: ProcessId; term?: number }[] {
  const acting = new Map<ProcessId, boolean>();
  const out: { node: ProcessId; term?: number }[] = [];
  for (const e of r.trace) {
    if (e.kind !== 'report') continue;
    const now = e.report.coordinator === e.node;
    if (now && !acting.get(e.node) && e.t >= from && e.t < to)
      out.push({ node: e.node, ...(e.report.term === undefined ? {} : { term: e.report.term }) });
    acting.set(e.node, now);
  }
  return out;
}

describe.each(['bully', 'ring', 'ring-active-list', 'emergent'] as const)(
  'partition {0..3} | {4..7}: %s',
  (algorithm) => {
    it(`${algorithm}: each side ends with its own coordinator (3 and 7) and the checker flags the split brain and the disagreement`, () => {
      const r = run(algorithm, [low, high]);
      for (const id of low) expect(r.coordinatorByNode[id], `process ${id}`).toBe(3);
      for (const id of high) expect(r.coordinatorByNode[id], `process ${id}`).toBe(7);
      const { findings, summary } = check(algorithm, r);
      const safety = findings.filter((f) => f.kind === 'safety');
      expect(safety).toHaveLength(1);
      expect(safety[0]!.processes).toEqual([3, 7]);
      expect(safety[0]!.at).toBeGreaterThan(CUT);
      expect(summary.splitBrain).toEqual([expect.objectContaining({ processes: [3, 7] })]);
      const agreement = findings.filter((f) => f.kind === 'agreement');
      expect(agreement).toHaveLength(1);
      expect(agreement[0]!.processes).toEqual(low);
      expect(findings.filter((f) => f.kind === 'liveness')).toEqual([]);
    });

    it(`${algorithm}: once healed, everyone follows 7 and the split brain is over`, () => {
      const r = run(algorithm, [low, high], HEAL);
      for (const id of ids) expect(r.coordinatorByNode[id], `process ${id}`).toBe(7);
      const { findings, summary } = check(algorithm, r);
      expect(summary.splitBrain).toEqual([]);
      // Nothing is flagged after the heal: the rivals are resolved within the hand-over time.
      expect(findings.filter((f) => f.at > HEAL && f.kind !== 'spurious')).toEqual([]);
    });
  },
);

describe('partition {0..3} | {4..7}: raft', () => {
  it('raft: no side has a majority, so no new leader appears anywhere and no term ever has two leaders', () => {
    const r = run('raft', [low, high]);
    expect(newCoordinators(r, CUT)).toEqual([]);
    for (const id of low) expect(r.coordinatorByNode[id], `process ${id}`).toBeNull();
    const { findings } = check('raft', r);
    expect(findings.filter((f) => f.kind === 'safety')).toEqual([]);
    // The cut-off side campaigns without end: the checker reports the election it cannot finish.
    const late = findings.filter((f) => f.kind === 'liveness');
    expect(late.length).toBeGreaterThan(0);
    for (const f of late) expect(low).toEqual(expect.arrayContaining(f.processes));
  });

  it('raft: a 5 | 3 cut elects on the majority side only, and the checker sees no two leaders of one term', () => {
    const r = run('raft', [
      [0, 1, 2, 3, 4],
      [5, 6, 7],
    ]);
    const fresh = newCoordinators(r, CUT);
    expect(fresh.length).toBeGreaterThan(0);
    for (const c of fresh) expect([0, 1, 2, 3, 4]).toContain(c.node);
    const { findings } = check('raft', r);
    expect(findings.filter((f) => f.kind === 'safety')).toEqual([]);
  });

  it('raft: once healed, one leader all follow, with no safety or agreement finding at any point', () => {
    const r = run('raft', [low, high], HEAL);
    const leaders = new Set(Object.values(r.coordinatorByNode));
    expect(leaders.size).toBe(1);
    expect([...leaders][0]).not.toBeNull();
    const { findings } = check('raft', r);
    expect(findings.filter((f) => f.kind === 'safety' || f.kind === 'agreement')).toEqual([]);
  });
});
