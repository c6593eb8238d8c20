// The coach's rules for 003's work schedule (shared/coach/work-rules.ts, coach.ts): the shadow is
// the lab's algorithm with its workload (withWork over Bully), fed what a hand-played worker or
// coordinator saw and did. Each departure 003 names is marked with its rule: a task handed to a
// machine that is not "empty", a result never passed to the analyser, a result never sent back,
// a stale coordinator's order obeyed with fencing on. A student who does what the coach
// suggests, in time, is never marked.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  roundTripBound,
  type AlgorithmConfig,
  type Message,
  type ProcessId,
} from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { CoachFold, type HandAction } from '@shared/coach/coach.ts';
import { answerKey, DEFAULT_JOB, makeToken, type WorkJob } from '@shared/work/work-job.ts';
import { withWork } from '@shared/work/with-work.ts';

const UB = roundTripBound(DEFAULT_TIMING); // 210 ms
const ids = [1, 2, 3, 4, 5];
const JOB: WorkJob = { ...DEFAULT_JOB, tasks: 6, taskMs: 400 };
const KEY = answerKey(JOB);
const T5 = makeToken(1, 5);
const T4_OLD = makeToken(1, 4);
const T5_NEW = makeToken(2, 5);

const config = (self: ProcessId): AlgorithmConfig => ({
  self,
  ids,
  ring: ids,
  timing: DEFAULT_TIMING,
  detector: 'none',
  initialCoordinator: 5,
});

/** Her history fed to the relay's kind of fold, one entry at a time, with click numbers. */
class Play {
  readonly fold: CoachFold;
  private click = 0;
  constructor(self: ProcessId, job: WorkJob = JOB) {
    this.fold = new CoachFold(withWork(getAlgorithm('bully'), job), config(self), 1);
  }
  got(at: number, from: ProcessId, message: Message): this {
    this.fold.add({ kind: 'event', at, event: { kind: 'message', from, message } });
    return this;
  }
  did(at: number, action: HandAction): this {
    this.fold.add({ kind: 'action', at, action, click: ++this.click });
    return this;
  }
  send(at: number, to: ProcessId, message: Message): this {
    return this.did(at, { kind: 'send', to, message });
  }
  /** She follows every hint: sends each message the coach suggests at `now`, exactly, at `at`. */
  followAt(now: number, at = now + 20): Message[] {
    const sent: Message[] = [];
    for (const s of this.fold.view(now).suggestions) {
      this.send(at, s.to, s.message);
      sent.push(s.message);
    }
    return sent;
  }
  rules(now: number): string[] {
    return this.fold.view(now).deviations.map((d) => d.rule);
  }
}

const result = (token: number, task: number): Message => ({
  type: 'WORK_RESULT',
  token,
  task,
  value: KEY[task]!,
});

/** Worker 2 under coordinator 5: asked what it holds, then given task 0. */
const workerGivenTask = (job: WorkJob = JOB) =>
  new Play(2, job)
    .got(100, 5, { type: 'WORK_HOLD', token: T5, boot: 0 })
    .got(300, 5, { type: 'WORK_ASSIGN', token: T5, task: 0, reportTo: 5 });

describe('coach: a hand-played worker (003 dynamic sharing)', () => {
  it('accepting the task, computing it after its time and sending the result in time is never marked', () => {
    const p = workerGivenTask();
    expect(p.fold.view(350).wouldAccept).toBe(0);
    p.did(900, { kind: 'accept', task: 0, from: 5 });
    // The reference's compute time runs from her accepting, not from the order's arrival.
    expect(p.fold.view(900 + JOB.taskMs - 1).suggestions).toEqual([]);
    const due = p.fold.view(900 + JOB.taskMs).suggestions;
    expect(due.map((s) => [s.to, s.message])).toEqual([[5, result(T5, 0)]]);
    p.send(900 + JOB.taskMs + UB - 10, 5, result(T5, 0));
    expect(p.rules(5000)).toEqual([]);
  });

  it('a result never sent back is marked work.result once UB has passed after the task was done', () => {
    const p = workerGivenTask().did(400, { kind: 'accept', task: 0, from: 5 });
    expect(p.rules(400 + JOB.taskMs + UB)).toEqual([]);
    expect(p.rules(400 + JOB.taskMs + UB + 1)).toEqual(['work.result']);
  });

  it('fencing on: obeying a stale coordinator is marked work.stale once (the refusal it owed is not marked again)', () => {
    const p = new Play(2)
      .got(100, 5, { type: 'WORK_HOLD', token: T5_NEW, boot: 0 })
      .got(300, 4, { type: 'WORK_ASSIGN', token: T4_OLD, task: 1, reportTo: 4 });
    expect(p.fold.view(300).suggestions.map((s) => [s.to, s.message.type])).toEqual([
      [4, 'WORK_REFUSED'],
    ]);
    p.did(350, { kind: 'accept', task: 1, from: 4 });
    expect(p.rules(350)).toEqual(['work.stale']);
    p.send(350 + JOB.taskMs, 4, result(T4_OLD, 1));
    expect(p.rules(5000)).toEqual(['work.stale']);
    expect(p.fold.view(5000).deviations[0]!.action).toBe('accepted task 1 from 4');
  });

  it('fencing on: refusing the stale order, as the coach suggests, is never marked', () => {
    const p = new Play(2)
      .got(100, 5, { type: 'WORK_HOLD', token: T5_NEW, boot: 0 })
      .got(300, 4, { type: 'WORK_ASSIGN', token: T4_OLD, task: 1, reportTo: 4 });
    expect(p.followAt(300)).toEqual([{ type: 'WORK_REFUSED', token: T4_OLD, newest: T5_NEW }]);
    expect(p.rules(5000)).toEqual([]);
  });

  it('fencing off: the reference obeys the stale order too, so accepting it is not marked', () => {
    const p = new Play(2, { ...JOB, fencing: false })
      .got(100, 5, { type: 'WORK_HOLD', token: T5_NEW, boot: 0 })
      .got(300, 4, { type: 'WORK_ASSIGN', token: T4_OLD, task: 1, reportTo: 4 })
      .did(350, { kind: 'accept', task: 1, from: 4 });
    p.followAt(350 + JOB.taskMs);
    expect(p.rules(5000)).toEqual([]);
  });

  it('the status beat and the answer to "what do you hold?" are bookkeeping, never judged', () => {
    const p = workerGivenTask()
      .send(150, 5, {
        type: 'WORK_HELD',
        token: T5,
        task: -1,
        boot: 0,
        reused: false,
        held: [],
        stored: [],
      })
      .send(700, 3, { type: 'WORK_STATUS', token: T5, task: -1, boot: 0 });
    expect(p.rules(800)).toEqual([]);
  });
});

/** Coordinator 5 takes office at start, follows the coach through the gathering to the first orders. */
function coordinatorRunning(): { p: Play; now: number } {
  const p = new Play(5);
  expect(p.followAt(0, 10).map((m) => m.type)).toEqual(Array(4).fill('WORK_HOLD'));
  for (const w of [1, 2, 3, 4])
    p.got(250, w, {
      type: 'WORK_HELD',
      token: T5,
      task: -1,
      boot: 0,
      reused: false,
      held: [],
      stored: [],
    });
  const now = 10 + 2 * UB;
  const orders = p.followAt(now);
  expect(orders.map((m) => [m.type, m.task])).toEqual([
    ['WORK_ASSIGN', 0],
    ['WORK_ASSIGN', 1],
    ['WORK_ASSIGN', 2],
    ['WORK_ASSIGN', 3],
  ]);
  return { p, now: now + 20 };
}

describe('coach: a hand-played coordinator (003 dynamic sharing)', () => {
  it('handing tasks only to empty machines and passing every result to the analyser, as suggested, is never marked', () => {
    const { p, now } = coordinatorRunning();
    p.got(now + 500, 1, result(T5, 0));
    const next = p.followAt(now + 500, now + 600);
    // 003: the result goes to the analyser (4, the highest id heard) and 1, empty again, gets the next task.
    expect(next).toEqual([
      { type: 'WORK_STORE', token: T5, task: 0, value: KEY[0] },
      { type: 'WORK_ASSIGN', token: T5, task: 4, reportTo: 5 },
    ]);
    expect(p.rules(now + 1000)).toEqual([]);
  });

  it('a task sent to a busy machine is marked work.busy', () => {
    const { p, now } = coordinatorRunning();
    p.send(now + 100, 2, { type: 'WORK_ASSIGN', token: T5, task: 5, reportTo: 5 });
    expect(p.rules(now + 100 + UB + 1)).toEqual(['work.busy']);
    expect(p.fold.view(now + 100 + UB + 1).deviations[0]!.action).toBe('sent WORK_ASSIGN to 2');
  });

  it('a result never passed to the analyser is marked work.store', () => {
    const { p, now } = coordinatorRunning();
    p.got(now + 500, 1, result(T5, 0));
    // She hands 1 its next task but keeps the result to herself.
    p.send(now + 550, 1, { type: 'WORK_ASSIGN', token: T5, task: 4, reportTo: 5 });
    expect(p.rules(now + 500 + UB)).toEqual([]);
    expect(p.rules(now + 500 + UB + 1)).toEqual(['work.store']);
  });
});
