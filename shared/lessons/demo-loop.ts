// The demo lab's loop (issue 28, "a first look that moves"): every half period the coordinator
// the class agrees on is crashed, and the next half period it recovers, so a newcomer's first
// dashboard shows a failure, an election and a comeback without touching a control. Pure: the
// relay feeds a tick with what its processes report and executes the move that comes back.
import type { ProcessId } from '../algorithms/algorithm.ts';

/** A crash, then a recovery: one of each per period. */
export const DEMO_PERIOD_MS = 30_000;

export interface DemoState {
  /** The id the loop crashed and has not recovered yet. */
  crashed: ProcessId | null;
}

/** What the lab looks like at a tick: each live process's view of the coordinator. */
interface DemoView {
  reports: readonly { id: ProcessId; coordinator: ProcessId | null }[];
}

type DemoMove = { kind: 'crash' | 'recover'; id: ProcessId } | null;

export const demoStart = (): DemoState => ({ crashed: null });

/**
 * The coordinator most live processes name, when it is itself live and names itself; null while
 * they disagree or are still electing (the loop then waits for the next tick instead of crashing
 * a process mid-election).
 */
export function agreedCoordinator(view: DemoView): ProcessId | null {
  const votes = new Map<ProcessId, number>();
  for (const r of view.reports)
    if (r.coordinator !== null) votes.set(r.coordinator, (votes.get(r.coordinator) ?? 0) + 1);
  let best: ProcessId | null = null;
  for (const [id, n] of votes) if (best === null || n > votes.get(best)!) best = id;
  if (best === null || votes.get(best)! * 2 <= view.reports.length) return null;
  const self = view.reports.find((r) => r.id === best);
  return self?.coordinator === best ? best : null;
}

/** One tick: recover what the last tick crashed, or crash the agreed coordinator. */
export function demoTick(state: DemoState, view: DemoView): { state: DemoState; move: DemoMove } {
  if (state.crashed !== null)
    return { state: { crashed: null }, move: { kind: 'recover', id: state.crashed } };
  const coordinator = agreedCoordinator(view);
  if (coordinator === null) return { state, move: null };
  return { state: { crashed: coordinator }, move: { kind: 'crash', id: coordinator } };
}
