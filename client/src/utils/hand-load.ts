// What the busiest student owes at once when the class plays by hand (issue 24, "Time that fits
// people"): the Hand play panel says it beside UB, so the instructor can pick a time scale for the
// class size. Pure, from the algorithm and the number of ids.
import type { AlgorithmName } from '@shared/algorithms/algorithm.ts';

export interface BusiestLoad {
  /** Messages she owes, each within UB of what asked for it. */
  sends: number;
  /** Her clicks with hints on (one batch per kind of send, hints.ts) and with the queue's own buttons. */
  clicksWithHints: number;
  clicksWithout: number;
}

/**
 * Bully's start election (000; 003: "a process holds an election on start"): every lower id's
 * ELECTION reaches the top id, which owes each an OK and each its COORDINATOR, 2(N - 1) sends; one
 * batch per kind with hints, one "Answer OK" per ELECTION and one declaration without. Null for
 * the other algorithms: no figure is derived for them yet (the active-list ring's Elects, for
 * one, can all reach one student at once; the class simulator measures it, docs/RUN_A_CLASS.md).
 */
export function busiestLoad(algorithm: AlgorithmName, ids: number): BusiestLoad | null {
  if (algorithm !== 'bully' || ids < 2) return null;
  return { sends: 2 * (ids - 1), clicksWithHints: 2, clicksWithout: ids };
}
