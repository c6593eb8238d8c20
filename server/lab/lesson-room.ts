// The relay's lesson state, one room per lab: the lesson's progress (shared/lessons/lesson-class.ts)
// and the class's answers, one stored per student (process id) and step. Students only answer;
// every move of the lesson is the instructor's (server/http/lesson-api.ts).
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import {
  act,
  beginLesson,
  currentStep,
  lessonView,
  refuseAnswer,
  scoreStep,
  type LessonAction,
  type LessonProgress,
  type StudentScore,
} from '@shared/lessons/lesson-class.ts';
import type { LessonView } from '@shared/lessons/lesson-api.ts';
import { runStep } from '@shared/lessons/lesson-runner.ts';
import type { Lesson } from '@shared/lessons/lesson-schema.ts';
import { errorFrame, type ErrorFrame } from '@shared/protocol/errors.ts';
import type { Lab } from './lab.ts';

/** Changes of mind a student may make on one step: past this her answers are refused (and counted). */
export const MAX_ANSWER_CHANGES = 30;
/** The run's trace is kept for replay up to this size (a shipped step's is a few tens of kB). */
const MAX_LESSON_TRACE_CHARS = 2 * 2 ** 20;

class LessonRoom {
  private answers = new Map<ProcessId, number>();
  private changes = new Map<ProcessId, number>();
  /** Each student's answers and correct answers over the lesson's revealed steps (the class board). */
  private scores = new Map<ProcessId, StudentScore>();
  /** The current step's run as a trace file; 'too-large' when it was over the bound and not kept. */
  private trace: string | 'too-large' | null = null;

  /** When the current question opened, by the relay's clock. */
  private openedAt: number | null = null;

  constructor(
    private progress: LessonProgress,
    private readonly now: () => number,
  ) {}

  view(instructor: boolean): LessonView {
    const view = lessonView(this.progress, this.answers, instructor, this.scores);
    // Elapsed, not a deadline: the relay's clock is monotonic and no browser shares it.
    if (this.progress.phase === 'open' && this.openedAt !== null)
      view.openForMs = Math.max(0, Math.round(this.now() - this.openedAt));
    return view;
  }

  /** An instructor's move; `run` runs the step in the relay's own simulator (deterministic). */
  act(action: LessonAction): ErrorFrame | null {
    const outcome =
      action === 'run' && this.progress.phase === 'locked'
        ? runStep(currentStep(this.progress))
        : null;
    const next = act(this.progress, action, outcome?.measured);
    if ('type' in next) return next;
    if (outcome) {
      const text = outcome.trace();
      this.trace = text.length <= MAX_LESSON_TRACE_CHARS ? text : 'too-large';
    }
    if (next.phase === 'open' && this.progress.phase !== 'open') this.openedAt = this.now();
    if (action === 'reveal') this.scores = scoreStep(this.scores, this.answers, next.measured);
    if (next.step !== this.progress.step || next.phase === 'done') this.trace = null;
    if (next.step !== this.progress.step) {
      this.answers = new Map();
      this.changes = new Map();
    }
    this.progress = next;
    return null;
  }

  /** True when the current step's run was too large to keep for replay. */
  get traceDropped(): boolean {
    return this.trace === 'too-large';
  }

  /** The step's run for replay: shown to the class from the reveal on, to the instructor once it ran. */
  runTrace(instructor: boolean): string | ErrorFrame {
    const { phase } = this.progress;
    if (!(phase === 'revealed' || (instructor && phase === 'ran')) || this.trace === null)
      return errorFrame('NOT_FOUND', {
        message: 'The step has not run, or its result is not revealed yet',
      });
    if (this.trace === 'too-large')
      return errorFrame('NOT_FOUND', {
        message: `The run's trace was over ${MAX_LESSON_TRACE_CHARS} characters and was not kept`,
      });
    return this.trace;
  }

  /** A student's answer: stored (replacing her earlier one) or refused with why. */
  answer(student: ProcessId, step: number, value: number): ErrorFrame | null {
    const refused = refuseAnswer(this.progress, step, value);
    if (refused) return refused;
    const changes = (this.changes.get(student) ?? 0) + 1;
    if (changes > MAX_ANSWER_CHANGES)
      return errorFrame('RATE_LIMITED', {
        message: `At most ${MAX_ANSWER_CHANGES} answers per student and step; your last one stands`,
      });
    this.changes.set(student, changes);
    this.answers.set(student, value);
    return null;
  }
}

/** Each lab's lesson, if it runs one; a removed lab's room goes with it. */
export class LessonRooms {
  private readonly rooms = new WeakMap<Lab, LessonRoom>();

  get(lab: Lab): LessonRoom | null {
    return this.rooms.get(lab) ?? null;
  }

  begin(lab: Lab, lesson: Lesson, step = 0): ErrorFrame | null {
    const progress = beginLesson(lesson, step);
    if ('type' in progress) return progress;
    this.rooms.set(lab, new LessonRoom(progress, () => lab.deps.clock.now()));
    return null;
  }

  end(lab: Lab): boolean {
    return this.rooms.delete(lab);
  }
}
