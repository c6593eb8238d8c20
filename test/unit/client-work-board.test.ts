// The Work panel's figures (shared/analysis/work-board.ts) folded from a trace, checked against
// the simulator's audit of the same run (shared/work/work-audit.ts, which reads the processes'
// states): the scenarios of 003's work schedule (test/scenarios/work-*.txt), each a trace of
// WORK_* messages, crashes and recoveries as the relay records one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import type { Workload } from '@shared/protocol/lab-config.ts';
import { simulateWork, type WorkRun } from '@shared/work/work-sim.ts';
import { WorkBoard } from '@shared/analysis/work-board.ts';
import { compileScenario, splitScenario } from '../helpers/scenario-script.ts';

function run(
  name: string,
  change: (script: string) => string = (s) => s,
): { r: WorkRun; workload: Workload } {
  const text = readFileSync(new URL(`../scenarios/${name}.txt`, import.meta.url), 'utf8');
  const spec = compileScenario(change(splitScenario(text).script));
  if (!spec.work) throw new Error(`${name} has no work line`);
  const j = spec.work.job;
  const workload: Workload = {
    tasks: j.tasks,
    size: j.size,
    taskMs: j.taskMs,
    sharing: j.sharing,
    fencing: j.fencing,
    slow: Object.entries(j.slow).map(([id, factor]) => ({ id: Number(id), factor })),
  };
  return { r: simulateWork({ ...spec, algorithm: spec.work.election }, j), workload };
}

function board(trace: readonly TraceEvent[], workload: Workload): WorkBoard {
  const b = new WorkBoard(workload);
  for (const e of trace) b.observe(e);
  return b;
}

const end = (trace: readonly TraceEvent[]) => trace[trace.length - 1]?.t ?? 0;

describe('the Work panel folded from the trace agrees with the simulator audit', () => {
  const cases: [string, ((s: string) => string)?][] = [
    ['work-worker-crash'],
    ['work-analyser-crash'],
    ['work-coordinator-crash-bully'],
    ['work-coordinator-crash-raft'],
    ['work-slow-worker'],
    ['work-recovery'],
    ['work-bully-partition-fencing-off'],
    ['work-bully-partition-fencing-on'],
    ['work-worker-crash', (s) => s.replace('work tasks=5', 'work sharing=static tasks=5')],
    ['work-analyser-crash', (s) => s.replace('work tasks=6', 'work sharing=static tasks=6')],
  ];
  for (const [name, change] of cases) {
    it(`${name}${change ? ' (static)' : ''}: completed, lost, duplicates, reassignments, wrong, makespan, stale orders refused and accepted`, () => {
      const { r, workload } = run(name, change);
      const v = board(r.result.trace, workload).view(end(r.result.trace))!;
      const pick = (f: typeof r.tasks) => ({
        completed: f.completed,
        lost: f.lost,
        duplicates: f.duplicates,
        staleRefused: f.staleRefused,
        staleAccepted: f.staleAccepted,
        wrong: f.wrong,
        makespanMs: f.makespanMs,
      });
      expect(pick({ ...v, lost: v.lostNow })).toEqual(pick(r.tasks));
      // Reassignments are seen as orders given again; the audit counts the coordinators' requeues.
      // They agree but in the partition with fencing on (4 here, 3 in the audit), where two offices overlap.
      if (name !== 'work-bully-partition-fencing-on') expect(v.reassigned).toBe(r.tasks.reassigned);
    });
  }
});

describe('the Work panel: who holds what, the token and the analyser', () => {
  it("the coordinator's crash mid-job: the new office's token and analyser, every task done and kept, results held by their workers", () => {
    const { r, workload } = run('work-coordinator-crash-bully');
    const v = board(r.result.trace, workload).view(end(r.result.trace))!;
    // Bully elects 2 after 3 crashes; the analyser is the highest id it heard from, below it.
    expect(v.token).toMatchObject({ by: 2, epoch: 2 });
    expect(v.analyser).toBe(1);
    expect(v.holders.map((h) => h.state)).toEqual(Array(6).fill('done'));
    expect(
      v.holders.every((h) => h.kept.includes(1) && !h.kept.includes(3) && !h.held.includes(3)),
    ).toBe(true);
    expect([v.queued, v.running.length, v.lostNow]).toEqual([0, 0, 0]);
    expect(v.makespanMs).toBeGreaterThan(0);
    expect(v.throughput).toBeCloseTo((6 * 1000) / v.makespanMs!, 6);
  });

  it('mid-run: tasks running on whom and queued; a crashed machine runs nothing', () => {
    const { r, workload } = run('work-worker-crash');
    const trace = r.result.trace;
    const crash = trace.find((e) => e.kind === 'crash')!;
    const before = board(
      trace.filter((e) => e.seq < crash.seq),
      workload,
    ).view(crash.t)!;
    expect(before.running.length).toBeGreaterThan(0);
    expect(before.queued + before.running.length + before.completed).toBeLessThanOrEqual(
      before.total,
    );
    const crashed = crash.kind === 'crash' ? crash.node : -1;
    expect(before.running.some((x) => x.id === crashed)).toBe(true);
    const after = board(
      trace.filter((e) => e.seq <= crash.seq),
      workload,
    ).view(crash.t)!;
    expect(after.running.some((x) => x.id === crashed)).toBe(false);
  });

  it('claims come from the reports and are kept apart from the facts', () => {
    const b = new WorkBoard({
      tasks: 2,
      size: 10,
      taskMs: 100,
      sharing: 'dynamic',
      fencing: true,
      slow: [],
    });
    const v = b.view(0, [
      {
        id: 3,
        status: 'up',
        report: {
          role: 'coordinator',
          coordinator: 3,
          electing: false,
          detail: { work: 'coordinator', token: 7 },
        },
      },
      {
        id: 2,
        status: 'up',
        report: {
          role: 'follower',
          coordinator: 3,
          electing: false,
          detail: { work: 'analyser', token: 7 },
        },
      },
      {
        id: 1,
        status: 'crashed',
        report: {
          role: 'coordinator',
          coordinator: 1,
          electing: false,
          detail: { work: 'coordinator', token: 5 },
        },
      },
    ])!;
    expect(v.claims).toEqual({ coordinators: [{ id: 3, token: 7 }], analysers: [2] });
    expect([v.token, v.analyser, v.since]).toEqual([null, null, null]);
  });

  it('a forged result (wrong value) counts as wrong, never as computed; a reset starts the job again', () => {
    const b = new WorkBoard({
      tasks: 2,
      size: 10,
      taskMs: 100,
      sharing: 'dynamic',
      fencing: true,
      slow: [],
    });
    b.observe({
      seq: 0,
      t: 5,
      kind: 'send',
      msg: 1,
      from: 0,
      to: 3,
      type: 'WORK_RESULT',
      message: { type: 'WORK_RESULT', token: 1, task: 0, value: 99 },
    });
    // The primes below 10 are four: the right answer is computed, once.
    b.observe({
      seq: 1,
      t: 6,
      kind: 'send',
      msg: 2,
      from: 0,
      to: 3,
      type: 'WORK_RESULT',
      message: { type: 'WORK_RESULT', token: 1, task: 0, value: 4 },
    });
    b.observe({
      seq: 2,
      t: 7,
      kind: 'send',
      msg: 3,
      from: 0,
      to: 3,
      type: 'WORK_RESULT',
      message: { type: 'WORK_RESULT', token: 1, task: 0, value: 4 },
    });
    expect(b.view(10)).toMatchObject({ wrong: 1, duplicates: 0 });
    b.observe({ seq: 3, t: 8, kind: 'control', action: 'reset' });
    expect(b.view(10)).toMatchObject({
      wrong: 0,
      duplicates: 0,
      holders: [
        { task: 0, held: [] },
        { task: 1, held: [] },
      ],
    });
  });
});

describe('the Work panel across a reconfigure', () => {
  it("the new job's first orders, sent before the snapshot with its workload arrives, are counted once it does", () => {
    const { r, workload } = run('work-coordinator-crash-bully');
    const b = new WorkBoard(null);
    b.observe({ seq: 0, t: 0, kind: 'control', action: 'reconfigure', restart: true });
    for (const e of r.result.trace) b.observe(e);
    expect(b.view(0)).toBeNull();
    b.setWorkload(workload);
    const v = b.view(end(r.result.trace))!;
    expect([v.completed, v.fromStart, v.lostNow]).toEqual([r.tasks.total, true, 0]);
  });
});

describe('the Work panel of a page opened mid-job', () => {
  it('counts from its opening, says so, and after reading the relay trace counts the whole job', () => {
    const { r, workload } = run('work-coordinator-crash-bully');
    const trace = r.result.trace;
    const crash = trace.find((e) => e.kind === 'crash')!;
    const b = new WorkBoard(workload);
    // The page opens after the crash: it sees only the rest.
    for (const e of trace) if (e.seq > crash.seq) b.observe(e);
    const partial = b.view(end(trace))!;
    expect(partial.fromStart).toBe(false);
    // The job seems to begin with the new office's first order.
    expect(partial.since).toBeGreaterThan(crash.t);
    // The relay's trace, fetched a little later (it holds what the page saw too).
    expect(b.catchUp(trace)).toBe(true);
    const whole = b.view(end(trace))!;
    expect([
      whole.fromStart,
      whole.since,
      whole.completed,
      whole.lostNow,
      whole.duplicates,
    ]).toEqual([true, 0, r.tasks.total, 0, r.tasks.duplicates]);
    expect(whole.token).toEqual(partial.token);
  });
});
