// The documents' message counts and time bounds, per algorithm, case and N, as the lab's
// implementations realise them. The setting is the documents' analysis: ids 0..N-1, the
// coordinator N-1 has crashed, exactly one process detects it, nothing is lost, every message
// takes exactly T and processing is instant (M only enters through the timeouts).
//
// Sources: Bully, 002 ("Worst case ... O(n²) msgs", "Best case ... n-2 messages") and 003
// ("Σ (N-2) election messages", "Takes 1 time-out ... and time to send N-2 messages"); the ring,
// 002 ("2 (n-1) messages always") and 001 (the active list); the emergent election, 003 ("Candidate
// elections take the same length of time independent of the idle pool"); Raft, §5.2 of the paper.
// Where the lab differs from a document (acknowledged ring hops, returns to the initiator, a
// send to the dead coordinator) the formula counts what the lab sends; docs/RESULTS.md says why.
import {
  DEFAULT_TIMING,
  type AlgorithmName,
  type ProcessId,
  type Timing,
} from '../algorithms/algorithm.ts';
import { emergentOptions } from '../algorithms/emergent-state.ts';

export type ElectionCase = 'worst' | 'best' | 'random';
export const ELECTION_CASES: readonly ElectionCase[] = ['worst', 'best', 'random'];

/** Over the detectors a case allows: one for worst and best, all for random (uniformly). */
interface Range {
  min: number;
  max: number;
  mean: number;
}

export interface Expectation {
  /** Messages of each type sent from detection until the election is over. */
  messages: Record<string, Range & { formula: string }>;
  /** Detection to the last live process knowing the coordinator, in transmission times T. */
  time: Range & { formula: string };
  /** The processes whose detection the case covers. */
  detectors: ProcessId[];
  /** False when no coordinator can be elected (Raft with no live majority). */
  elects: boolean;
}

/** One detector's exact counts and time (in T). */
interface Exact {
  messages: Record<string, number>;
  time: number;
}

/** M/T; the emergent candidates' wait in T and the slave pool size k at a steady start. */
interface Constants {
  m: number;
  wait: number;
  pool: number;
}

/** A formula's text, the same for every case or one per case. */
type Text = string | Record<ElectionCase, string>;

interface Model {
  formulas: Record<string, Text>;
  timeFormula: Text;
  exact(n: number, d: ProcessId, k: Constants): Exact;
  /** Who may detect (Bully, ring, Raft: every live id; emergent: only the slave pool). */
  detectors(n: number, opts: Record<string, unknown> | undefined, timing: Timing): ProcessId[];
}

const live = (n: number) => Array.from({ length: Math.max(0, n - 1) }, (_, i) => i);

const MODELS: Record<AlgorithmName, Model> = {
  bully: {
    formulas: {
      ELECTION: { worst: 'N(N−1)/2', best: '1', random: '(N−d)(N−1−d)/2' },
      OK: { worst: '(N−1)(N−2)/2', best: '0', random: '(N−1−d)(N−2−d)/2' },
      COORDINATOR: 'N−2',
    },
    timeFormula: { worst: '4T + M', best: '3T + M', random: '3T + M or 4T + M' },
    detectors: live,
    exact(n, d, { m }) {
      // Detector d sends to every higher id; each live i in d+1..N-2 holds one election too.
      const a = n - 1 - d;
      if (n <= 2) return { messages: { ELECTION: 1, OK: 0, COORDINATOR: 0 }, time: 2 + m };
      // ELECTION: T; the highest live waits UB = 2T + M on the dead N-1; COORDINATOR: T.
      return {
        messages: { ELECTION: (a * (a + 1)) / 2, OK: ((a - 1) * a) / 2, COORDINATOR: n - 2 },
        time: d === n - 2 ? 3 + m : 4 + m,
      };
    },
  },
  ring: {
    formulas: { ELECTION: 'N', COORDINATOR: 'N−1', ACK: '2(N−1)' },
    timeFormula: '(2N−1)T + M',
    detectors: live,
    exact(n, _d, { m }) {
      const l = n - 1;
      if (l <= 1) return { messages: { ELECTION: 1, COORDINATOR: 0, ACK: 0 }, time: 2 + m };
      // Each circuit returns to its starter; the hop to the dead N-1 waits UB for an ACK, once.
      return { messages: { ELECTION: l + 1, COORDINATOR: l, ACK: 2 * l }, time: 2 * l + 1 + m };
    },
  },
  'ring-active-list': {
    formulas: {
      ELECT: { worst: '(N−1)² + N−1', best: '(N−1)² + 1', random: '(N−1)² + N−1−d' },
      ELECTED: 'N−1',
      ACK: 'N(N−1)',
    },
    timeFormula: '2NT + M',
    detectors: live,
    exact(n, d, { m }) {
      const l = n - 1;
      if (l <= 1) return { messages: { ELECT: 1, ELECTED: 0, ACK: 0 }, time: 2 + m };
      // Every live process circulates its own Elect (l hops each). The Elects that reach N-2
      // before its first ACK timeout (those of d..N-2, started on the first wave) each try the
      // dead N-1 once.
      return {
        messages: { ELECT: l * l + (n - 1 - d), ELECTED: l, ACK: l * l + l },
        time: 2 * l + 2 + m,
      };
    },
  },
  emergent: {
    formulas: { CANDIDATE: 'k(k−1), k = slave pool', ABORT: '0' },
    timeFormula: { worst: 'wait + 2T', best: 'wait + T', random: 'wait + T or 2T' },
    detectors(n, opts, timing) {
      const k = poolOf(n, timing, opts);
      return Array.from({ length: k }, (_, i) => n - 1 - k + i);
    },
    exact(n, d, { wait, pool: k }) {
      // The highest slave N-2 wins when its wait ends: `wait` after detecting, or T + wait after
      // hearing CANDIDATE. Other candidates decide when their own waits end; idles learn from the
      // winner's first heartbeat, T later.
      const w = n - 2;
      const decided = wait + (d === w ? 0 : 1);
      const others = Array.from({ length: k }, (_, i) => n - 1 - k + i)
        .filter((c) => c !== w)
        .map((c) => (c === d ? wait : wait + 1));
      const idles = n - 1 - k;
      return {
        messages: { CANDIDATE: k * (k - 1), ABORT: 0 },
        time: Math.max(decided + (idles > 0 ? 1 : 0), ...others),
      };
    },
  },
  raft: {
    formulas: { REQUEST_VOTE: 'N−1', VOTE: 'N−2', HEARTBEAT: 'N−1' },
    timeFormula: '3T',
    detectors: live,
    exact(n) {
      // One campaign: REQUEST_VOTE out (T), VOTE back (T), the winner's heartbeat (T).
      return { messages: { REQUEST_VOTE: n - 1, VOTE: n - 2, HEARTBEAT: n - 1 }, time: 3 };
    },
  },
};

/** Who detects in a case: worst = the lowest id that can, best = the highest (Bully: N-2). */
export function detectorsFor(
  algorithm: AlgorithmName,
  n: number,
  c: ElectionCase,
  opts?: Record<string, unknown>,
  timing: Timing = DEFAULT_TIMING,
): ProcessId[] {
  const all = MODELS[algorithm].detectors(n, opts, timing);
  if (c === 'random' || all.length === 0) return all;
  return [c === 'worst' ? all[0]! : all[all.length - 1]!];
}

export function expectedFor(
  algorithm: AlgorithmName,
  n: number,
  detector: ProcessId,
  timing: Timing = DEFAULT_TIMING,
  opts?: Record<string, unknown>,
): Exact {
  const o = emergentOptions(opts, timing).options;
  const constants = {
    m: timing.processing / timing.transmission,
    wait: (o.candidateWaitPeriods * o.heartbeatInterval) / timing.transmission,
    pool: poolOf(n, timing, opts),
  };
  return MODELS[algorithm].exact(n, detector, constants);
}

export function expectedMessages(
  algorithm: AlgorithmName,
  n: number,
  c: ElectionCase,
  timing: Timing = DEFAULT_TIMING,
  opts?: Record<string, unknown>,
): Expectation {
  const model = MODELS[algorithm];
  const detectors = detectorsFor(algorithm, n, c, opts, timing);
  const runs = detectors.map((d) => expectedFor(algorithm, n, d, timing, opts));
  const messages: Expectation['messages'] = {};
  for (const type of Object.keys(model.formulas)) {
    messages[type] = {
      ...range(runs.map((r) => r.messages[type] ?? 0)),
      formula: text(model.formulas[type]!, c),
    };
  }
  return {
    messages,
    time: { ...range(runs.map((r) => r.time)), formula: text(model.timeFormula, c) },
    detectors,
    // Raft needs floor(N/2) + 1 votes of the N known ids; N-1 are live.
    elects: algorithm !== 'raft' || n - 1 >= Math.floor(n / 2) + 1,
  };
}

/** Message types each formula covers (the algorithm's election messages). */
export function formulaTypes(algorithm: AlgorithmName): string[] {
  return Object.keys(MODELS[algorithm].formulas);
}

/** The emergent election's steady-start slave pool: `initialPool` ids below the master. */
function poolOf(n: number, timing: Timing, opts?: Record<string, unknown>): number {
  return Math.max(0, Math.min(emergentOptions(opts, timing).options.initialPool, n - 1));
}

function text(t: Text, c: ElectionCase): string {
  return typeof t === 'string' ? t : t[c];
}

function range(xs: number[]): Range {
  if (xs.length === 0) return { min: 0, max: 0, mean: 0 };
  return {
    min: Math.min(...xs),
    max: Math.max(...xs),
    mean: xs.reduce((a, b) => a + b, 0) / xs.length,
  };
}
