// What a grader case is (a simulator spec and what is checked on its run) and the settings and
// bounds the case tables share (cases.ts, example-cases.ts): the documents' timing, ids 0..N-1,
// the checker's bounds.
import {
  DEFAULT_TIMING,
  type AlgorithmName,
  type ProcessId,
  type Timing,
} from '../algorithms/algorithm.ts';
import { checkerProfile } from '../analysis/checker-profiles.ts';
import type { SimulationSpec } from '../sim/simulator.ts';
import type { Peers } from './peers.ts';

export type CaseGroup =
  'example' | 'counts' | 'crash' | 'recovery' | 'initiators' | 'loss' | 'partition';

export interface GradeCase {
  id: string;
  group: CaseGroup;
  title: string;
  spec: Omit<SimulationSpec, 'algorithm'>;
  /** Check safety (false where the case leaves the algorithm's assumptions: message loss). */
  safety: boolean;
  /** Exact message counts from `countFrom` on, by type, with the formula each comes from. */
  counts?: { from: number; expected: Record<string, number>; formulas: Record<string, string> };
  /** The election (from `from`) must end by `from + bound`; `formula` names where the bound comes from. */
  liveness: { from: number; bound: number; formula: string };
  /** Who must end up coordinator, where the documents say (null: any one agreed live process). */
  winner: ProcessId | null;
  /** Safety from this time on only (a partition: each side may elect its own until it heals). */
  safetyFrom?: number;
  /** The emergent slave pool at the end (slaves and candidates among the live), within [min, max]. */
  pool?: { min: number; max: number; formula: string };
  /** Ids that run a peer implementation beside hers (peers.ts); the reference's run has the same peers. */
  peers?: Peers;
  /**
   * Two leaders at once that the documents predict in this case (outside their assumptions): not
   * her bug. A safety violation is then reported as expected behaviour, with this citation.
   */
  predictedSplit?: string;
  /**
   * Raft with no majority alive until `until`: no leader is what the documents predict (not her
   * bug, reported with this citation); a leader then is hers (elected without a majority).
   */
  noMajority?: { until: number; citation: string };
}

export const T = DEFAULT_TIMING.transmission;
export const TIMING: Timing = DEFAULT_TIMING;
export const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => i + from);
export const HIGHEST: readonly AlgorithmName[] = ['bully', 'ring', 'ring-active-list'];

export function bounds(algorithm: AlgorithmName, ids: readonly number[]) {
  return checkerProfile({ algorithm, ids, timing: TIMING }).bounds;
}

/** Liveness after the last fault at `at`: noticing it (the checker's quiet bound) plus one election. */
export function afterFault(
  algorithm: AlgorithmName,
  ids: readonly number[],
  at: number,
  detector: boolean,
) {
  const b = bounds(algorithm, ids);
  return detector
    ? {
        from: at,
        bound: b.quiet + b.election,
        formula: "detection + one election (the checker's quiet + election bounds)",
      }
    : {
        from: at,
        bound: 2 * b.election + b.quiet,
        formula: "two elections and a timeout (the checker's bounds)",
      };
}
