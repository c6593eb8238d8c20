// A worker and the analyser: obey orders (fenced by token), compute, hold results, keep them.
import type { Effect, ProcessId } from '../algorithms/algorithm.ts';
import { checks, isTask, taskTime } from './work-job.ts';
import { NONE, type WorkMessage } from './work-messages.ts';
import { entries, has, withResult } from './task-results.ts';
import { count, type Order, type WorkState } from './work-state.ts';

export type Fx = Effect[];
type Msg<T extends WorkMessage['type']> = Extract<WorkMessage, { type: T }>;

export const COMPUTE_TIMER = 'work:compute';
export const STATUS_TIMER = 'work:status';

/**
 * Fencing: an order stamped older than the newest token seen is refused (fencing on: counted,
 * and the sender told so) or obeyed and counted (fencing off). Returns null when refused.
 */
function fence<S>(s: WorkState<S>, token: number, from: ProcessId, fx: Fx): WorkState<S> | null {
  if (token >= s.newest) return { ...s, newest: token };
  if (s.job.fencing) {
    fx.push({ kind: 'send', to: from, message: { type: 'WORK_REFUSED', token, newest: s.newest } });
    return null;
  }
  return count(s, 'staleAccepted');
}

export function onAssign<S>(
  s0: WorkState<S>,
  m: Msg<'WORK_ASSIGN'>,
  from: ProcessId,
  fx: Fx,
): WorkState<S> {
  if (s0.office) return count(s0, 'ignored'); // a coordinator in office takes no orders
  if (!isTask(s0.job, m.task)) return count(s0, 'wrong'); // in the schema's range, not in this job
  const fenced = fence(s0, m.token, from, fx);
  if (!fenced) return count(s0, 'staleRefused');
  const s = m.token >= s0.newest ? { ...fenced, boss: from } : fenced;
  const order: Order = { task: m.task, token: m.token, from, reportTo: m.reportTo };
  const known = s.held[m.task];
  if (known !== undefined) {
    // Done before (the order was repeated after a crash or a rebuild): answer, do not redo.
    sendResult(s, order, known, fx);
    return s;
  }
  if (s.running?.task === m.task || s.queue.some((o) => o.task === m.task)) return s;
  if (!s.running) return start(s, order, fx);
  // Busy (a second coordinator's order, or static sharing's whole share): queue, bounded by the job.
  if (s.queue.length >= s.job.tasks) return count(s, 'dropped');
  return { ...s, queue: [...s.queue, order] };
}

function start<S>(s: WorkState<S>, order: Order, fx: Fx): WorkState<S> {
  fx.push({ kind: 'set-timer', name: COMPUTE_TIMER, after: taskTime(s.job, s.self) });
  return { ...s, running: order };
}

/**
 * Where a result goes. Static: the analyser the order named. Dynamic: the order's giver, and the
 * coordinator obeyed now if that is another (the giver may have crashed or lost office; results
 * are keyed by task, so a second copy is never a second result).
 */
function sendResult<S>(s: WorkState<S>, o: Order, value: number, fx: Fx): void {
  const message = { type: 'WORK_RESULT', token: o.token, task: o.task, value };
  if (s.job.sharing === 'static') {
    fx.push({ kind: 'send', to: o.reportTo, message });
    return;
  }
  fx.push({ kind: 'send', to: o.from, message });
  if (s.boss !== null && s.boss !== o.from) fx.push({ kind: 'send', to: s.boss, message });
}

/** The compute timer: the task is done; hold the result, send it, take the next order. */
export function onComputed<S>(s0: WorkState<S>, fx: Fx): WorkState<S> {
  const o = s0.running;
  if (!o) return s0;
  const value = s0.key[o.task]!;
  let s: WorkState<S> = {
    ...count(s0, 'computed'),
    running: null,
    held: { ...s0.held, [o.task]: value },
    lastDone: o.task,
  };
  sendResult(s, o, value, fx);
  const [next, ...rest] = s.queue;
  if (next) s = start({ ...s, queue: rest }, next, fx);
  return s;
}

/**
 * The status beat: alive, and busy or empty, to the coordinator the election names (else the one
 * obeyed last): a coordinator that lost office is not told, the one elected hears of everyone.
 */
export function onStatusTimer<S>(s: WorkState<S>, fx: Fx): WorkState<S> {
  fx.push({ kind: 'set-timer', name: STATUS_TIMER, after: s.timing.heartbeatInterval });
  const to = s.last.coordinator ?? s.boss;
  if (to === null || to === s.self || s.office) return s;
  fx.push({
    kind: 'send',
    to,
    message: { type: 'WORK_STATUS', token: s.newest, task: s.running?.task ?? NONE, boot: s.boot },
  });
  return s;
}

/** Analyser: keep a checked result under its task id; a second copy is duplicate work, never a second result. */
export function onStore<S>(
  s0: WorkState<S>,
  token: number,
  task: number,
  value: number,
  from: ProcessId,
  fx: Fx,
): WorkState<S> {
  const fenced = fence(s0, token, from, fx);
  if (!fenced) return count(s0, 'staleRefused');
  if (!checks(s0.key, task, value)) return count(fenced, 'wrong');
  if (has(fenced.store, task)) return count(fenced, 'duplicates');
  return {
    ...fenced,
    store: withResult(fenced.store, task, value),
    storeSize: fenced.storeSize + 1,
    lastStored: task,
  };
}

/** "What do you hold?": the task running, every result held or kept; the asker becomes the boss. */
export function onHold<S>(
  s0: WorkState<S>,
  m: Msg<'WORK_HOLD'>,
  from: ProcessId,
  fx: Fx,
): WorkState<S> {
  const fenced = fence(s0, m.token, from, fx);
  if (!fenced) return count(s0, 'staleRefused');
  const reused = m.token === s0.newest && s0.askedBy !== null && s0.askedBy !== m.boot;
  const s =
    m.token >= s0.newest
      ? { ...fenced, askedBy: m.boot, ...(s0.office ? {} : { boss: from }) }
      : fenced;
  const held = {
    ...s.held,
    ...Object.fromEntries(entries(s.store)),
    ...Object.fromEntries(s.office ? entries(s.office.done) : []),
  };
  fx.push({
    kind: 'send',
    to: from,
    message: {
      type: 'WORK_HELD',
      token: m.token,
      task: s.running?.task ?? NONE,
      boot: s.boot,
      reused,
      held: Object.entries(held).map(([t, v]) => [Number(t), v]),
      stored: entries(s.store).map(([t]) => t),
    },
  });
  return s;
}
