// The grader's scenario cases, per algorithm: runs of the simulator in which a module must
// behave as the documents say. Each is a simulator spec (without the algorithm) and what is
// checked on its run:
// - `counts`: the documents' setting (ids 0..N-1, N-1 crashed, one process detects, every
//   message takes exactly T): the message counts must be the formulas' (shared/analysis/
//   formulas.ts) and the election must end within the formula's time;
// - every case: safety while within the assumptions (two leaders for no longer than the
//   checker's overlap bound), agreement at the end (e_i = P: every live process believes in the
//   same live leader, the highest live id for Bully and the rings), and liveness (everyone
//   settled within the checker's bounds after the last fault).
import type { AlgorithmName } from '../algorithms/algorithm.ts';
import { emergentOptions } from '../algorithms/emergent-state.ts';
import {
  detectorsFor,
  expectedFor,
  expectedMessages,
  formulaTypes,
  type ElectionCase,
} from '../analysis/formulas.ts';
import { exampleCase } from './example-cases.ts';
import { afterFault, bounds, HIGHEST, range, T, TIMING, type GradeCase } from './grade-case.ts';

/** Detection at the documents' formulas' setting happens here (as the experiment runner's). */
const DETECT_AT = 1000;

/** How long the documents' runs go on after detection (the experiment runner's horizon). */
function horizon(algorithm: AlgorithmName): number {
  return algorithm === 'emergent' ? 6 * TIMING.heartbeatInterval + 20 * T : 20_000;
}

/** The documents' setting: N-1 crashed, `c` case's detector notices at DETECT_AT, nothing lost, every message exactly T. */
function countsCase(algorithm: AlgorithmName, n: number, c: ElectionCase): GradeCase {
  const d = detectorsFor(algorithm, n, c, undefined, TIMING)[0]!;
  const e = expectedFor(algorithm, n, d, TIMING);
  const types = formulaTypes(algorithm);
  const ids = range(n);
  return {
    id: `${c}-${n}`,
    group: 'counts',
    title: `${c} case, N = ${n}: ${n - 1} crashed, ${d} notices`,
    spec: {
      ids,
      timing: TIMING,
      detector: 'none',
      link: { delay: T },
      crashes: [{ id: n - 1, at: 0 }],
      elections: [{ id: d, at: DETECT_AT }],
      until: DETECT_AT + horizon(algorithm),
    },
    safety: true,
    counts: {
      from: DETECT_AT,
      expected: Object.fromEntries(types.map((t) => [t, e.messages[t] ?? 0])),
      formulas: formulaText(algorithm, n, c),
    },
    liveness: {
      from: DETECT_AT,
      bound: e.time * T,
      formula: `${expectedTimeFormula(algorithm, n, c)} = ${round(e.time)}T`,
    },
    winner: HIGHEST.includes(algorithm) ? n - 2 : null,
  };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

function formulaText(algorithm: AlgorithmName, n: number, c: ElectionCase): Record<string, string> {
  const e = expectedMessages(algorithm, n, c, TIMING);
  return Object.fromEntries(Object.entries(e.messages).map(([t, m]) => [t, m.formula]));
}
function expectedTimeFormula(algorithm: AlgorithmName, n: number, c: ElectionCase): string {
  return expectedMessages(algorithm, n, c, TIMING).time.formula;
}

function crashDuringElection(algorithm: AlgorithmName): GradeCase {
  const n = 6;
  const ids = range(n);
  const b = bounds(algorithm, ids);
  // The would-be winner (N-2) crashes once the election has reached it, before it can win. Raft
  // (no detector): the candidate 1 crashes after asking for votes, and 2 campaigns a second later.
  const at =
    algorithm === 'emergent' ? 2300 : algorithm === 'bully' || algorithm === 'raft' ? 150 : 250;
  const victim = algorithm === 'raft' ? 1 : n - 2;
  const spec: GradeCase['spec'] =
    algorithm === 'emergent'
      ? {
          ids,
          timing: TIMING,
          link: { delay: T },
          crashes: [
            { id: n - 1, at: 500 },
            { id: victim, at },
          ],
          until: 15_000,
        }
      : {
          ids,
          timing: TIMING,
          detector: 'none',
          link: { delay: T },
          crashes: [
            { id: n - 1, at: 0 },
            { id: victim, at },
          ],
          elections:
            algorithm === 'raft'
              ? [
                  { id: 1, at: 0 },
                  { id: 2, at: 1000 },
                ]
              : [{ id: 0, at: 0 }],
          until: 30_000,
        };
  return {
    id: 'crash-in-election',
    group: 'crash',
    title: `a crash during the election: ${n - 1} has crashed; ${victim} crashes at t=${at}, mid-election${algorithm === 'raft' ? '; 2 campaigns at t=1000' : ''}`,
    spec,
    safety: true,
    liveness: {
      from: algorithm === 'raft' ? 1000 : at,
      bound: b.quiet + 2 * b.election,
      formula: "a timeout and two elections (the checker's quiet + 2 × election bounds)",
    },
    winner: HIGHEST.includes(algorithm) ? n - 3 : null,
  };
}

function recovery(algorithm: AlgorithmName): GradeCase {
  const n = 5;
  const ids = range(n);
  const back = 3000;
  return {
    id: 'recovery',
    group: 'recovery',
    title: `a recovery: ${n - 1} crashes, the others elect, ${n - 1} comes back at t=${back}`,
    spec: {
      ids,
      timing: TIMING,
      detector: 'heartbeat',
      link: { delay: T },
      crashes: [{ id: n - 1, at: 500 }],
      recoveries: [{ id: n - 1, at: back }],
      until: 20_000,
    },
    safety: true,
    liveness: afterFault(algorithm, ids, back, true),
    winner: HIGHEST.includes(algorithm) ? n - 1 : null,
  };
}

function twoInitiators(algorithm: AlgorithmName): GradeCase {
  const n = 6;
  const ids = range(n);
  return {
    id: 'two-initiators',
    group: 'initiators',
    title: `two initiators at once: ${n - 1} has crashed, 1 and 3 notice at the same moment`,
    spec: {
      ids,
      timing: TIMING,
      detector: 'none',
      link: { delay: T },
      crashes: [{ id: n - 1, at: 0 }],
      elections: [
        { id: 1, at: 0 },
        { id: 3, at: 0 },
      ],
      until: 30_000,
    },
    safety: true,
    liveness: afterFault(algorithm, ids, 0, false),
    winner: HIGHEST.includes(algorithm) ? n - 2 : null,
  };
}

function lossWithDetector(algorithm: AlgorithmName): GradeCase {
  const n = 5;
  const ids = range(n);
  const calm = 12_000;
  return {
    id: 'loss-detector',
    group: 'loss',
    title: `loss with the failure detector on: 10% of messages lost until t=${calm}, ${n - 1} crashes at t=2000`,
    spec: {
      ids,
      timing: TIMING,
      detector: 'heartbeat',
      link: { delay: T, drop: 0.1 },
      dropUntil: calm,
      crashes: [{ id: n - 1, at: 2000 }],
      seed: 7,
      until: 40_000,
    },
    // Lost messages leave the id-ranked algorithms' assumptions (every message within T): for them
    // only agreement and liveness after the loss stops. Raft's Election Safety (§5.2, Figure 3)
    // holds under any loss (one vote per term), so its safety is checked here too.
    safety: algorithm === 'raft',
    liveness: afterFault(algorithm, ids, calm, true),
    winner: HIGHEST.includes(algorithm) ? n - 2 : null,
  };
}

/**
 * Emergent only: a partition that heals (003, Uniqueness: "multi-master situations should be
 * avoided or detected and resolved speedily"; Operation ii: the pool "remains approximately
 * constant"). 7 leads with slaves 3..6; {0..4} and {5, 6, 7} are cut apart at t=1000, so the
 * first side elects a master of its own and refills its pool; at t=8000 the cut heals. Then
 * the lower master must yield (two masters for at most the checker's overlap) and the merged
 * pool, larger than poolMax, must shrink back by demotion.
 */
function partitionHeals(): GradeCase {
  const ids = range(8);
  const heal = 8000;
  const { options } = emergentOptions({ initialPool: 4 }, TIMING);
  return {
    id: 'partition-heals',
    group: 'partition',
    title: `a partition that heals: 7 leads, {0..4} and {5, 6, 7} cut apart at t=1000, healed at t=${heal}`,
    spec: {
      ids,
      timing: TIMING,
      link: { delay: T },
      options: { initialPool: 4 },
      partitions: [
        { at: 1000, groups: [range(5), range(3, 5)] },
        { at: heal, groups: null },
      ],
      until: 20_000,
    },
    safety: true,
    safetyFrom: heal,
    liveness: afterFault('emergent', ids, heal, true),
    winner: null,
    pool: {
      min: options.poolMin,
      max: options.poolMax,
      formula:
        'poolMin..poolMax (003, Operation ii: "If a slave registers there are too many slaves it drops back into an idle state")',
    },
  };
}

/**
 * Bully only: a lower process whose links to the higher ones are slower than its timeout (its
 * ELECTIONs arrive after its 2T + M, so for it the timeout is below UB) declares itself and, as
 * 000 writes it, tells all processes ("sending all processes a message"). Its split brain with 3
 * is what the documents predict with a timeout below UB (003: no reply "during a time-out period
 * - 2*(transit time) + (processing time)" is what makes it take over). What is hers: a higher
 * process told of a lower coordinator holds an election and takes over (002: the existing
 * lower-numbered coordinator yields; 000: e_i = P, the highest live id), so all end with 3.
 */
function lowerAnnounces(): GradeCase {
  const ids = range(4);
  const slow = 4 * T;
  return {
    id: 'lower-announces',
    group: 'initiators',
    title: `a lower coordinator announced to all: 1's links to 2 and 3 take ${slow} ms (its timeout is below UB); 1 elects at t=${DETECT_AT} and tells everyone, as 000 writes it`,
    spec: {
      ids,
      timing: TIMING,
      detector: 'none',
      link: { delay: T },
      links: { '1->2': { delay: slow }, '1->3': { delay: slow } },
      elections: [{ id: 1, at: DETECT_AT }],
      until: DETECT_AT + 20_000,
    },
    safety: true,
    liveness: afterFault('bully', ids, DETECT_AT + slow, false),
    winner: 3,
    peers: { ids: [1], name: 'bully-announces-to-all' },
    predictedSplit:
      '003: a process takes over when no reply comes "during a time-out period - 2*(transit time) + (processing time)"; with links slower than T its timeout is below UB and it declares beside a live higher one (000 asks how to adapt Bully "to deal with temporary network partition (slow communication)")',
  };
}

/**
 * Raft only: 3 of 5 are down from the start, so no majority is alive and no leader can be elected
 * (§5.2: a candidate wins with "votes from a majority of the servers in the full cluster"): that
 * is reported as expected, not failed. 2 comes back at t=5000 and the three must elect.
 */
function noMajority(): GradeCase {
  const ids = range(5);
  const back = 5000;
  return {
    id: 'no-majority',
    group: 'recovery',
    title: `no majority alive: 2, 3 and 4 are down from the start, 0 and 1 campaign; 2 comes back at t=${back}`,
    spec: {
      ids,
      timing: TIMING,
      detector: 'none',
      link: { delay: T },
      crashes: [2, 3, 4].map((id) => ({ id, at: 0 })),
      recoveries: [{ id: 2, at: back }],
      elections: [
        { id: 0, at: 0 },
        { id: 1, at: 0 },
      ],
      until: back + 20_000,
    },
    safety: true,
    liveness: afterFault('raft', ids, back, false),
    winner: null,
    noMajority: {
      until: back,
      citation:
        '§5.2: a candidate wins an election if it receives votes from a majority of the servers in the full cluster; 2 of 5 are no majority',
    },
  };
}

/**
 * The active-list ring only: a late ACK (000: "temporary network partition (slow communication)").
 * 0's link to its successor 1 takes 4T (more than UB = 2T + M) until t=3000, so 0 takes 1 for
 * dead and skips it: Elect(2) goes round without 1, while 0's hops to 1 still arrive, late. 1's
 * own Elect comes back with a list without 2, and 1 tells 2 Elected(1) while 2's own Elect is
 * still going round. 2 must wait for it (001 (c): the highest id of the complete list wins), not
 * believe 1: every live process must end with 2.
 */
function lateAck(): GradeCase {
  const ids = range(4);
  const late = 3000;
  return {
    id: 'late-ack',
    group: 'partition',
    title: `a late ACK: 3 has crashed, 0, 1 and 2 notice at once; 0's link to 1 takes ${4 * T} ms (over UB) until t=${late}`,
    spec: {
      ids,
      timing: TIMING,
      detector: 'none',
      link: { delay: T },
      links: { '0->1': { delay: 4 * T } },
      linkChanges: [{ at: late, links: {} }],
      crashes: [{ id: 3, at: 0 }],
      elections: ids.slice(0, 3).map((id) => ({ id, at: 0 })),
      until: late + 20_000,
    },
    // A link slower than UB leaves the documents' timing: two leaders at once may happen there.
    safety: false,
    liveness: afterFault('ring-active-list', ids, late, false),
    winner: 2,
  };
}

/** Every case for `algorithm`, in the order the report lists them. */
export function casesFor(algorithm: AlgorithmName): GradeCase[] {
  const counts = [4, 6, 8].flatMap((n) =>
    (['worst', 'best'] as const).map((c) => countsCase(algorithm, n, c)),
  );
  const partition =
    algorithm === 'emergent'
      ? [partitionHeals()]
      : algorithm === 'bully'
        ? [lowerAnnounces()]
        : algorithm === 'raft'
          ? [noMajority()]
          : algorithm === 'ring-active-list'
            ? [lateAck()]
            : [];
  return [
    exampleCase(algorithm),
    ...counts,
    crashDuringElection(algorithm),
    recovery(algorithm),
    twoInitiators(algorithm),
    lossWithDetector(algorithm),
    ...partition,
  ];
}
