// The coach's rules for 003's work schedule (shared/work/), beside the election's (rules.ts). The
// shadow is the lab's algorithm with its workload (withWork), so what the reference would send is
// the work layer's own step; these functions only name the rule a mismatch breaks, reading the
// shadow's state where the message alone does not say (is the machine she ordered busy?).
import type { Message, ProcessId } from '../algorithms/algorithm.ts';
import { COMPUTE_TIMER } from '../work/work-worker.ts';
import { isWorkType } from '../work/work-messages.ts';
import type { WorkState } from '../work/work-state.ts';
import type { RuleId } from './rules.ts';

/** The shadow's compute timer: set when the reference starts a task; in hand mode it waits on her accepting the task. */
export const WORK_COMPUTE_TIMER = COMPUTE_TIMER;

/**
 * The work layer's bookkeeping the tab does by itself (hand-work.ts), not judged: the status beat
 * every heartbeat interval, and the answer to "what do you hold?".
 */
export const isWorkPlumbing = (type: string): boolean =>
  type === 'WORK_STATUS' || type === 'WORK_HELD';

/** The shadow's work state, when the shadow runs the work layer (null: the election alone). */
function workOf(shadow: unknown): WorkState | null {
  const s = shadow as Partial<WorkState> | null;
  return s && typeof s === 'object' && 'newest' in s && 'job' in s ? (s as WorkState) : null;
}

/** She sent a work message the reference would not have; null when `message` is not the work layer's. */
export function unexpectedWorkRule(
  shadow: unknown,
  to: ProcessId,
  message: Message,
): RuleId | null {
  if (!isWorkType(message.type)) return null;
  const w = workOf(shadow);
  if (message.type === 'WORK_ASSIGN') {
    // 003: only an "empty" machine gets the next task; the reference's table says who is busy.
    const busy = w?.office?.running[to] !== undefined;
    return busy ? 'work.busy' : 'reference.send';
  }
  // A result for an order the reference refused as stale: she obeyed it.
  if (message.type === 'WORK_RESULT' && w && typeof message.token === 'number')
    return w.job.fencing && message.token < w.newest ? 'work.stale' : 'work.result';
  return 'reference.send';
}

/** The reference sent a work message and she did not within UB; null when it is not the work layer's. */
export function missedWorkRule(message: Message): RuleId | null {
  if (!isWorkType(message.type)) return null;
  if (message.type === 'WORK_STORE') return 'work.store';
  if (message.type === 'WORK_RESULT') return 'work.result';
  if (message.type === 'WORK_REFUSED') return 'work.stale';
  if (message.type === 'WORK_ASSIGN') return 'work.busy';
  return 'reference.missed';
}

/** The task the reference waits on her to accept (its compute timer set and not armed), if any. */
export function awaitedTask(shadow: unknown): number | null {
  return workOf(shadow)?.running?.task ?? null;
}
