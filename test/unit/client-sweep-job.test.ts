// The instructor panel's sweep: what may be asked (N up to 64, a few runs), the slices it runs
// in (a time budget, at least one run each, so the page is never blocked for long), and its
// table beside the documents' formulas: Bully's worst case sends N(N−1)/2 ELECTIONs (002, 003)
// and takes 4T + M, the ring 2(N−1) ACKs as the lab acknowledges every hop.
import { describe, expect, it } from 'vitest';
import { runOne, type RunParams, type RunRow } from '@shared/experiments/experiment.ts';
import {
  planSweep,
  SWEEP_LIMITS,
  SweepJob,
  sweepTables,
  type SweepInput,
} from '../../client/src/utils/sweep-job.ts';

const input = (extra: Partial<SweepInput> = {}): SweepInput => ({
  algorithm: 'bully',
  nodes: '4, 8, 16',
  cases: ['worst'],
  runs: 1,
  delay: 100,
  jitter: 0,
  seed: 1,
  ...extra,
});

describe('sweep in the instructor panel', () => {
  it('plans one run per algorithm, case, N and run, N sorted and deduplicated', () => {
    const plan = planSweep(input({ nodes: '16 4,8, 4', cases: ['worst', 'best'], runs: 2 }));
    if (!plan.ok) throw new Error(plan.errors.join());
    expect(plan.spec.nodes).toEqual([4, 8, 16]);
    expect(plan.runs).toHaveLength(2 * 3 * 2);
    expect(new Set(plan.runs.map((r) => r.algorithm))).toEqual(new Set(['bully']));
  });

  it(`refuses N above ${SWEEP_LIMITS.maxN}, too many runs, no case and a bad delay, all at once, as values`, () => {
    const plan = planSweep(input({ nodes: '8, 65', runs: 11, cases: [], delay: 0 }));
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.errors).toHaveLength(4);
    expect(plan.errors[0]).toMatch(/from 3 to 64/);
    expect(planSweep(input({ nodes: 'four' })).ok).toBe(false);
    expect(planSweep(input({ nodes: '' })).ok).toBe(false);
  });

  it('runs in slices of the time budget, at least one run per slice, until every run is done', () => {
    const plan = planSweep(input({ nodes: '4, 8, 16, 32', cases: ['worst', 'best'] }));
    if (!plan.ok) throw new Error(plan.errors.join());
    let clock = 0;
    const fake = (p: RunParams): RunRow => {
      clock += p.n; // each run "takes" N ms
      return runOne(p);
    };
    const job = new SweepJob(plan.runs, fake, () => clock);
    const slices: number[] = [];
    for (let i = 0; i < 100 && !job.done; i++) slices.push(job.step(10).length);
    expect(job.done).toBe(true);
    expect(job.progress).toBe(1);
    expect(slices.reduce((a, b) => a + b, 0)).toBe(plan.runs.length);
    // A 4 ms and an 8 ms run fit in one 10 ms slice; 16 and 32 ms runs take a slice each.
    expect(slices).toEqual([2, 1, 1, 2, 1, 1]);
    expect(job.rows.map((r) => [r.case, r.n])).toEqual(plan.runs.map((r) => [r.case, r.n]));
  });

  it("the table: Bully's worst case measured equals N(N−1)/2 ELECTIONs and 4T + M, for every N", () => {
    const plan = planSweep(input());
    if (!plan.ok) throw new Error(plan.errors.join());
    const [table] = sweepTables(plan.runs.map((p) => runOne(p)));
    expect(table!.types).toEqual(['ELECTION', 'OK', 'COORDINATOR']);
    expect(table!.rows.map((r) => r.n)).toEqual([4, 8, 16]);
    for (const r of table!.rows) {
      expect(r.messages['ELECTION']).toEqual({
        measured: (r.n * (r.n - 1)) / 2,
        formula: (r.n * (r.n - 1)) / 2,
        text: 'N(N−1)/2',
      });
      expect(r.time.text).toBe('4T + M');
      expect(r.time.measured).toBeCloseTo(r.time.formula, 6);
      expect(r.agreed).toBe(1);
    }
  });

  it('the ring: 2(N−1) ACKs, one table per case asked', () => {
    const plan = planSweep(input({ algorithm: 'ring', nodes: '5, 9', cases: ['worst', 'best'] }));
    if (!plan.ok) throw new Error(plan.errors.join());
    const tables = sweepTables(plan.runs.map((p) => runOne(p)));
    expect(tables.map((t) => t.case)).toEqual(['worst', 'best']);
    for (const t of tables)
      for (const r of t.rows) expect(r.messages['ACK']!.measured).toBe(2 * (r.n - 1));
  });
});
