import { describe, expect, it } from 'vitest';
import { ALGORITHM_NAMES, DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import { runOne, type RunParams } from '@shared/experiments/experiment.ts';
import {
  detectorsFor,
  expectedFor,
  expectedMessages,
  formulaTypes,
} from '@shared/analysis/formulas.ts';

const base: Omit<RunParams, 'algorithm' | 'n'> = {
  case: 'worst',
  run: 0,
  seed: 1,
  delay: 100,
  jitter: 0,
  drop: 0,
  detector: 'none',
};
const T = DEFAULT_TIMING.transmission;
const M = DEFAULT_TIMING.processing;

function measured(row: ReturnType<typeof runOne>, types: string[]): Record<string, number> {
  return Object.fromEntries(types.map((t) => [t, row.messages[t] ?? 0]));
}

describe('formulas', () => {
  it('bully: the lowest id detecting the crash sends N(N-1)/2 ELECTIONs, (N-1)(N-2)/2 OKs and N-2 COORDINATORs (002 "Worst case ... O(n²) msgs"; 003 "Σ (N-2) election messages")', () => {
    const e = expectedMessages('bully', 8, 'worst');
    expect(e.detectors).toEqual([0]);
    expect([e.messages.ELECTION!.mean, e.messages.OK!.mean, e.messages.COORDINATOR!.mean]).toEqual([
      (8 * 7) / 2,
      (7 * 6) / 2,
      8 - 2,
    ]);
    // 003: the new coordinator's message lands after T (ELECTION) + UB (2T + M) + T.
    expect(e.time.mean).toBeCloseTo(4 + M / T);
  });

  it('bully: the second-highest detecting sends 1 ELECTION and N-2 COORDINATORs, done after UB + T (002 "Best case ... n-2 messages"; 003 "1 time-out ... and time to send N-2 messages")', () => {
    const e = expectedMessages('bully', 8, 'best');
    expect(e.detectors).toEqual([6]);
    expect([e.messages.ELECTION!.mean, e.messages.OK!.mean, e.messages.COORDINATOR!.mean]).toEqual([
      1, 0, 6,
    ]);
    expect(e.time.mean).toBeCloseTo(3 + M / T);
  });

  it('bully: a random detector lies between the best and the worst case, and the mean is over every live id', () => {
    const r = expectedMessages('bully', 10, 'random');
    expect(r.detectors).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(r.messages.ELECTION!.min).toBe(
      expectedMessages('bully', 10, 'best').messages.ELECTION!.mean,
    );
    expect(r.messages.ELECTION!.max).toBe(
      expectedMessages('bully', 10, 'worst').messages.ELECTION!.mean,
    );
    const all = r.detectors.map((d) => expectedFor('bully', 10, d).messages.ELECTION!);
    expect(r.messages.ELECTION!.mean).toBeCloseTo(all.reduce((a, b) => a + b, 0) / all.length);
  });

  it.each(ALGORITHM_NAMES)(
    '%s: for every N from 3 to 9 and every process that may detect, the simulator sends exactly the predicted messages and settles in the predicted time',
    (algorithm) => {
      for (const n of [3, 4, 5, 6, 9]) {
        for (const d of detectorsFor(algorithm, n, 'random')) {
          const row = runOne({ ...base, algorithm, n, initiator: d });
          const e = expectedFor(algorithm, n, d);
          expect({ n, d, messages: measured(row, formulaTypes(algorithm)) }).toEqual({
            n,
            d,
            messages: e.messages,
          });
          expect(row.electionTimeT).toBeCloseTo(e.time);
          expect(row.agreed).toBe(true);
        }
      }
    },
  );

  it('ring: 2 circuits of the N-1 live processes plus one send to the dead coordinator, against 002\'s "2 (n-1) messages always"', () => {
    const e = expectedMessages('ring', 8, 'worst');
    // 002 counts n-1 forwards per circuit among its n = 7 live processes; the lab also returns
    // each circuit to its starter (+2) and tries the dead 7 once (+1), and acknowledges every hop.
    const docs = 2 * (7 - 1);
    expect(e.messages.ELECTION!.mean + e.messages.COORDINATOR!.mean).toBe(docs + 3);
    expect(e.messages.ACK!.mean).toBe(2 * 7);
  });

  it('ring-active-list: each live process circulates its own Elect (001), so ELECT grows as (N-1)², with 1 to N-1 extra sends to the dead', () => {
    expect(expectedMessages('ring-active-list', 8, 'worst').messages.ELECT!.mean).toBe(49 + 7);
    expect(expectedMessages('ring-active-list', 8, 'best').messages.ELECT!.mean).toBe(49 + 1);
    expect(expectedMessages('ring-active-list', 8, 'worst').messages.ELECTED!.mean).toBe(7);
  });

  it('emergent: only the slave pool can detect, and the election costs k(k-1) CANDIDATEs whatever N (003 "independent of the idle pool")', () => {
    expect(expectedMessages('emergent', 100, 'worst').detectors).toEqual([95]);
    expect(expectedMessages('emergent', 100, 'best').detectors).toEqual([98]);
    expect(expectedMessages('emergent', 100, 'random').messages.CANDIDATE!.mean).toBe(
      expectedMessages('emergent', 10, 'random').messages.CANDIDATE!.mean,
    );
    expect(
      expectedMessages('emergent', 100, 'worst', DEFAULT_TIMING, { initialPool: 3, poolMin: 2 })
        .messages.CANDIDATE!.mean,
    ).toBe(6);
  });

  it('raft: with N = 2 and one crashed there is no majority, so nothing is elected', () => {
    expect(expectedMessages('raft', 2, 'worst').elects).toBe(false);
    expect(expectedMessages('raft', 3, 'worst').elects).toBe(true);
    expect(runOne({ ...base, algorithm: 'raft', n: 2 }).agreed).toBe(false);
  });

  it('formulas: each case names its own formula text', () => {
    expect(expectedMessages('bully', 5, 'worst').messages.ELECTION!.formula).toBe('N(N−1)/2');
    expect(expectedMessages('bully', 5, 'best').messages.ELECTION!.formula).toBe('1');
    expect(expectedMessages('bully', 5, 'best').time.formula).toBe('3T + M');
  });
});
