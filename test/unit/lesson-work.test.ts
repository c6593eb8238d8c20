// Issue 28's eighth lesson, 003's work schedule: the file validates, each step runs in the
// simulator with the work layer, and the reveal measures the audit's lost results (003, static
// sharing's problems 3 and 4; dynamic sharing "solving 3"). A `tasks` measure needs a work layer.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLesson, type Lesson } from '@shared/lessons/lesson-schema.ts';
import { runStep, stepWorkload } from '@shared/lessons/lesson-runner.ts';

const raw: unknown = JSON.parse(
  readFileSync(new URL('../../lessons/work-schedule-003.json', import.meta.url), 'utf8'),
);
const parsed = parseLesson(raw);
const lesson = (): Lesson => {
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  return structuredClone(parsed.lesson);
};

describe('lesson work-schedule-003', () => {
  it('validates against the lesson schema and cites 003 in every step', () => {
    expect(parsed.ok).toBe(true);
    expect(lesson().steps.map((s) => s.reveal.cites.document)).toEqual(['003', '003', '003']);
  });

  it('003 static sharing, problem 3: a worker crashed at 1 s loses the 3 tasks it still held', () => {
    const o = runStep(lesson().steps[0]!);
    expect(o.measured).toBe(3);
    expect(o.agrees).toBe(true);
  });

  it('003 dynamic sharing "solving 3": the same crash loses nothing', () => {
    const o = runStep(lesson().steps[1]!);
    expect(o.measured).toBe(0);
    expect(o.agrees).toBe(true);
  });

  it('003 static sharing, problem 4: a crashed analyser loses every result', () => {
    expect(runStep(lesson().steps[2]!).measured).toBe(24);
  });

  it('the reveal is measured, not copied: without the crash static sharing loses nothing, and the file disagrees', () => {
    const step = lesson().steps[0]!;
    step.run = {};
    const o = runStep(step);
    expect(o.measured).toBe(0);
    expect(o.agrees).toBe(false);
  });

  it("a step's work takes the job's defaults for what it leaves out", () => {
    expect(stepWorkload(lesson().steps[0]!)).toEqual({
      tasks: 24,
      size: 1000,
      taskMs: 400,
      sharing: 'static',
      fencing: true,
      slow: [],
    });
  });

  it('a tasks measure without setup.work is refused with the field named', () => {
    const bad = lesson() as { steps: { setup: { work?: unknown } }[] };
    delete bad.steps[0]!.setup.work;
    const r = parseLesson(bad);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors[0]).toMatch(/^steps\.0\.reveal\.measure: "tasks" needs setup\.work/);
  });
});
