// The phases of a lesson step (issue 28: predict, run, reveal) and what each answer and view
// may be, as pure functions (shared/lessons/lesson-class.ts).
import { describe, expect, it } from 'vitest';
import {
  act,
  beginLesson,
  lessonView,
  refuseAnswer,
  scoreStep,
  type LessonProgress,
} from '@shared/lessons/lesson-class.ts';
import type { Lesson } from '@shared/lessons/lesson-schema.ts';
import { loadLessons } from '../../server/lab/lesson-catalog.ts';

const lessons = loadLessons(new URL('../../lessons/', import.meta.url).pathname).lessons;
const fig = lessons.find((l) => l.id === 'bully-figure-6-20')!;
const begin = (l: Lesson, step = 0) => beginLesson(l, step) as LessonProgress;
const after = (p: LessonProgress, ...actions: Parameters<typeof act>[1][]) =>
  actions.reduce((q, a) => act(q, a, 6) as LessonProgress, p);

describe('the phases of a step', () => {
  it('go ready -> open -> locked -> ran -> revealed, then next step; the last step ends the lesson', () => {
    const p = begin(fig);
    expect(after(p, 'start').phase).toBe('open');
    expect(after(p, 'start', 'lock', 'run')).toMatchObject({ phase: 'ran', measured: 6 });
    expect(after(p, 'start', 'lock', 'run', 'reveal', 'next')).toMatchObject({
      step: 1,
      phase: 'ready',
      measured: null,
    });
    expect(after(begin(fig, 2), 'start', 'lock', 'run', 'reveal', 'next')).toMatchObject({
      step: 2,
      phase: 'done',
    });
  });

  it('refuse a move out of order: no run before the answers are locked, no reveal before the run', () => {
    expect(act(after(begin(fig), 'start'), 'run')).toMatchObject({
      type: 'error',
      code: 'LESSON_PHASE',
    });
    expect(act(after(begin(fig), 'start', 'lock'), 'reveal')).toMatchObject({
      type: 'error',
      code: 'LESSON_PHASE',
    });
    expect(beginLesson(fig, 3)).toMatchObject({ type: 'error', code: 'BAD_REQUEST' });
  });

  it('a step with no question skips the answers: start locks it at once', () => {
    const quiet = structuredClone(fig);
    delete quiet.steps[0]!.question;
    expect(after(begin(quiet), 'start').phase).toBe('locked');
  });
});

describe('answers', () => {
  const open = after(begin(fig), 'start');
  it('take an id of the step for a process question, nothing else', () => {
    expect(refuseAnswer(open, 0, 6)).toBeNull();
    expect(refuseAnswer(open, 0, 8)).toMatchObject({ code: 'BAD_ANSWER' });
    expect(refuseAnswer(open, 1, 6)).toMatchObject({ code: 'LESSON_CLOSED' });
    expect(refuseAnswer(null, 0, 6)).toMatchObject({ code: 'LESSON_CLOSED' });
    expect(refuseAnswer(after(open, 'lock'), 0, 6)).toMatchObject({ code: 'LESSON_CLOSED' });
  });

  it("take a choice's value only, and a whole number within the question's range", () => {
    const choice = after(begin(fig, 2), 'start');
    expect(refuseAnswer(choice, 2, 410)).toBeNull();
    expect(refuseAnswer(choice, 2, 400)).toMatchObject({ code: 'BAD_ANSWER' });
    const count = after(begin(fig, 1), 'start');
    expect(refuseAnswer(count, 1, 200)).toBeNull();
    expect(refuseAnswer(count, 1, 201)).toMatchObject({ code: 'BAD_ANSWER' });
    expect(refuseAnswer(count, 1, 1.5)).toMatchObject({ code: 'BAD_ANSWER' });
  });
});

describe('the view', () => {
  const answers = new Map([
    [1, 6],
    [2, 6],
    [3, 5],
  ]);
  it('shows the class a count only until the reveal, then the histogram and the measure', () => {
    const ran = after(begin(fig), 'start', 'lock', 'run');
    expect(lessonView(ran, answers, false)).toMatchObject({ answered: 3, answers: {} });
    expect(lessonView(ran, answers, false).measured).toBeUndefined();
    expect(lessonView(after(ran, 'reveal'), answers, false)).toMatchObject({
      answers: { '5': 1, '6': 2 },
      measured: 6,
      expected: 6,
      formula: 'the highest live id',
    });
  });

  it('shows the instructor every answer by id, and the measure once it ran', () => {
    const ran = after(begin(fig), 'start', 'lock', 'run');
    expect(lessonView(ran, answers, true)).toMatchObject({
      byStudent: { '1': 6, '2': 6, '3': 5 },
      measured: 6,
    });
    expect(lessonView(after(ran, 'reveal'), answers, false).byStudent).toBeUndefined();
  });
});

describe('scores over a lesson (the class board)', () => {
  it('count each revealed answer, and a correct one when it equals the measured value; a run that measured nothing scores none', () => {
    const one = scoreStep(
      new Map(),
      new Map([
        [1, 6],
        [2, 7],
      ]),
      6,
    );
    expect([...one]).toEqual([
      [1, { answered: 1, correct: 1 }],
      [2, { answered: 1, correct: 0 }],
    ]);
    const two = scoreStep(
      one,
      new Map([
        [2, 15],
        [3, 14],
      ]),
      15,
    );
    expect(Object.fromEntries(two)).toEqual({
      1: { answered: 1, correct: 1 },
      2: { answered: 2, correct: 1 },
      3: { answered: 1, correct: 0 },
    });
    expect(scoreStep(two, new Map([[1, 0]]), null).get(1)).toEqual({ answered: 2, correct: 1 });
    // The earlier map is not changed (the room keeps the new one).
    expect(one.get(2)).toEqual({ answered: 1, correct: 0 });
    // Only the instructor's view carries them.
    const ran = after(begin(fig), 'start', 'lock', 'run', 'reveal');
    expect(lessonView(ran, new Map(), true, two).scores).toEqual({
      1: { answered: 1, correct: 1 },
      2: { answered: 2, correct: 1 },
      3: { answered: 1, correct: 0 },
    });
    expect(lessonView(ran, new Map(), false, two).scores).toBeUndefined();
  });
});
