// 003's work schedule composed with any election algorithm: `withWork(bully, job)` is itself an
// Algorithm, so the simulator, the process host and the explorer run it as they run the
// election alone (one host of each). The election's messages and timers pass through to it
// untouched; the work layer's (WORK_*, work:*) are its own. After every step the layer reads the
// election's report: the process that believes itself coordinator (and is not electing) acts
// as coordinator; every order it gives carries its token.
import {
  withReports,
  type Algorithm,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type AnyAlgorithm,
  type Effect,
} from '../algorithms/algorithm.ts';
import type { Message, Report, Step, StepContext } from '../algorithms/algorithm.ts';
import { isProcessId, messageParser } from '../algorithms/messages.ts';
import {
  GATHER_TIMER,
  leaveOffice,
  onGather,
  onHeld,
  onResult,
  onStatus,
  onSweep,
  SWEEP_TIMER,
  takeOffice,
} from './work-coordinator.ts';
import type { Workload } from '../protocol/lab-config.ts';
import { answerKey, checks, epochOf, jobOf, makeToken, type WorkJob } from './work-job.ts';
import { noResults } from './task-results.ts';
import { isWorkType, WORK_SCHEMAS, WORK_TYPES, type WorkMessage } from './work-messages.ts';
import { count, ZERO_COUNTERS, type WorkState } from './work-state.ts';
import {
  COMPUTE_TIMER,
  onAssign,
  onComputed,
  onHold,
  onStatusTimer,
  onStore,
  STATUS_TIMER,
  type Fx,
} from './work-worker.ts';

const parse = messageParser(WORK_SCHEMAS);

export function withWork<S, M extends Message>(
  election: Algorithm<S, M>,
  job: WorkJob,
): Algorithm<WorkState<S>, Message> {
  const key = answerKey(job);
  const none = noResults(job.tasks); // shared by every process's empty store: results are copied on write
  const inner = (out: Step<S, M>, s: WorkState<S>): Step<WorkState<S>, Message> => {
    // The election's own reports are replaced by the composed one (withReports adds it).
    const fx: Fx = (out.effects as Effect[]).filter((e) => e.kind !== 'report');
    const state = sync({ ...s, election: out.state, last: election.report(out.state) }, fx);
    return { state, effects: fx };
  };
  return withReports<WorkState<S>, Message>({
    name: election.name,
    messageTypes: [...election.messageTypes, ...WORK_TYPES],
    init(config: AlgorithmConfig, ctx: StepContext) {
      const out = election.init(config, ctx);
      const s0: WorkState<S> = {
        election: out.state,
        self: config.self,
        boot: Math.max(0, Math.floor(ctx.now)),
        ids: config.ids,
        job,
        key,
        timing: config.timing,
        last: election.report(out.state),
        newest: 0,
        boss: null,
        askedBy: null,
        running: null,
        queue: [],
        held: {},
        store: none,
        storeSize: 0,
        lastStored: null,
        lastDone: null,
        office: null,
        c: ZERO_COUNTERS,
      };
      const step = inner(out, s0);
      if (job.sharing === 'dynamic')
        step.effects.push({
          kind: 'set-timer',
          name: STATUS_TIMER,
          after: config.timing.heartbeatInterval,
        });
      return step;
    },
    step(s0, event, ctx) {
      const s =
        s0.lastDone === null && s0.lastStored === null
          ? s0
          : { ...s0, lastDone: null, lastStored: null };
      if (event?.kind === 'message' && isWorkType(event.message?.type)) return work(s, event, ctx);
      if (
        event?.kind === 'timer' &&
        typeof event.name === 'string' &&
        event.name.startsWith('work:')
      )
        return workTimer(s, event.name, ctx);
      return inner(election.step(s.election, event as AlgorithmEvent<M>, ctx), s);
    },
    report(s) {
      return reportOf(s);
    },
  });
}

/** The election alone, or with the lab's workload over it (what a bot or a tab runs). */
export function withWorkload(election: AnyAlgorithm, workload: Workload | undefined): AnyAlgorithm {
  return workload ? withWork(election, jobOf(workload)) : election;
}

function reportOf<S>(s: WorkState<S>): Report {
  const role = s.office ? 'coordinator' : s.storeSize > 0 ? 'analyser' : 'worker';
  return { ...s.last, detail: { ...s.last.detail, work: role, token: s.newest } };
}

/**
 * Static sharing (003's baseline): a coordinator that has seen no token (no share reached it, so
 * as far as it knows the job was never split) splits it up front; nothing is ever reassigned.
 * A coordinator that restarts has forgotten the split and splits the job again from the start.
 */
function shareStatically<S>(s: WorkState<S>, fx: Fx): WorkState<S> {
  const workers = s.ids.filter((id) => id !== s.self);
  if (workers.length === 0) return s;
  const token = makeToken(1, s.self);
  const analyser = workers[workers.length - 1]!;
  for (let t = 0; t < s.job.tasks; t++) {
    fx.push({
      kind: 'send',
      to: workers[t % workers.length]!,
      message: { type: 'WORK_ASSIGN', token, task: t, reportTo: analyser },
    });
  }
  return { ...s, newest: token };
}

/** Takes or leaves office as the election's report says; with fencing, an office found stale is taken anew. */
function sync<S>(s: WorkState<S>, fx: Fx): WorkState<S> {
  const chosen = s.last.coordinator === s.self && !s.last.electing;
  if (!chosen) return leaveOffice(s, fx);
  if (s.job.sharing === 'static') return s.newest === 0 ? shareStatically(s, fx) : s;
  if (s.office && !(s.job.fencing && s.office.token < s.newest)) return s;
  // Raft's term is the token's epoch (one leader per term); the others bump past the newest seen.
  const epoch = typeof s.last.term === 'number' ? s.last.term : epochOf(s.newest) + 1;
  const token = makeToken(epoch, s.self);
  if (token < s.newest) return leaveOffice(s, fx); // a stale Raft leader: wait for a newer term
  if (s.office && token === s.office.token) return s;
  return takeOffice(leaveOffice(s, fx), token, fx);
}

function work<S>(
  s: WorkState<S>,
  event: Extract<AlgorithmEvent, { kind: 'message' }>,
  ctx: StepContext,
): Step<WorkState<S>, Message> {
  const m =
    isProcessId(event.from) && s.ids.includes(event.from)
      ? (parse(event.message) as WorkMessage | null)
      : null;
  if (!m) return { state: count(s, 'ignored'), effects: [] };
  const fx: Fx = [];
  const from = event.from;
  let out: WorkState<S>;
  switch (m.type) {
    case 'WORK_ASSIGN':
      out = onAssign(s, m, from, fx);
      break;
    case 'WORK_HOLD':
      out = onHold(s, m, from, fx);
      break;
    case 'WORK_STORE':
      out = onStore(s, m.token, m.task, m.value, from, fx);
      break;
    case 'WORK_RESULT':
      // In office: a worker's answer. Otherwise: static sharing's result for the analyser, or a
      // result for a coordinator gone (kept; the next office finds it by asking).
      out = s.office
        ? onResult(s, m, from, ctx, fx)
        : s.job.sharing === 'static'
          ? onStore(s, m.token, m.task, m.value, from, fx)
          : keep(s, m.task, m.value);
      break;
    case 'WORK_STATUS':
      out = s.office ? onStatus(s, m, from, ctx, fx) : s;
      break;
    case 'WORK_HELD':
      out = s.office ? onHeld(s, m, from, ctx, fx) : s;
      break;
    case 'WORK_REFUSED':
      out = m.newest > s.newest ? { ...s, newest: m.newest } : s;
      break;
  }
  // Any token newer than ours (a status from a worker another office ordered) makes an office stale.
  if ('token' in m && m.token > out.newest && s.job.fencing) out = { ...out, newest: m.token };
  return { state: sync(out, fx), effects: fx };
}

function keep<S>(s: WorkState<S>, task: number, value: number): WorkState<S> {
  // Checked before it is kept, so a forged result never reaches the next office's table.
  if (!checks(s.key, task, value)) return count(s, 'wrong');
  return s.held[task] !== undefined ? s : { ...s, held: { ...s.held, [task]: value } };
}

function workTimer<S>(
  s: WorkState<S>,
  name: string,
  ctx: StepContext,
): Step<WorkState<S>, Message> {
  const fx: Fx = [];
  let out = s;
  if (name === COMPUTE_TIMER) out = onComputed(s, fx);
  else if (name === STATUS_TIMER) out = onStatusTimer(s, fx);
  else if (name === GATHER_TIMER) out = onGather(s, ctx, fx);
  else if (name === SWEEP_TIMER) out = onSweep(s, ctx, fx);
  return { state: out, effects: fx };
}
