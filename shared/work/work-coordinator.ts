// The coordinator of dynamic sharing (003): hands the next task only to an empty machine,
// checks the machines' status and reassigns a crashed one's task, appoints the analyser and a
// new one when it crashes, and on taking office rebuilds the task table from what the others
// hold ("what do you hold?"). Every order carries the office's token.
import { roundTripBound, type ProcessId, type StepContext } from '../algorithms/algorithm.ts';
import { checks, epochOf, isTask, makeToken } from './work-job.ts';
import { NONE, type WorkMessage } from './work-messages.ts';
import { entries, fromRecord, has, withResult } from './task-results.ts';
import { count, type Office, type WorkState } from './work-state.ts';
import type { Fx } from './work-worker.ts';

type Msg<T extends WorkMessage['type']> = Extract<WorkMessage, { type: T }>;
type Ws<S> = WorkState<S>;

export const GATHER_TIMER = 'work:gather';
export const SWEEP_TIMER = 'work:sweep';

/** Take office with `token`: ask everyone what they hold, hand out nothing until they answered. */
export function takeOffice<S>(s: Ws<S>, token: number, fx: Fx): Ws<S> {
  const done = fromRecord(s.job.tasks, s.held, Object.fromEntries(entries(s.store)));
  const office: Office = {
    token,
    phase: 'gathering',
    analyser: null,
    queued: [],
    running: {},
    since: {},
    boots: {},
    done,
    doneCount: entries(done).length,
    givenTo: [],
    heard: {},
    storedBy: {},
  };
  for (const to of s.ids)
    if (to !== s.self)
      fx.push({ kind: 'send', to, message: { type: 'WORK_HOLD', token, boot: s.boot } });
  // The answers' round trip, twice: a late answer is still merged when it comes.
  fx.push({ kind: 'set-timer', name: GATHER_TIMER, after: 2 * roundTripBound(s.timing) });
  fx.push({ kind: 'set-timer', name: SWEEP_TIMER, after: s.timing.heartbeatInterval });
  return { ...s, newest: Math.max(s.newest, token), boss: null, running: null, queue: [], office };
}

/** Leaving office (the election named another): the results it knew stay held here. */
export function leaveOffice<S>(s: Ws<S>, fx: Fx): Ws<S> {
  if (!s.office) return s;
  fx.push(
    { kind: 'cancel-timer', name: GATHER_TIMER },
    { kind: 'cancel-timer', name: SWEEP_TIMER },
  );
  return { ...s, held: { ...s.held, ...Object.fromEntries(entries(s.office.done)) }, office: null };
}

const withOffice = <S>(s: Ws<S>, o: Partial<Office>): Ws<S> => ({
  ...s,
  office: { ...s.office!, ...o },
});

export function onGather<S>(s: Ws<S>, ctx: StepContext, fx: Fx): Ws<S> {
  const o = s.office;
  if (!o || o.phase !== 'gathering') return s;
  const busy = new Set(Object.values(o.running));
  const queued: number[] = [];
  for (let t = 0; t < s.job.tasks; t++) if (!has(o.done, t) && !busy.has(t)) queued.push(t);
  const s1 = withOffice(s, { phase: 'running', queued });
  return assign(appoint(s1, fx), ctx.now, fx);
}

/** The analyser is appointed as the coordinator is elected (003): the highest id heard, below or above, but not itself. */
function appoint<S>(s: Ws<S>, fx: Fx): Ws<S> {
  const o = s.office!;
  const live = Object.keys(o.heard)
    .map(Number)
    .filter((id) => id !== s.self);
  if (live.length === 0) return withOffice(s, { analyser: null, storedBy: {} });
  const analyser = Math.max(...live);
  const kept = new Set(
    o.storedBy[analyser] ?? (analyser === o.analyser ? entries(o.done).map(([t]) => t) : []),
  );
  for (const [t, v] of entries(o.done)) {
    if (!kept.has(t))
      fx.push({
        kind: 'send',
        to: analyser,
        message: { type: 'WORK_STORE', token: o.token, task: t, value: v },
      });
  }
  return withOffice(s, { analyser, storedBy: {} });
}

/** Hands the next queued task to every empty machine heard from (or among `only`: the one just heard). */
function assign<S>(s: Ws<S>, now: number, fx: Fx, only?: ProcessId): Ws<S> {
  const o = s.office!;
  if (o.phase !== 'running' || o.queued.length === 0) return s;
  const candidates =
    only === undefined
      ? Object.keys(o.heard).map(Number)
      : o.heard[only] === undefined
        ? []
        : [only];
  const idle = candidates.filter((w) => w !== s.self && o.running[w] === undefined);
  if (idle.length === 0) return s; // the common case: copy nothing
  const handed = idle.slice(0, o.queued.length);
  const running = { ...o.running };
  const since = { ...o.since };
  let givenTo = o.givenTo;
  handed.forEach((w, i) => {
    const task = o.queued[i]!;
    running[w] = task;
    since[w] = now;
    givenTo = given(givenTo, task, w, s.ids.length);
    fx.push({
      kind: 'send',
      to: w,
      message: { type: 'WORK_ASSIGN', token: o.token, task, reportTo: s.self },
    });
  });
  return withOffice(s, { queued: o.queued.slice(handed.length), running, givenTo, since });
}

/** givenTo with `w` added for `task` (each list bounded by the lab's size). */
export function given(
  list: Office['givenTo'],
  task: number,
  w: ProcessId,
  max: number,
): Office['givenTo'] {
  const out = list.slice();
  out[task] = [...(list[task] ?? []).filter((x) => x !== w), w].slice(-max);
  return out;
}

/** A worker's task goes back to the front of the queue (it crashed, or came back empty). */
function requeue<S>(s: Ws<S>, w: ProcessId): Ws<S> {
  const o = s.office!;
  const task = o.running[w];
  if (task === undefined) return s;
  const running = { ...o.running };
  delete running[w];
  if (has(o.done, task)) return withOffice(s, { running });
  return count(withOffice(s, { running, queued: [task, ...o.queued] }), 'reassigned');
}

/** A checked result joins the table and goes to the analyser; the worker is empty again. */
function record<S>(s: Ws<S>, task: number, value: number, fx: Fx): Ws<S> {
  const o = s.office!;
  if (has(o.done, task)) return s;
  if (o.analyser !== null)
    fx.push({
      kind: 'send',
      to: o.analyser,
      message: { type: 'WORK_STORE', token: o.token, task, value },
    });
  const queued = o.queued.includes(task) ? o.queued.filter((t) => t !== task) : o.queued;
  return withOffice(s, {
    done: withResult(o.done, task, value),
    doneCount: o.doneCount + 1,
    queued,
  });
}

export function onResult<S>(
  s0: Ws<S>,
  m: Msg<'WORK_RESULT'>,
  from: ProcessId,
  ctx: StepContext,
  fx: Fx,
): Ws<S> {
  const o = s0.office!;
  // An earlier office's order (its token older, or the table still being rebuilt) is not in this
  // table: its result is kept if it checks, as what its sender holds.
  const earlier = m.token < o.token || o.phase === 'gathering';
  const given = isTask(s0.job, m.task) && (earlier || (o.givenTo[m.task]?.includes(from) ?? false));
  if (!given) return count(s0, 'wrong'); // never given to it: ignored
  if (!checks(s0.key, m.task, m.value))
    return assign(
      o.running[from] === m.task ? requeue(count(s0, 'wrong'), from) : count(s0, 'wrong'),
      ctx.now,
      fx,
    );
  let s = withOffice(s0, { heard: { ...o.heard, [from]: ctx.now } });
  if (o.running[from] === m.task) {
    const running = { ...o.running };
    delete running[from];
    s = withOffice(s, { running });
  }
  s = has(o.done, m.task) ? count(s, 'duplicates') : record(s, m.task, m.value, fx);
  return assign(s, ctx.now, fx, from);
}

export function onStatus<S>(
  s0: Ws<S>,
  m: Msg<'WORK_STATUS'>,
  from: ProcessId,
  ctx: StepContext,
  fx: Fx,
): Ws<S> {
  const o = s0.office!;
  let s = withOffice(s0, { heard: { ...o.heard, [from]: ctx.now } });
  s = rebooted(s, from, m.boot);
  const mine = s.office!.running[from];
  // An empty machine we think busy lost the order, unless the status left before the order arrived.
  const lost = m.task === NONE && ctx.now - (o.since[from] ?? 0) > roundTripBound(s0.timing);
  if (mine !== undefined && m.task !== mine && lost) s = requeue(s, from);
  if (m.task !== NONE && s.office!.running[from] === undefined && !has(o.done, m.task))
    s = adopt(s, from, m.task, ctx.now);
  // It has not heard this office's question (it restarted, or it was cut off): ask it now.
  if (m.token < o.token)
    fx.push({
      kind: 'send',
      to: from,
      message: { type: 'WORK_HOLD', token: o.token, boot: s0.boot },
    });
  if (s.office!.phase === 'running' && s.office!.analyser === null) s = appoint(s, fx);
  return assign(s, ctx.now, fx, from);
}

/** A new boot: the machine restarted empty. Its task goes back; if it was the analyser, its results went with it: appoint anew. */
function rebooted<S>(s: Ws<S>, from: ProcessId, boot: number): Ws<S> {
  const o = s.office!;
  const before = o.boots[from];
  if (before === boot) return s;
  const s1 = withOffice(s, { boots: { ...o.boots, [from]: boot } });
  if (before === undefined) return s1;
  const s2 = requeue(s1, from);
  return from === o.analyser ? withOffice(s2, { analyser: null }) : s2;
}

/** A worker busy with a task this office did not give (an earlier office's): it counts as running there. */
function adopt<S>(s: Ws<S>, w: ProcessId, task: number, now: number): Ws<S> {
  if (!isTask(s.job, task)) return count(s, 'wrong');
  const o = s.office!;
  return withOffice(s, {
    running: { ...o.running, [w]: task },
    since: { ...o.since, [w]: now },
    queued: o.queued.filter((t) => t !== task),
    givenTo: given(o.givenTo, task, w, s.ids.length),
  });
}

export function onHeld<S>(
  s0: Ws<S>,
  m: Msg<'WORK_HELD'>,
  from: ProcessId,
  ctx: StepContext,
  fx: Fx,
): Ws<S> {
  const o = s0.office!;
  if (m.token !== o.token) return s0; // an answer to an earlier office
  // This token was given out before by an earlier life of this process (a crash forgets it; it
  // is not kept on disk): take office again with a newer one, so no two offices share a token.
  if (m.reused && typeof s0.last.term !== 'number')
    return takeOffice(leaveOffice(s0, fx), makeToken(epochOf(o.token) + 1, s0.self), fx);
  const gathering =
    o.phase === 'gathering' ? { storedBy: { ...o.storedBy, [from]: m.stored } } : {};
  let s = rebooted(
    withOffice(s0, { heard: { ...o.heard, [from]: ctx.now }, ...gathering }),
    from,
    m.boot,
  );
  for (const [t, v] of m.held) {
    if (!checks(s.key, t, v)) s = count(s, 'wrong');
    else s = record(s, t, v, fx);
  }
  if (m.task !== NONE && !has(s.office!.done, m.task)) s = adopt(s, from, m.task, ctx.now);
  if (s.office!.phase === 'running' && s.office!.analyser === null) s = appoint(s, fx);
  return assign(s, ctx.now, fx);
}

/** The status check: a machine silent past the heartbeat timeout is presumed crashed. */
export function onSweep<S>(s0: Ws<S>, ctx: StepContext, fx: Fx): Ws<S> {
  if (!s0.office) return s0;
  fx.push({ kind: 'set-timer', name: SWEEP_TIMER, after: s0.timing.heartbeatInterval });
  let s = s0;
  let lostAnalyser = false;
  for (const [key, at] of Object.entries(s0.office.heard)) {
    if (ctx.now - at <= s0.timing.heartbeatTimeout) continue;
    const w = Number(key);
    const heard = { ...s.office!.heard };
    delete heard[w];
    s = requeue(withOffice(s, { heard }), w);
    if (w === s.office!.analyser) lostAnalyser = true;
  }
  if (lostAnalyser && s.office!.phase === 'running')
    s = appoint(withOffice(s, { analyser: null }), fx);
  return assign(s, ctx.now, fx);
}
