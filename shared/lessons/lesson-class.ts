// A class working through a lesson (issue 28: predict, run, reveal): the phases an instructor
// moves a step through, which answers a step takes, and what the class may see. Pure: the relay
// holds the answers and calls these; a student's answer never changes the lesson or its phase.
import type { ProcessId } from '../algorithms/algorithm.ts';
import { errorFrame, type ErrorFrame } from '../protocol/errors.ts';
import type { LessonPhase, LessonView } from './lesson-api.ts';
import { MAX_ANSWER, type Lesson, type LessonStep, type Question } from './lesson-schema.ts';

/**
 * Phases (lesson-api.ts): ready: the step is shown, nothing asked yet; open: answers taken
 * (changeable); locked: no more answers; ran: the run is measured, its result still hidden;
 * revealed: answers and result shown; done: past the last step.
 */
export const LESSON_ACTIONS = ['start', 'lock', 'run', 'reveal', 'next'] as const;
export type LessonAction = (typeof LESSON_ACTIONS)[number];

export interface LessonProgress {
  lesson: Lesson;
  step: number;
  phase: LessonPhase;
  /** The run's measure of the current step, once it ran. */
  measured: number | null;
}

/** Which phase each action leaves (and `run` needs the answers locked: a class predicts before it watches). */
const MOVES: Record<LessonAction, { from: readonly LessonPhase[]; to: LessonPhase }> = {
  start: { from: ['ready'], to: 'open' },
  lock: { from: ['open'], to: 'locked' },
  run: { from: ['locked'], to: 'ran' },
  reveal: { from: ['ran'], to: 'revealed' },
  next: { from: ['revealed'], to: 'ready' },
};

export function beginLesson(lesson: Lesson, step = 0): LessonProgress | ErrorFrame {
  if (step >= lesson.steps.length)
    return errorFrame('BAD_REQUEST', {
      message: `This lesson has steps 0 to ${lesson.steps.length - 1}`,
      details: ['step'],
    });
  return { lesson, step, phase: 'ready', measured: null };
}

/**
 * One instructor action. `measured` is the run's result (the host runs the step, lesson-runner.ts)
 * and is needed for `run` only. A step without a question skips the answers: start goes straight
 * to locked.
 */
export function act(
  p: LessonProgress,
  action: LessonAction,
  measured?: number | null,
): LessonProgress | ErrorFrame {
  const move = MOVES[action];
  if (!move.from.includes(p.phase)) {
    return errorFrame('LESSON_PHASE', {
      message: `"${action}" needs the step to be ${move.from.join(' or ')}; it is ${p.phase}`,
    });
  }
  if (action === 'next') {
    const step = p.step + 1;
    return step < p.lesson.steps.length
      ? { ...p, step, phase: 'ready', measured: null }
      : { ...p, phase: 'done' };
  }
  if (action === 'start' && !currentStep(p).question) return { ...p, phase: 'locked' };
  return { ...p, phase: move.to, ...(action === 'run' ? { measured: measured ?? null } : {}) };
}

export const currentStep = (p: LessonProgress): LessonStep => p.lesson.steps[p.step]!;

/** Why an answer is refused, or null: the step must be the open one and the value fit its question. */
export function refuseAnswer(
  p: LessonProgress | null,
  step: number,
  value: number,
): ErrorFrame | null {
  if (!p || p.phase !== 'open') return errorFrame('LESSON_CLOSED');
  if (step !== p.step)
    return errorFrame('LESSON_CLOSED', {
      message: `Step ${step} is not open for answers; step ${p.step} is`,
    });
  const s = currentStep(p);
  const why = misfit(s.question!, s, value);
  return why === null ? null : errorFrame('BAD_ANSWER', { message: why });
}

function misfit(q: Question, s: LessonStep, value: number): string | null {
  switch (q.kind) {
    case 'number': {
      const min = q.min ?? 0;
      const max = q.max ?? MAX_ANSWER;
      return Number.isInteger(value) && value >= min && value <= max
        ? null
        : `The answer must be a whole number from ${min} to ${max}`;
    }
    case 'choice':
      return q.choices.some((c) => c.value === value)
        ? null
        : `The answer must be one of the choices' values: ${q.choices.map((c) => c.value).join(', ')}`;
    case 'process':
      return s.setup.ids.includes(value)
        ? null
        : `The answer must be one of this step's process ids: ${s.setup.ids.join(', ')}`;
  }
}

/** The class's answers as a histogram: value -> how many gave it. */
function tally(answers: Iterable<number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of answers) out[String(v)] = (out[String(v)] ?? 0) + 1;
  return out;
}

/** One student's record over the lesson's revealed steps (the class board's columns). */
export interface StudentScore {
  answered: number;
  correct: number;
}

/**
 * At a reveal: each student who answered the step counts one answer, and one correct answer when
 * hers is the value the relay's own run measured (a step whose run measured nothing has none).
 */
export function scoreStep(
  scores: ReadonlyMap<ProcessId, StudentScore>,
  answers: ReadonlyMap<ProcessId, number>,
  measured: number | null,
): Map<ProcessId, StudentScore> {
  const out = new Map(scores);
  for (const [id, value] of answers) {
    const s = out.get(id) ?? { answered: 0, correct: 0 };
    out.set(id, {
      answered: s.answered + 1,
      correct: s.correct + (measured !== null && value === measured ? 1 : 0),
    });
  }
  return out;
}

/** What the class sees; `instructor` adds the answers by name, each student's score and the result once it ran. */
export function lessonView(
  p: LessonProgress,
  answers: ReadonlyMap<ProcessId, number>,
  instructor: boolean,
  scores: ReadonlyMap<ProcessId, StudentScore> = new Map(),
): LessonView {
  const s = currentStep(p);
  const shown = p.phase === 'revealed' || p.phase === 'done';
  const view: LessonView = {
    lesson: {
      id: p.lesson.id,
      title: p.lesson.title,
      summary: p.lesson.summary,
      steps: p.lesson.steps.length,
    },
    step: p.step,
    title: s.title,
    ids: [...s.setup.ids],
    question: s.question ?? null,
    phase: p.phase,
    answers: shown || instructor ? tally(answers.values()) : {},
    answered: answers.size,
  };
  if (shown || (instructor && p.phase === 'ran')) {
    Object.assign(view, {
      measured: p.measured,
      expected: s.reveal.expected,
      explain: s.reveal.explain,
      cites: s.reveal.cites,
      ...(s.reveal.formula ? { formula: s.reveal.formula } : {}),
    });
  }
  if (instructor) {
    view.byStudent = Object.fromEntries([...answers].map(([id, v]) => [String(id), v]));
    view.scores = Object.fromEntries([...scores].map(([id, s]) => [String(id), { ...s }]));
  }
  return view;
}
