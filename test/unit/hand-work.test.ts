// Hand mode in 003's work schedule (shared/coach/hand-work.ts through hand-runner.ts) on a
// virtual clock: as a worker she sees the task offered, accepts it, computes it with a click that
// does nothing before the task's time, and sends the result to the coordinator with its token;
// with fencing on she can refuse a stale order. As the coordinator she asks what everyone holds,
// hands a task of her choice to an empty worker, and passes results to the analyser (003: the
// highest id heard). Her tab sends the bookkeeping by itself (status beats, "what I hold"), and
// the coach marks only the departures.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, type Message, type ProcessId } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { HandRunner } from '@shared/coach/hand-runner.ts';
import { assignOffer } from '@shared/coach/hand-work.ts';
import { hints } from '@shared/coach/hints.ts';
import type { HostIO } from '@shared/sim/process-host.ts';
import { answerKey, DEFAULT_JOB, makeToken, type WorkJob } from '@shared/work/work-job.ts';
import { withWork } from '@shared/work/with-work.ts';

const ids = [1, 2, 3, 4, 5];
const JOB: WorkJob = { ...DEFAULT_JOB, tasks: 6, taskMs: 400 };
const KEY = answerKey(JOB);
const T5 = makeToken(1, 5);

function played(self: ProcessId, job: WorkJob = JOB) {
  let now = 0;
  let next = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const sent: { to: number; message: Message }[] = [];
  const marks: string[] = [];
  const io: HostIO = {
    send: (to, message) => sent.push({ to, message }),
    report: () => {},
    setTimer: (fn, ms) => {
      timers.set(++next, { at: now + ms, fn });
      return next;
    },
    clearTimer: (h) => void timers.delete(h as number),
    now: () => now,
    random: () => 0.5,
  };
  const advance = (ms: number) => {
    const end = now + ms;
    for (let guard = 0; guard < 10_000; guard++) {
      const due = [...timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      timers.delete(due[0]);
      now = due[1].at;
      due[1].fn();
    }
    now = end;
  };
  const r = new HandRunner({
    algorithm: withWork(getAlgorithm('bully'), job),
    io,
    seed: 1,
    autoBeat: true,
    work: job,
    onHand: (_action, d) => marks.push(...d.map((x) => x.rule)),
  });
  r.start({
    self,
    ids,
    ring: ids,
    timing: DEFAULT_TIMING,
    detector: 'none',
    initialCoordinator: 5,
  });
  const offer = (key: string) => r.view().work!.offers.find((o) => o.key === key);
  const click = (key: string) => {
    const o = offer(key);
    if (!o) throw new Error(`no offer ${key}: ${r.view().work!.offers.map((x) => x.key)}`);
    r.act(o);
  };
  const sentOf = (type: string) => sent.filter((s) => s.message.type === type);
  return { r, sent, marks, advance, offer, click, sentOf };
}

describe('hand mode: a worker of the work schedule', () => {
  it('sees the task, accepts it, computes it only after its time, and sends the result with the token; nothing marked', () => {
    const h = played(2);
    h.r.deliver(5, { type: 'WORK_HOLD', token: T5, boot: 0 });
    // "What do you hold?" is answered by her tab (bookkeeping), and the status beats start.
    expect(h.sentOf('WORK_HELD')).toMatchObject([{ to: 5, message: { token: T5, task: -1 } }]);
    h.advance(DEFAULT_TIMING.heartbeatInterval);
    expect(h.sentOf('WORK_STATUS').at(-1)).toMatchObject({ to: 5, message: { task: -1 } });

    h.r.deliver(5, { type: 'WORK_ASSIGN', token: T5, task: 3, reportTo: 5 });
    expect(h.r.view().queue[0]!.note).toBe('task 3 offered by 5');
    h.advance(100);
    const accept = h.offer('work-accept')!;
    h.click('work-accept');
    // A second click on the same offer (a hint's button drawn before the first) takes nothing and is no action.
    h.r.act(accept);
    // Her accepting is on the wire at once: a status naming the task.
    expect(h.sentOf('WORK_STATUS').at(-1)).toMatchObject({ to: 5, message: { task: 3 } });
    const ready = h.offer('work-compute')!.readyAt!;
    expect(ready).toBe(h.r.view().now + JOB.taskMs);
    h.advance(JOB.taskMs - 50);
    h.click('work-compute'); // too early: nothing happens
    expect(h.offer('work-result')).toBeUndefined();
    h.advance(50);
    h.click('work-compute');
    h.advance(20);
    h.click('work-result');
    expect(h.sentOf('WORK_RESULT')).toEqual([
      { to: 5, message: { type: 'WORK_RESULT', token: T5, task: 3, value: KEY[3] } },
    ]);
    expect(h.r.view().work!.state.held).toEqual({ 3: KEY[3] });
    h.advance(3000);
    expect(h.marks).toEqual([]);
  });

  it('the coach\'s "Send the result" hint comes only after the task\'s time and carries her Compute click (it never sends an uncomputed result)', () => {
    const h = played(2);
    h.r.deliver(5, { type: 'WORK_HOLD', token: T5, boot: 0 });
    h.r.deliver(5, { type: 'WORK_ASSIGN', token: T5, task: 3, reportTo: 5 });
    h.click('work-accept');
    const resultHint = () =>
      hints(h.r.view(), 2).find((x) =>
        x.offer?.steps.some((s) => s.kind === 'send' && s.message.type === 'WORK_RESULT'),
      );
    h.advance(JOB.taskMs - 50);
    expect(resultHint()).toBeUndefined();
    h.advance(50);
    const hint = resultHint()!;
    expect(hint.offer!.steps[0]).toEqual({ kind: 'compute' });
    expect(hint.label).toBe('Compute task 3, then: Send the result (WORK_RESULT) to 5');
    h.r.act(hint.offer!);
    expect(h.sentOf('WORK_RESULT')).toEqual([
      { to: 5, message: { type: 'WORK_RESULT', token: T5, task: 3, value: KEY[3] } },
    ]);
    // Computed by her click, then sent: her tab holds it and offers neither Compute nor the send again.
    const w = h.r.view().work!;
    expect(w.state.held).toEqual({ 3: KEY[3] });
    expect(w.offers.map((o) => o.key)).not.toContain('work-compute');
    expect(w.offers.map((o) => o.key)).not.toContain('work-result');
    h.advance(3000);
    expect(h.marks).toEqual([]);
  });

  it('fencing on: a stale order is offered with a refusal; refusing it sends WORK_REFUSED and is not marked', () => {
    const h = played(2);
    h.r.deliver(5, { type: 'WORK_HOLD', token: makeToken(2, 5), boot: 0 });
    h.r.deliver(4, { type: 'WORK_ASSIGN', token: makeToken(1, 4), task: 1, reportTo: 4 });
    expect(h.r.view().queue[0]!.note).toMatch(/task 1 offered by 4 \(its token is older/);
    h.advance(50);
    h.click('work-refuse');
    expect(h.sentOf('WORK_REFUSED')).toMatchObject([
      { to: 4, message: { token: makeToken(1, 4), newest: makeToken(2, 5) } },
    ]);
    expect(h.r.view().work!.state.offered).toEqual([]);
    h.advance(3000);
    expect(h.marks).toEqual([]);
  });

  it('fencing on: accepting the stale order is marked work.stale', () => {
    const h = played(2);
    h.r.deliver(5, { type: 'WORK_HOLD', token: makeToken(2, 5), boot: 0 });
    h.r.deliver(4, { type: 'WORK_ASSIGN', token: makeToken(1, 4), task: 1, reportTo: 4 });
    h.advance(50);
    h.click('work-accept');
    expect(h.marks).toEqual(['work.stale']);
  });

  it('as the analyser her tab keeps the results stored with her and tells a new coordinator', () => {
    const h = played(4);
    h.r.deliver(5, { type: 'WORK_HOLD', token: T5, boot: 0 });
    h.r.deliver(5, { type: 'WORK_STORE', token: T5, task: 2, value: KEY[2]! });
    h.r.deliver(5, { type: 'WORK_STORE', token: T5, task: 0, value: KEY[0]! + 1 }); // wrong: not kept
    expect(h.r.view().work!.state.store).toEqual({ 2: KEY[2] });
    h.r.deliver(3, { type: 'WORK_HOLD', token: makeToken(2, 3), boot: 7 });
    expect(h.sentOf('WORK_HELD').at(-1)).toMatchObject({
      to: 3,
      message: { held: [[2, KEY[2]]], stored: [2] },
    });
  });
});

describe('hand mode: the coordinator of the work schedule', () => {
  /** 5 takes office: she follows the coach's hint to ask everyone what they hold; all answer empty. */
  function inOffice() {
    const h = played(5);
    const holds = h.r.view().coach.suggestions;
    expect(holds.map((s) => s.message.type)).toEqual(Array(4).fill('WORK_HOLD'));
    h.advance(10);
    h.r.act({ key: 'hint', label: 'ask', steps: holds.map((s) => ({ kind: 'send', ...s })) });
    expect(h.r.view().work!.state.office).toBe(T5);
    for (const w of [1, 2, 3, 4])
      h.r.deliver(w, {
        type: 'WORK_HELD',
        token: T5,
        task: -1,
        boot: 0,
        reused: false,
        held: [],
        stored: [],
      });
    h.advance(500);
    return h;
  }

  it('hands a task she picks to an empty worker, passes the result to the analyser (the highest id heard); nothing marked', () => {
    const h = inOffice();
    const w = h.r.view().work!;
    expect(w.open).toEqual([0, 1, 2, 3, 4, 5]);
    expect(w.analyser).toBe(4);
    for (const [task, worker] of [
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ] as const)
      h.r.act(assignOffer(h.r.view().work!.state, task, worker)!);
    expect(h.r.view().work!.open).toEqual([4, 5]);
    h.advance(300);
    h.r.deliver(1, { type: 'WORK_RESULT', token: T5, task: 0, value: KEY[0]! });
    h.advance(20);
    h.click('work-store');
    expect(h.sentOf('WORK_STORE')).toEqual([
      { to: 4, message: { type: 'WORK_STORE', token: T5, task: 0, value: KEY[0] } },
    ]);
    h.r.act(assignOffer(h.r.view().work!.state, 4, 1)!);
    h.advance(1000);
    expect(h.marks).toEqual([]);
    // 003: "checks the status of the analysis machine and appoints a new one if it crashes": 4
    // falls silent while 1, 2 and 3 beat; 3 is the analyser now and every result goes to it again.
    // She looks every 100 ms and passes results on whenever her tab offers it.
    for (let t = 0; t < 40; t++) {
      if (t % 5 === 0)
        for (const w of [1, 2, 3])
          h.r.deliver(w, { type: 'WORK_STATUS', token: T5, task: w === 1 ? 4 : w - 1, boot: 0 });
      if (h.offer('work-store')) h.click('work-store');
      h.advance(100);
    }
    expect(h.r.view().work!.analyser).toBe(3);
    expect(h.sentOf('WORK_STORE').at(-1)).toEqual({
      to: 3,
      message: { type: 'WORK_STORE', token: T5, task: 0, value: KEY[0] },
    });
    expect(h.marks).toEqual([]);
  });

  it("her own order of tasks and workers, other than the reference's, through the tab is never marked while the workers' beats name her tasks (003: any empty machine)", () => {
    const h = inOffice();
    for (const [task, worker] of [
      [5, 3],
      [2, 1],
      [4, 2],
      [0, 4],
    ] as const)
      h.r.act(assignOffer(h.r.view().work!.state, task, worker)!);
    expect(h.r.view().work!.open).toEqual([1, 3]);
    // Two heartbeat intervals of status beats naming her tasks: the coach's table is hers.
    for (let t = 0; t < 10; t++) {
      if (t % 5 === 0)
        for (const [w, task] of [
          [3, 5],
          [1, 2],
          [2, 4],
          [4, 0],
        ] as const)
          h.r.deliver(w, { type: 'WORK_STATUS', token: T5, task, boot: 0 });
      h.advance(100);
    }
    h.r.deliver(3, { type: 'WORK_RESULT', token: T5, task: 5, value: KEY[5]! });
    h.click('work-store');
    h.r.act(assignOffer(h.r.view().work!.state, 3, 3)!);
    h.advance(1000);
    expect(h.marks).toEqual([]);
    expect(h.sentOf('WORK_ASSIGN').map((s) => [s.to, s.message.task])).toEqual([
      [3, 5],
      [1, 2],
      [2, 4],
      [4, 0],
      [3, 3],
    ]);
  });

  it('a task handed to a busy worker is marked work.busy', () => {
    const h = inOffice();
    h.r.act(assignOffer(h.r.view().work!.state, 0, 1)!);
    h.r.act(assignOffer(h.r.view().work!.state, 1, 1)!);
    h.advance(1000);
    expect(h.marks).toContain('work.busy');
  });
});
