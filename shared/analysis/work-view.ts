// What the Work panel draws (shared/analysis/work-board.ts folds it from the relay's trace), and
// what the board tells the live checker of (checker-work.ts): the shapes, and the one piece of
// the view that reads the processes' reports, their claims.
import type { ProcessId, Report } from '../algorithms/algorithm.ts';
import type { Workload } from '../protocol/lab-config.ts';
import type { TaskFigures } from '../work/task-tally.ts';

/** Rows of "results and who holds them" a panel lists. */
export const HOLDER_ROWS = 24;

/** An order the relay delivered stamped older than a token it had delivered to that process before. */
export interface StaleDelivery {
  to: ProcessId;
  from: ProcessId;
  type: string;
  token: number;
  /** The newest token delivered to `to` before. */
  newest: number;
  task: number;
  t: number;
}

export interface WorkView extends TaskFigures {
  sharing: Workload['sharing'];
  fencing: boolean;
  /** Tasks neither kept by a live analyser nor running on a live machine. */
  queued: number;
  /** Live machine -> the task it works on (the first order it holds), by id. */
  running: { id: ProcessId; task: number; waiting: number }[];
  /**
   * Tasks whose result no live process can still hand in. Dynamic sharing: computed, and every
   * holder crashed since (a new office reassigns them). Static sharing, which never reassigns nor
   * asks: kept by an analyser that crashed, sent to one that is down, or ordered to a machine
   * that is down (003's problems 3 and 4).
   */
  lostNow: number;
  /** Completed per second over elapsedMs. */
  throughput: number | null;
  /** From the job's first order to the last result kept once all are done, else to now. */
  elapsedMs: number | null;
  /** The newest token on an order in the trace, its sender and epoch (fact). */
  token: { token: number; epoch: number; by: ProcessId } | null;
  /** The process the newest office last sent a result to keep (fact). */
  analyser: ProcessId | null;
  /** What the processes say of themselves (their reports): claims. */
  claims: { coordinators: { id: ProcessId; token: number }[]; analysers: ProcessId[] };
  /** Per task (first HOLDER_ROWS): done or not, and the live processes holding its result. */
  holders: {
    task: number;
    state: 'done' | 'running' | 'queued' | 'lost';
    kept: ProcessId[];
    held: ProcessId[];
  }[];
  /** Relay ms of the job's first order seen; null: none yet. */
  since: number | null;
  /** False when the first work message this page saw was not the job's first order: it opened mid-job, earlier events are not counted. */
  fromStart: boolean;
}

/** What the processes say of themselves (their reports' `work` role and `token`): claims, not facts. */
export function claimsOf(
  reports: Iterable<{ id: ProcessId; status: string; report: Report | null }>,
): WorkView['claims'] {
  const coordinators: WorkView['claims']['coordinators'] = [];
  const analysers: ProcessId[] = [];
  for (const p of reports) {
    if (p.status !== 'up' || !p.report?.detail) continue;
    const role = p.report.detail['work'];
    const token = p.report.detail['token'];
    if (role === 'coordinator')
      coordinators.push({ id: p.id, token: typeof token === 'number' ? token : 0 });
    else if (role === 'analyser') analysers.push(p.id);
  }
  return { coordinators, analysers };
}
