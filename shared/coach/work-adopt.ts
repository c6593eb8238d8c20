// The coach adopts a hand-played coordinator's own legal choices (docs/WORK_SCHEDULE.md, "Hand
// mode"). 003's dynamic sharing says which machines may get a task ("hand the next task only to an
// empty machine"), not which task or which empty machine: any queued task to any empty machine is
// a correct move. The reference picks one (the lowest queued task to each idle worker, in id
// order); she may pick another. Then the shadow's task table is rewritten to hers, so that what
// it says later (who is busy, what is still queued) is what holds on the wire, and only real
// departures are marked: a busy machine, a result kept from the analyser, a stale token obeyed.
import type { Message, ProcessId } from '../algorithms/algorithm.ts';
import { given } from '../work/work-coordinator.ts';
import { isTask } from '../work/work-job.ts';
import type { WorkState } from '../work/work-state.ts';

/** An order the reference would send (or would have): one of the coach's suggestions. */
interface Ordered {
  to: ProcessId;
  message: Message;
}

interface Adopted {
  /** The shadow's work state with her order in its table. */
  state: WorkState;
  /** The reference's orders hers replaces (their worker or their task is hers now): no longer owed. */
  replaced: Ordered[];
}

/** The order the reference owes `to` (or owes with `task`), among its suggestions. */
const owedTo = (orders: readonly Ordered[], pick: (o: Ordered) => boolean) =>
  orders.find((o) => o.message.type === 'WORK_ASSIGN' && pick(o));

/**
 * Her WORK_ASSIGN to `to` as a legal move in the shadow's office, or null (not the office's
 * token, the office not handing out yet, an unknown task, a task done or running elsewhere, a
 * worker not heard from or busy: those are judged as before). `orders`: the reference's open and
 * late suggestions; an order it owes but she has not sent leaves its worker empty and its task
 * queued as far as she is concerned.
 */
export function adoptAssign(
  shadow: unknown,
  orders: readonly Ordered[],
  to: ProcessId,
  m: Message,
  now: number,
): Adopted | null {
  const s = shadow as WorkState | null;
  const o = s && typeof s === 'object' && 'office' in s ? s.office : null;
  if (!s || !o || o.phase !== 'running' || m.type !== 'WORK_ASSIGN') return null;
  const task = m.task;
  if (typeof task !== 'number' || !isTask(s.job, task) || m.token !== o.token) return null;
  if (to === s.self || o.heard[to] === undefined) return null;
  const mine = owedTo(orders, (x) => x.to === to && o.running[to] === x.message.task);
  if (o.running[to] !== undefined && !mine) return null; // busy: work.busy, as before
  const other = owedTo(orders, (x) => x.message.task === task && o.running[x.to] === task);
  if (!o.queued.includes(task) && !other) return null;
  const running = { ...o.running };
  let queued = o.queued;
  const replaced: Ordered[] = [];
  if (mine) {
    delete running[to];
    // The task the reference meant for her worker goes back to the front, as a requeue does.
    if (mine.message.task !== task) queued = [mine.message.task as number, ...queued];
    replaced.push(mine);
  }
  if (other && other !== mine) {
    delete running[other.to];
    replaced.push(other);
  }
  const office = {
    ...o,
    queued: queued.filter((t) => t !== task),
    running: { ...running, [to]: task },
    since: { ...o.since, [to]: now },
    givenTo: given(o.givenTo, task, to, s.ids.length),
  };
  return { state: { ...s, office }, replaced };
}
