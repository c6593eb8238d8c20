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

  it("a result sent before the task's time is marked work.result once, and not again when the reference would send it (003: a machine sends its result when it finishes)", () => {
    const p = workerGivenTask().did(400, { kind: 'accept', task: 0, from: 5 });
    p.send(400 + JOB.taskMs / 2, 5, result(T5, 0));
    expect(p.rules(400 + JOB.taskMs / 2)).toEqual(['work.result']);
    expect(p.fold.view(5000).deviations[0]!.action).toBe(
      'sent the result of task 0 before its time',
    );
    expect(p.fold.view(5000).suggestions).toEqual([]);
    expect(p.rules(5000)).toEqual(['work.result']);
  });

  it('a result sent for a task offered but never accepted is marked work.result (its time never started)', () => {
    const p = workerGivenTask().send(350, 5, result(T5, 0));
    expect(p.rules(350)).toEqual(['work.result']);
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

const assign = (task: number): Message => ({ type: 'WORK_ASSIGN', token: T5, task, reportTo: 5 });

/** Coordinator 5 takes office at start and hears every worker empty: the reference's first orders are due. */
function coordinatorGathered(): { p: Play; now: number } {
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
  return { p, now: 10 + 2 * UB };
}

/** Coordinator 5 takes office at start, follows the coach through the gathering to the first orders. */
function coordinatorRunning(): { p: Play; now: number } {
  const { p, now } = coordinatorGathered();
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

  it('handing queued tasks to empty machines in another order than the reference is never marked (003: "hand the next task only to an empty machine"; which one is hers)', () => {
    const { p, now } = coordinatorGathered();
    // The reference would give 0, 1, 2, 3 to 1, 2, 3, 4; she picks other tasks and other workers.
    for (const [task, w] of [
      [3, 1],
      [0, 4],
      [5, 2],
      [1, 3],
    ] as const)
      p.send(now + 20, w, assign(task));
    expect(p.fold.view(now + 20).suggestions).toEqual([]);
    // The shadow's table is hers: the workers' status beats name her tasks, and nothing is requeued.
    for (const [w, task] of [
      [1, 3],
      [4, 0],
      [2, 5],
      [3, 1],
    ] as const)
      p.got(now + 300, w, { type: 'WORK_STATUS', token: T5, task, boot: 0 });
    expect(p.fold.view(now + 300).suggestions).toEqual([]);
    p.got(now + 500, 1, result(T5, 3));
    // The result goes to the analyser, and 1 is empty: she gives it 4 where the reference says 2.
    const owed = p.fold.view(now + 500).suggestions.map((s) => [s.to, s.message.type]);
    expect(owed).toEqual([
      [4, 'WORK_STORE'],
      [1, 'WORK_ASSIGN'],
    ]);
    p.send(now + 520, 4, { type: 'WORK_STORE', token: T5, task: 3, value: KEY[3]! });
    p.send(now + 520, 1, assign(4));
    p.got(now + 800, 1, { type: 'WORK_STATUS', token: T5, task: 4, boot: 0 });
    expect(p.fold.view(now + 800).suggestions).toEqual([]);
    expect(p.rules(now + 800 + UB + 1)).toEqual([]);
  });

  it('after her own order of tasks, a task to a machine busy with hers is still marked work.busy', () => {
    const { p, now } = coordinatorGathered();
    p.send(now + 20, 1, assign(3));
    p.send(now + 40, 1, assign(0));
    expect(p.rules(now + 40 + UB + 1)).toContain('work.busy');
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
