import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import { bully } from '@shared/algorithms/bully.ts';
import { expectedMessages } from '@shared/analysis/formulas.ts';
import { ring } from '@shared/algorithms/ring.ts';
import { simulate } from '@shared/sim/simulator.ts';
import { LabModel } from '../../client/src/utils/lab-model.ts';
import { statsVsTheory, verdict } from '../../client/src/utils/stats-vs-theory.ts';
import { snapshotOf } from '../helpers/client-lab-fixtures.ts';

const N = 6;
const ids = Array.from({ length: N }, (_, i) => i);
const theory = (algorithm: 'bully' | 'ring') => ({
  best: expectedMessages(algorithm, N, 'best'),
  worst: expectedMessages(algorithm, N, 'worst'),
});

/** The documents' setting: N-1 crashed, one process detects it (002, Bully analysis; 002, ring). */
function election(algorithm: typeof bully | typeof ring, detector: number) {
  const run = simulate({
    algorithm,
    ids,
    detector: 'none',
    crashes: [{ id: N - 1, at: 0 }],
    elections: [{ id: detector, at: 1 }],
    seed: 2,
    link: { delay: 100, jitter: 0, drop: 0 },
  });
  const m = new LabModel();
  m.applySnapshot(snapshotOf(ids, algorithm.name));
  m.applyEvents(run.trace);
  return { run, w: m.tracker.shown! };
}

describe('stats against theory', () => {
  it("bully, lowest id detects (002's worst case): every count sits at the worst-case formula", () => {
    const { w } = election(bully, 0);
    const t = statsVsTheory(
      w,
      w.end!,
      bully.messageTypes,
      theory('bully'),
      DEFAULT_TIMING.transmission,
    );
    const row = (type: string) => t.rows.find((r) => r.type === type)!;
    expect(row('ELECTION')).toMatchObject({
      observed: (N * (N - 1)) / 2,
      worst: (N * (N - 1)) / 2,
      formula: 'N(N−1)/2',
      verdict: 'within',
    });
    expect(row('OK')).toMatchObject({ observed: ((N - 1) * (N - 2)) / 2, verdict: 'within' });
    expect(row('COORDINATOR')).toMatchObject({ observed: N - 2, verdict: 'within' });
    expect(t.total.verdict).toBe('within');
    expect(t.rows.map((r) => r.type)).toEqual(['ELECTION', 'OK', 'COORDINATOR']); // heartbeats left out
  });

  it('bully, second-highest detects (best case): N-2 COORDINATORs and the counts at the best case', () => {
    const { w } = election(bully, N - 2);
    const t = statsVsTheory(
      w,
      w.end!,
      bully.messageTypes,
      theory('bully'),
      DEFAULT_TIMING.transmission,
    );
    expect(t.rows.find((r) => r.type === 'COORDINATOR')).toMatchObject({
      observed: N - 2,
      best: N - 2,
    });
    expect(t.total.observed).toBe(t.total.best);
  });

  it('the duration in T is the measured duration over the lab transmission bound, beside the formula time', () => {
    const { run, w } = election(bully, 0);
    const t = statsVsTheory(w, w.end!, bully.messageTypes, theory('bully'), 100);
    expect(t.durationMs).toBe(run.electionTime);
    expect(t.inT).toBeCloseTo(run.electionTime! / 100);
    expect(t.meanLatency).toBe(100);
    expect(t.time).toMatchObject({ formula: '4T + M' });
  });

  it('ring (002): 2(N-1)-style counts per type fall within theory', () => {
    const { w } = election(ring, 0);
    const t = statsVsTheory(
      w,
      w.end!,
      ring.messageTypes,
      theory('ring'),
      DEFAULT_TIMING.transmission,
    );
    for (const r of t.rows)
      expect({ type: r.type, verdict: r.verdict }).toEqual({ type: r.type, verdict: 'within' });
  });

  it('several processes detecting at once shows as above the worst case', () => {
    expect(verdict(40, 1, 15)).toBe('above');
    expect(verdict(0, 1, 15)).toBe('below');
    expect(verdict(3, null, null)).toBe('n/a');
  });

  it('without formulas the table still counts, with no verdict', () => {
    const { w } = election(bully, 0);
    const t = statsVsTheory(w, w.end!, bully.messageTypes, null, 100);
    expect(t.total.observed).toBe((N * (N - 1)) / 2 + ((N - 1) * (N - 2)) / 2 + (N - 2));
    expect(t.total.verdict).toBe('n/a');
    expect(t.time).toBeNull();
  });
});
