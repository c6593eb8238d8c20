// Hand mode's side of 003's work schedule (docs/WORK_SCHEDULE.md, "Hand mode"): what her tab
// knows of the job and what she can click. Pure: (her work state, a delivery or a click, her
// clock) -> her work state and the sends it makes. The judging is the coach's (coach.ts, its
// shadow the lab's algorithm with the workload); this is her side only.
//
// As a worker she sees the orders that reach her, accepts one (the task's time starts then),
// computes it with a click enabled once that time has passed, and sends the result where the
// work layer sends it (the order's giver, and the coordinator she obeys now if that is another).
// As the coordinator she hands a task of her choice to a worker of her choice, and passes the
// results that come back to the analyser. Two things her tab does by itself, as bookkeeping the
// coach does not judge: the status beat ("empty", or busy with a task) every heartbeat interval
// and at once when she accepts, and the answer to "what do you hold?" (and the refusal of a
// stale one, with fencing on).
import type { Message, ProcessId } from '../algorithms/algorithm.ts';
import { checks, isTask, taskTime, type WorkJob } from '../work/work-job.ts';
import { NONE, type WorkMessage } from '../work/work-messages.ts';
import type { HandStep, Offer } from './hand-kit.ts';

/** An order that reached her: the task, its token, who gave it, where its result goes (static sharing). */
interface HandOrder {
  task: number;
  token: number;
  from: ProcessId;
  reportTo: ProcessId;
  /** Its token was older than the newest she had seen when it came. */
  stale: boolean;
}

export interface HandWork {
  job: WorkJob;
  key: readonly number[];
  self: ProcessId;
  /** Her clock when this life began (the status beat's `boot`). */
  boot: number;
  /** The newest token seen on an order obeyed (or on a refusal). */
  newest: number;
  /** The giver of the newest order obeyed: where status and results go when no coordinator is believed. */
  boss: ProcessId | null;
  /** The boot of the office that asked "what do you hold?" last (a new boot with the same token: reused). */
  askedBy: number | null;
  /** Orders waiting for her, oldest first (bounded by the job's size). */
  offered: HandOrder[];
  running: (HandOrder & { since: number }) | null;
  /** Computed, its result not yet sent. */
  computed: (HandOrder & { value: number }) | null;
  /** Results she computed or received, and those she keeps as analyser. */
  held: Record<number, number>;
  store: Record<number, number>;
  /** As coordinator: her office's token (from her WORK_HOLD), worker -> the task she gave it, results received. */
  office: number | null;
  given: Record<ProcessId, number>;
  /** Worker -> when she gave it its task (her clock): an "empty" status sent before her order arrived does not free it. */
  givenAt: Record<ProcessId, number>;
  /** UB = 2T + M: an order and a status cross within it. */
  ub: number;
  results: Record<number, number>;
  /** Results passed to an analyser (WORK_STORE sent). */
  passed: Record<number, ProcessId>;
  /** As coordinator: id -> when last heard (her clock); 003: the analyser is the highest id heard within the heartbeat timeout. */
  heard: Record<ProcessId, number>;
}

interface WorkSend {
  to: ProcessId;
  message: Message;
}

export function handWork(
  job: WorkJob,
  key: readonly number[],
  self: ProcessId,
  boot: number,
  ub: number,
) {
  const w: HandWork = {
    job,
    key,
    self,
    boot: Math.max(0, Math.floor(boot)),
    newest: 0,
    boss: null,
    askedBy: null,
    offered: [],
    running: null,
    computed: null,
    held: {},
    store: {},
    office: null,
    given: {},
    givenAt: {},
    ub,
    results: {},
    passed: {},
    heard: {},
  };
  return w;
}

interface Delivered {
  work: HandWork;
  /** Bookkeeping her tab sends by itself. */
  sends: WorkSend[];
  /** What her queue says (null: nothing to show: a status beat, an answer to her question). */
  note: string | null;
}

const refusal = (to: ProcessId, token: number, newest: number): WorkSend => ({
  to,
  message: { type: 'WORK_REFUSED', token, newest },
});

/** A work message reached her (checked by the schemas already). */
export function workDelivered(
  w: HandWork,
  from: ProcessId,
  m: WorkMessage,
  now: number,
): Delivered {
  const heard = { ...w.heard, [from]: now };
  switch (m.type) {
    case 'WORK_ASSIGN': {
      const stale = m.token < w.newest;
      const known = w.offered.some((o) => o.task === m.task) || w.running?.task === m.task;
      if (!isTask(w.job, m.task) || known || w.offered.length >= w.job.tasks)
        return { work: w, sends: [], note: `WORK_ASSIGN from ${from}: task ${m.task} (ignored)` };
      const order = { task: m.task, token: m.token, from, reportTo: m.reportTo, stale };
      const obeyed = stale ? {} : { newest: m.token, boss: from };
      return {
        work: { ...w, ...obeyed, offered: [...w.offered, order] },
        sends: [],
        note: `task ${m.task} offered by ${from}${stale ? ' (its token is older than the newest you saw)' : ''}`,
      };
    }
    case 'WORK_HOLD': {
      if (w.job.fencing && m.token < w.newest)
        return { work: w, sends: [refusal(from, m.token, w.newest)], note: null };
      const reused = m.token === w.newest && w.askedBy !== null && w.askedBy !== m.boot;
      const all = { ...w.held, ...w.store };
      const held = Object.entries(all).map(([t, v]) => [Number(t), v]);
      const message = {
        type: 'WORK_HELD',
        token: m.token,
        task: w.running?.task ?? NONE,
        boot: w.boot,
        reused,
        held,
        stored: Object.keys(w.store).map(Number),
      };
      const boss = w.office === null ? from : w.boss;
      const work = { ...w, newest: Math.max(w.newest, m.token), askedBy: m.boot, boss };
      return { work, sends: [{ to: from, message }], note: null };
    }
    case 'WORK_STORE': {
      if (w.job.fencing && m.token < w.newest)
        return { work: w, sends: [refusal(from, m.token, w.newest)], note: null };
      const ok = checks(w.key, m.task, m.value) && w.store[m.task] === undefined;
      const store = ok ? { ...w.store, [m.task]: m.value } : w.store;
      return {
        work: { ...w, newest: Math.max(w.newest, m.token), store },
        sends: [],
        note: null, // counted on her Work card ("kept as analyser"), not one queue item each
      };
    }
    case 'WORK_REFUSED':
      return {
        work: { ...w, newest: Math.max(w.newest, m.newest) },
        sends: [],
        note: `${from} refused your token: a newer one exists`,
      };
    case 'WORK_RESULT':
      return {
        work: received(w, from, m.task, m.value, heard),
        sends: [],
        note: `result of task ${m.task} from ${from}`,
      };
    case 'WORK_HELD': {
      let out = { ...w, heard };
      for (const [t, v] of m.held) out = received(out, from, t, v, heard, false);
      if (m.task !== NONE) out = { ...out, given: { ...out.given, [from]: m.task } };
      return { work: out, sends: [], note: null };
    }
    case 'WORK_STATUS': {
      const given = { ...w.given };
      // An empty machine holds nothing of hers any more (its result came, or it restarted),
      // unless the status crossed her order (the layer's own check, work-coordinator.ts onStatus).
      if (m.task === NONE && now - (w.givenAt[from] ?? -Infinity) > w.ub) delete given[from];
      else if (m.task !== NONE) given[from] = m.task;
      return { work: { ...w, heard, given }, sends: [], note: null };
    }
  }
}

/** As coordinator: a checked result joins her table; its worker is empty again. */
function received(
  w: HandWork,
  from: ProcessId,
  task: number,
  value: number,
  heard: Record<ProcessId, number>,
  empties = true,
): HandWork {
  const given = { ...w.given };
  if (empties && given[from] === task) delete given[from];
  if (!checks(w.key, task, value)) return { ...w, heard, given };
  return { ...w, heard, given, results: { ...w.results, [task]: value } };
}

/** The status beat: alive, busy or empty, to the coordinator she believes (else the one she obeyed). */
export function statusBeat(w: HandWork, believes: ProcessId | null): WorkSend | null {
  const to = believes ?? w.boss;
  if (to === null || to === w.self || w.office !== null) return null;
  const task = w.running?.task ?? NONE;
  return { to, message: { type: 'WORK_STATUS', token: w.newest, task, boot: w.boot } };
}

/** Her click carried out on her work state (`now`: her clock). */
export function workStep(w: HandWork, step: HandStep, now: number): HandWork {
  if (step.kind === 'accept') {
    const order = w.offered.find((o) => o.task === step.task);
    if (!order || w.running || w.computed) return w;
    const offered = w.offered.filter((o) => o !== order);
    return { ...w, offered, running: { ...order, since: now } };
  }
  if (step.kind === 'compute') {
    const r = w.running;
    if (!r || now < r.since + taskTime(w.job, w.self)) return w;
    const value = w.key[r.task]!;
    return { ...w, running: null, computed: { ...r, value }, held: { ...w.held, [r.task]: value } };
  }
  if (step.kind !== 'send') return w;
  return workSent(w, step.to, step.message, now);
}

/** Her send of a work message, in her state (a hint's send counts as hers too). */
function workSent(w: HandWork, to: ProcessId, m: Message, now: number): HandWork {
  const task = typeof m.task === 'number' ? m.task : -1;
  switch (m.type) {
    case 'WORK_RESULT': {
      const value = typeof m.value === 'number' ? m.value : -1;
      const held = checks(w.key, task, value) ? { ...w.held, [task]: value } : w.held;
      const computed = w.computed?.task === task ? null : w.computed;
      const running = w.running?.task === task ? null : w.running;
      return { ...w, held, computed, running, offered: w.offered.filter((o) => o.task !== task) };
    }
    case 'WORK_REFUSED':
      return { ...w, offered: w.offered.filter((o) => !(o.from === to && o.token === m.token)) };
    case 'WORK_HOLD':
      return typeof m.token === 'number'
        ? { ...w, office: m.token, newest: Math.max(w.newest, m.token), boss: null }
        : w;
    case 'WORK_ASSIGN':
      return {
        ...w,
        given: { ...w.given, [to]: task },
        givenAt: { ...w.givenAt, [to]: now },
      };
    case 'WORK_STORE':
      return { ...w, passed: { ...w.passed, [task]: to } };
    default:
      return w;
  }
}

/** Her believing another coordinator ends her office (the work layer's leaveOffice). */
export function leftOffice(w: HandWork, coordinator: ProcessId | null): HandWork {
  return w.office !== null && coordinator !== w.self ? { ...w, office: null, given: {} } : w;
}

/** When she may compute the task she runs (her clock), or null. */
export const readyAt = (w: HandWork): number | null =>
  w.running ? w.running.since + taskTime(w.job, w.self) : null;

/**
 * Her worker's offers: accept (or refuse) the oldest order waiting when she is empty; compute
 * (enabled at `readyAt`); send the result. Where a result goes is the work layer's rule
 * (work-worker.ts sendResult).
 */
export function workerOffers(w: HandWork): Offer[] {
  const out: Offer[] = [];
  if (w.computed) {
    const o = w.computed;
    const message = { type: 'WORK_RESULT', token: o.token, task: o.task, value: o.value };
    const to =
      w.job.sharing === 'static'
        ? [o.reportTo]
        : [o.from, ...(w.boss !== null && w.boss !== o.from ? [w.boss] : [])];
    const steps: HandStep[] = to.map((t) => ({ kind: 'send', to: t, message }));
    out.push({
      key: 'work-result',
      label: `Send the result of task ${o.task} to ${to.join(' and ')}`,
      steps,
    });
  }
  if (w.running) {
    const r = w.running;
    out.push({
      key: 'work-compute',
      label: `Compute task ${r.task}`,
      steps: [{ kind: 'compute' }],
      readyAt: readyAt(w)!,
    });
  }
  const first = w.offered[0];
  if (first && !w.running && !w.computed) {
    const held = w.held[first.task];
    if (held !== undefined) {
      const message = { type: 'WORK_RESULT', token: first.token, task: first.task, value: held };
      out.push({
        key: 'work-again',
        label: `Task ${first.task} is done already: send its result to ${first.from}`,
        steps: [{ kind: 'send', to: first.from, message }],
      });
    } else
      out.push({
        key: 'work-accept',
        label: `Accept task ${first.task} from ${first.from}`,
        steps: [{ kind: 'accept', task: first.task, from: first.from }],
      });
    if (first.stale)
      out.push({
        key: 'work-refuse',
        label: `Refuse task ${first.task}: its token is stale`,
        steps: [
          {
            kind: 'send',
            to: first.from,
            message: refusal(first.from, first.token, w.newest).message,
          },
        ],
      });
  }
  return out;
}

/**
 * The analyser she passes results to: 003's rule, as the work layer's (work-coordinator.ts
 * appoint): the highest id heard within the heartbeat timeout, not her. One gone silent is
 * presumed crashed, and the next is the analyser (every result is passed to it again).
 */
export function analyserOf(w: HandWork, now: number, timeout: number): ProcessId | null {
  const live = Object.entries(w.heard)
    .filter(([id, at]) => Number(id) !== w.self && now - at <= timeout)
    .map(([id]) => Number(id));
  return live.length ? Math.max(...live) : null;
}

/** As coordinator: hand `task` to `worker` under her office's token (she picks both; the coach judges). */
export function assignOffer(w: HandWork, task: number, worker: ProcessId): Offer | null {
  if (w.office === null || !isTask(w.job, task) || worker === w.self) return null;
  const message = { type: 'WORK_ASSIGN', token: w.office, task, reportTo: w.self };
  return {
    key: `work-assign-${task}-${worker}`,
    label: `Give task ${task} to ${worker}`,
    steps: [{ kind: 'send', to: worker, message }],
  };
}

/** As coordinator: pass the results not yet passed to the analyser (one click, one WORK_STORE each). */
export function storeOffer(w: HandWork, analyser: ProcessId | null): Offer | null {
  const a = analyser;
  if (w.office === null || a === null) return null;
  const left = Object.entries(w.results).filter(([t]) => w.passed[Number(t)] !== a);
  if (left.length === 0) return null;
  const steps: HandStep[] = left.map(([t, v]) => ({
    kind: 'send',
    to: a,
    message: { type: 'WORK_STORE', token: w.office!, task: Number(t), value: v },
  }));
  const tasks = left.map(([t]) => t).join(', ');
  return {
    key: 'work-store',
    label: `Pass the results of task ${tasks} to the analyser ${a}`,
    steps,
  };
}

/** As coordinator: the tasks with no result and not running on anyone, in order (what she may hand out next). */
export function openTasks(w: HandWork): number[] {
  const busy = new Set(Object.values(w.given));
  const out: number[] = [];
  for (let t = 0; t < w.job.tasks && out.length < 200; t++)
    if (w.results[t] === undefined && !busy.has(t)) out.push(t);
  return out;
}
