// A live run's trace folded into the reveal's facts (shared/lessons/lesson-live-facts.ts) by the
// simulator's rules: messages by type, each live process's last coordinator, and the election
// time from the first `elect` (or electing report) to the last live process settling (003: "4
// message transit times plus a processor time" is what the Figure 6-20 step measures this way).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Report } from '@shared/algorithms/algorithm.ts';
import { LiveRunFold } from '@shared/lessons/lesson-live-facts.ts';
import { measureRun, runStep, stepWorkload } from '@shared/lessons/lesson-runner.ts';
import type { Lesson } from '@shared/lessons/lesson-schema.ts';
import { parseTraceFile } from '@shared/protocol/trace-file.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';

const agreed = (c: number): Report => ({ coordinator: c, electing: false }) as Report;
const start = () => new Map([0, 1, 2].map((id) => [id, agreed(2)] as const));
let seq = 0;
const ev = (t: number, body: Record<string, unknown>): TraceEvent =>
  ({ seq: seq++, t, ...body }) as TraceEvent;
const send = (t: number, from: number, to: number, type: string) =>
  ev(t, { kind: 'send', msg: seq, from, to, type });
const report = (t: number, node: number, coordinator: number | null, electing: boolean) =>
  ev(t, { kind: 'report', node, report: { coordinator, electing } });

describe('a live run folded into the reveal', () => {
  it('counts sends by type, takes the coordinator live processes last reported, and times the election from its start to the last settling', () => {
    // The run starts at lab time 1000: 2 crashes, 1 elects at once, 1 announces itself 410 ms later.
    const fold = new LiveRunFold(1000, 1, start(), 100);
    for (const e of [
      ev(1000, { kind: 'crash', node: 2 }),
      ev(1000, { kind: 'elect', node: 1 }),
      report(1000, 1, 2, true),
      send(1000, 1, 2, 'ELECTION'),
      report(1410, 1, 1, false),
      send(1410, 1, 0, 'COORDINATOR'),
      report(1510, 0, 1, false),
    ])
      fold.observe(e);
    const f = fold.facts(2000);
    expect(f.byType).toEqual({ ELECTION: 1, COORDINATOR: 1 });
    expect(f.coordinatorByNode).toEqual({ 0: 1, 1: 1 });
    expect(f.electionTime).toBe(510);
    expect(f.endTime).toBe(1000);
    expect(f.trace[0]!.t).toBe(0);
  });

  it("divides times by the lab's time scale (a lab ten times slower measures the same election)", () => {
    const fold = new LiveRunFold(0, 10, start(), 100);
    fold.observe(ev(0, { kind: 'elect', node: 1 }));
    fold.observe(report(4100, 1, 1, false));
    fold.observe(report(4100, 0, 1, false));
    expect(fold.facts(5000).electionTime).toBe(410);
  });

  it('a recovered process counts with what it reports after its recovery, and no election gives no time', () => {
    const fold = new LiveRunFold(0, 1, start(), 100);
    fold.observe(ev(10, { kind: 'crash', node: 2 }));
    fold.observe(ev(20, { kind: 'recover', node: 2 }));
    expect(fold.facts(30).coordinatorByNode).toEqual({ 0: 2, 1: 2, 2: null });
    expect(fold.facts(30).electionTime).toBeNull();
  });

  it('past its event bound the run is marked and keeps no more events', () => {
    const fold = new LiveRunFold(0, 1, start(), 2);
    for (let i = 0; i < 5; i++) fold.observe(send(i, 0, 1, 'PING'));
    expect(fold.overflow).toBe(true);
    expect(fold.trace).toHaveLength(2);
  });
});

describe('a live run with a work schedule', () => {
  // The work lesson's three steps (003: static sharing loses 2's unfinished share, or every result
  // with the analyser; dynamic sharing loses none): the trace the simulator makes, folded as the
  // relay folds a live run's, gives the results lost the simulator's audit gives.
  const lesson = JSON.parse(
    readFileSync(new URL('../../lessons/work-schedule-003.json', import.meta.url), 'utf8'),
  ) as Lesson;
  for (const [i, step] of lesson.steps.entries())
    it(`step ${i}: the fold of the relayed work messages counts ${step.reveal.expected} lost, as the audit does`, () => {
      const run = runStep(step);
      const parsed = parseTraceFile(run.trace());
      if (!parsed.ok) throw new Error('the simulator wrote a trace it cannot read');
      const ids = step.setup.ids;
      const top = Math.max(...ids);
      const fold = new LiveRunFold(
        0,
        1,
        new Map(ids.map((id) => [id, agreed(top)] as const)),
        1_000_000,
        stepWorkload(step),
      );
      for (const e of parsed.trace.events) fold.observe(e);
      const facts = fold.facts(run.run.endTime);
      expect(run.measured).toBe(step.reveal.expected);
      expect(facts.tasks?.lost).toBe(run.measured);
      expect(measureRun(step, facts)).toBe(step.reveal.expected);
    });

  it('starts a fresh job on a restart of the job: the old one is not counted', () => {
    const step = lesson.steps[1]!; // dynamic sharing: all 24 completed
    const parsed = parseTraceFile(runStep(step).trace());
    if (!parsed.ok) throw new Error('unreadable');
    const fold = new LiveRunFold(0, 1, new Map(), 1_000_000, stepWorkload(step));
    for (const e of parsed.trace.events) fold.observe(e);
    expect(fold.facts(60_000).tasks).toMatchObject({ completed: 24, lost: 0 });
    fold.observe(ev(60_000, { kind: 'control', action: 'restart-job', restart: true }));
    // Nothing of the new job is done yet: none completed, all 24 still to come.
    expect(fold.facts(60_001).tasks).toMatchObject({ completed: 0, lost: 24, makespanMs: null });
  });
});
