// The documents' worked examples as grader cases, one per algorithm: the seed documents' figures,
// the same runs as the scenario scripts in test/scenarios.
import type { AlgorithmName } from '../algorithms/algorithm.ts';
import { afterFault, bounds, range, T, TIMING, type GradeCase } from './grade-case.ts';

/** The documents' worked example for the algorithm (the seed documents' figures; the scenario scripts in test/scenarios). */
export function exampleCase(algorithm: AlgorithmName): GradeCase {
  return EXAMPLES[algorithm]();
}

const EXAMPLES: Record<AlgorithmName, () => GradeCase> = {
  bully: figure620,
  ring: ringExample,
  'ring-active-list': activeListExample,
  emergent: masterCrash,
  raft: splitVote,
};

/** Bully: Figure 6-20 of 000. */
function figure620(): GradeCase {
  const ids = range(8);
  return {
    id: 'figure-6-20',
    group: 'example',
    title: 'Figure 6-20 (000): 7 has crashed, 4 notices; 6 must win',
    spec: {
      ids,
      timing: TIMING,
      detector: 'none',
      link: { delay: T },
      crashes: [{ id: 7, at: 0 }],
      elections: [{ id: 4, at: 0 }],
      until: 20_000,
    },
    safety: true,
    counts: {
      from: 0,
      expected: { ELECTION: 6, OK: 3, COORDINATOR: 6 },
      formulas: { ELECTION: '(a) 3 + (c) 3', OK: '(b) 2 + (d) 1', COORDINATOR: '(e) N−2' },
    },
    liveness: { from: 0, bound: 4 * T + TIMING.processing, formula: 'T + UB + T = 4T + M' },
    winner: 6,
  };
}

/** The ring: the example of 002. */
function ringExample(): GradeCase {
  const ids = range(8);
  return {
    id: 'ring-002',
    group: 'example',
    title: 'Ring example (002): 7 has crashed, 2 and 5 notice at once; both elect 6',
    spec: {
      ids,
      timing: TIMING,
      detector: 'none',
      link: { delay: T },
      crashes: [{ id: 7, at: 0 }],
      elections: [
        { id: 5, at: 0 },
        { id: 2, at: 0 },
      ],
      until: 20_000,
    },
    safety: true,
    liveness: {
      from: 0,
      bound: bounds('ring', ids).election,
      formula: "2N(T + M) + UB (the checker's election bound)",
    },
    winner: 6,
  };
}

/** The active-list ring: the example of 001. */
function activeListExample(): GradeCase {
  const ids = range(4, 1);
  return {
    id: 'ring-001',
    group: 'example',
    title: 'Active-list example (001): ring P1..P4, P1 and P4 crash, P2 notices; both choose 3',
    spec: {
      ids,
      ring: ids,
      timing: TIMING,
      detector: 'none',
      link: { delay: T },
      initialCoordinator: 4,
      crashes: [
        { id: 1, at: 0 },
        { id: 4, at: 0 },
      ],
      elections: [{ id: 2, at: 0 }],
      until: 20_000,
    },
    safety: true,
    liveness: {
      from: 0,
      bound: bounds('ring-active-list', ids).election,
      formula: "2N(T + M) + UB (the checker's election bound)",
    },
    winner: 3,
  };
}

/** Emergent: the master crash of 003. */
function masterCrash(): GradeCase {
  const ids = range(8);
  return {
    id: 'master-crash',
    group: 'example',
    title: 'Master crash (003): 7 is master, slaves 3..6; the master crashes, the slaves elect',
    spec: {
      ids,
      timing: TIMING,
      link: { delay: T },
      options: { initialPool: 4 },
      crashes: [{ id: 7, at: 500 }],
      until: 12_000,
    },
    safety: true,
    counts: {
      from: 500,
      expected: { CANDIDATE: 12, ABORT: 0 },
      formulas: { CANDIDATE: 'k(k−1), k = 4', ABORT: '0' },
    },
    liveness: afterFault('emergent', ids, 500, true),
    winner: null,
  };
}

/** Raft: the split vote of §5.2 (004). */
function splitVote(): GradeCase {
  const ids = range(5);
  return {
    id: 'split-vote',
    group: 'example',
    title: 'Split vote (§5.2): 4 led and crashed; 1 and 3 campaign at once',
    spec: {
      ids,
      timing: TIMING,
      detector: 'none',
      link: { delay: T },
      links: { '1->0': { delay: 50 }, '3->2': { delay: 50 } },
      crashes: [{ id: 4, at: 0 }],
      elections: [
        { id: 1, at: 0 },
        { id: 3, at: 0 },
      ],
      until: 30_000,
    },
    safety: true,
    liveness: afterFault('raft', ids, 0, false),
    winner: null,
  };
}
