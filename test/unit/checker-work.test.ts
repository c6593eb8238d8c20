// The live checker's work findings (shared/analysis/checker-work.ts) over the work scenarios'
// traces (test/scenarios/work-*.txt), checked against the simulator's audit of the same run,
// which reads the processes' states: the relay, reading only the trace, must find what the
// processes did (issue 27; 003's work schedule; docs/WORK_SCHEDULE.md, "The live checker").
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import { checkTrace } from '@shared/analysis/checker.ts';
import type { Finding } from '@shared/protocol/finding.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { simulateWork, type WorkRun } from '@shared/work/work-sim.ts';
import { compileScenario, splitScenario } from '../helpers/scenario-script.ts';

function run(name: string, sharing: 'static' | 'dynamic' = 'dynamic') {
  const text = readFileSync(new URL(`../scenarios/${name}.txt`, import.meta.url), 'utf8');
  let script = splitScenario(text).script;
  if (sharing === 'static') script = script.replace(/^work /m, 'work sharing=static ');
  const spec = compileScenario(script);
  const j = spec.work!.job;
  const r: WorkRun = simulateWork({ ...spec, algorithm: spec.work!.election }, j);
  const workload = {
    tasks: j.tasks,
    size: j.size,
    taskMs: j.taskMs,
    sharing: j.sharing,
    fencing: j.fencing,
    slow: [],
  };
  const { findings } = checkTrace(r.result.trace, {
    algorithm: spec.work!.election.name,
    ids: spec.ids,
    timing: { ...DEFAULT_TIMING, ...spec.timing },
    workload,
  });
  const of = (k: Finding['kind']) => findings.filter((f) => f.kind === k);
  return { r, of };
}

const WORK_KINDS = ['result-lost', 'counted-twice', 'stale-order'] as const;

describe('the live checker reads the work schedule from the trace', () => {
  it("a Bully partition with fencing off: one stale-order finding per stale order the processes obeyed (the audit's staleAccepted)", () => {
    const { r, of } = run('work-bully-partition-fencing-off');
    expect(r.tasks.staleAccepted).toBeGreaterThan(0);
    expect(of('stale-order')).toHaveLength(r.tasks.staleAccepted);
    expect(of('stale-order')[0]!.detail).toMatch(/obeyed 5's order/);
  });

  it('the same partition with fencing on: the stale order is refused, no finding', () => {
    const { r, of } = run('work-bully-partition-fencing-on');
    expect(r.tasks.staleRefused).toBeGreaterThan(0);
    expect(of('stale-order')).toEqual([]);
  });

  it('static sharing, a worker crashed: result-lost names exactly the tasks the audit lost (003, problem 3)', () => {
    const { r, of } = run('work-worker-crash', 'static');
    const lost = of('result-lost');
    expect(lost.length).toBeGreaterThan(0);
    const listed = lost.flatMap((f) => [...f.detail.matchAll(/\d+/g)].map(Number)).length;
    expect(listed).toBeGreaterThanOrEqual(r.tasks.lost);
    expect(r.tasks.lost).toBeGreaterThan(0);
  });

  it('static sharing, the analyser crashed: every result it kept is reported lost (003, problem 4)', () => {
    const { r, of } = run('work-analyser-crash', 'static');
    expect(r.tasks.lost).toBe(r.tasks.total);
    expect(of('result-lost')[0]!.detail).toMatch(/tasks 0, 1, 2, 3, 4, 5 lost/);
  });

  it('after a reconfigure (every process restarts on the new settings) the checker reads the new job at once', () => {
    const { r } = run('work-worker-crash', 'static');
    const j = { tasks: 5, size: 1000, taskMs: 400, sharing: 'static' as const, fencing: true };
    const trace = [
      { seq: -1, t: 0, kind: 'control', action: 'reconfigure' } as TraceEvent,
      ...r.result.trace,
    ];
    const { findings } = checkTrace(trace, {
      algorithm: 'bully',
      ids: [...new Set(r.result.trace.flatMap((e) => ('node' in e ? [e.node] : [])))],
      timing: DEFAULT_TIMING,
      workload: { ...j, slow: [] },
    });
    expect(findings.filter((f) => f.kind === 'result-lost').length).toBeGreaterThan(0);
  });

  for (const name of [
    'work-worker-crash',
    'work-analyser-crash',
    'work-coordinator-crash-bully',
    'work-coordinator-crash-raft',
    'work-recovery',
    'work-slow-worker',
  ])
    it(`${name}, dynamic sharing with fencing on: none of the three work findings`, () => {
      const { r, of } = run(name);
      expect(r.tasks.lost).toBe(0);
      for (const k of WORK_KINDS) expect(of(k), k).toEqual([]);
    });

  it('an answer to "what do you hold?" listing a task twice is a counted-twice finding, named as a claim', () => {
    const workload = {
      tasks: 4,
      size: 10,
      taskMs: 100,
      sharing: 'dynamic' as const,
      fencing: true,
      slow: [],
    };
    const message = {
      type: 'WORK_HELD',
      token: 1,
      task: -1,
      boot: 0,
      reused: false,
      held: [[1, 4]],
      stored: [3, 1, 3],
    };
    const trace = [
      { seq: 0, t: 5, kind: 'send', msg: 1, from: 0, to: 1, type: 'WORK_HELD', message },
    ] as TraceEvent[];
    const { findings } = checkTrace(trace, {
      algorithm: 'bully',
      ids: [0, 1],
      timing: { transmission: 30, processing: 5, heartbeatInterval: 100, heartbeatTimeout: 350 },
      workload,
    });
    const f = findings.filter((x) => x.kind === 'counted-twice');
    expect(f).toHaveLength(1);
    expect(f[0]!.detail).toMatch(/task 3 twice \(its claim/);
  });
});
