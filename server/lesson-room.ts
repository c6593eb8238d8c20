// The relay's lesson state, one room per lab: the lesson's progress (shared/lessons/lesson-class.ts)
// and the class's answers, one stored per student (process id) and step. Students only answer;
// every move of the lesson is the instructor's (server/lesson-api.ts).
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import { act, beginLesson, currentStep, lessonView, refuseAnswer, type LessonAction, type LessonProgress } from '@shared/lessons/lesson-class.ts';
import type { LessonView } from '@shared/lessons/lesson-api.ts';
import { runStep } from '@shared/lessons/lesson-runner.ts';
import type { Lesson } from '@shared/lessons/lesson-schema.ts';
import { errorFrame, type ErrorFrame } from '@shared/protocol/errors.ts';
import type { Lab } from './lab.ts';

/** Changes of mind a student may make on one step: past this her answers are refused (and counted). */
export const MAX_ANSWER_CHANGES = 30;

class LessonRoom {
  private answers = new Map<ProcessId, number>();
  private changes = new Map<ProcessId, number>();

  constructor(private progress: LessonProgress) {}

  view(instructor: boolean): LessonView {
    return lessonView(this.progress, this.answers, instructor);
  }

  /** An instructor's move; `run` runs the step in the relay's own simulator (deterministic). */
  act(action: LessonAction): ErrorFrame | null {
    const measured = action === 'run' && this.progress.phase === 'locked' ? runStep(currentStep(this.progress)).measured : undefined;
    const next = act(this.progress, action, measured);
    if ('type' in next) return next;
    if (next.step !== this.progress.step) {
      this.answers = new Map();
      this.changes = new Map();
    }
    this.progress = next;
    return null;
  }

  /** A student's answer: stored (replacing her earlier one) or refused with why. */
  answer(student: ProcessId, step: number, value: number): ErrorFrame | null {
    const refused = refuseAnswer(this.progress, step, value);
    if (refused) return refused;
    const changes = (this.changes.get(student) ?? 0) + 1;
    if (changes > MAX_ANSWER_CHANGES) return errorFrame('RATE_LIMITED', { message: `At most ${MAX_ANSWER_CHANGES} answers per student and step; your last one stands` });
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
    this.rooms.set(lab, new LessonRoom(progress));
    return null;
  }

  end(lab: Lab): boolean {
    return this.rooms.delete(lab);
  }
}
