// The relay's lesson state, one room per lab: the lesson's progress (shared/lessons/lesson-class.ts)
// and the class's answers, one stored per student (process id) and step. Students only answer;
// every move of the lesson is the instructor's (server/http/lesson-api.ts). `run` runs the step
// in the live lab when it can (lesson-live.ts), else in the relay's simulator, and says which.
// Every change is saved to the lab's data folder (lesson-store.ts), so a restart finds the class.
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
import type { Lesson, LessonStep } from '@shared/lessons/lesson-schema.ts';
import { errorFrame, type ErrorFrame } from '@shared/protocol/errors.ts';
import type { Lab } from './lab.ts';
import {
  encodeLesson,
  lessonPath,
  LessonWriter,
  readLessonFile,
  type LessonSnapshot,
} from './lesson-store.ts';

/** Changes of mind a student may make on one step: past this her answers are refused (and counted). */
export const MAX_ANSWER_CHANGES = 30;
/** The run's trace is kept for replay up to this size (a shipped step's is a few tens of kB). */
const MAX_LESSON_TRACE_CHARS = 2 * 2 ** 20;

/** A step's run, as the room keeps it: the measure, the trace for replay and where it ran. */
export interface StepRun {
  measured: number | null;
  trace: string;
  source: 'live' | 'simulated';
}

/** Runs a step in the lab itself (lesson-live.ts). */
export interface LiveRunner {
  /** Starts the run, or returns null when the step cannot run live (the simulator runs it then). */
  start(lab: Lab, step: LessonStep, done: (run: StepRun) => void): { untilMs: number } | null;
  cancel(lab: Lab): void;
}

class LessonRoom {
  private answers = new Map<ProcessId, number>();
  private changes = new Map<ProcessId, number>();
  /** Each student's answers and correct answers over the lesson's revealed steps (the class board). */
  private scores = new Map<ProcessId, StudentScore>();
  /** The current step's run as a trace file; 'too-large' when it was over the bound and not kept. */
  private trace: string | 'too-large' | null = null;
  private source: StepRun['source'] | undefined;
  /** While a live run is under way: when it ends, by the relay's clock. */
  private running: { endsAt: number } | null = null;
  /** When the current question opened, by the relay's clock. */
  private openedAt: number | null = null;

  constructor(
    private progress: LessonProgress,
    private readonly lab: Lab,
    private readonly deps: { live: LiveRunner | null; save: (text: string | null) => void },
    saved?: LessonSnapshot,
  ) {
    if (saved) {
      ({ answers: this.answers, changes: this.changes, scores: this.scores } = saved);
      this.source = saved.source;
      if (saved.openForMs !== null) this.openedAt = this.now() - saved.openForMs;
    }
  }

  private now(): number {
    return this.lab.deps.clock.now();
  }

  view(instructor: boolean): LessonView {
    const view = lessonView(this.progress, this.answers, instructor, this.scores);
    // Elapsed, not a deadline: the relay's clock is monotonic and no browser shares it.
    if (this.progress.phase === 'open' && this.openedAt !== null)
      view.openForMs = Math.max(0, Math.round(this.now() - this.openedAt));
    if (this.running)
      view.running = {
        live: true,
        endsInMs: Math.max(0, Math.round(this.running.endsAt - this.now())),
      };
    if (this.source && view.measured !== undefined) view.source = this.source;
    return view;
  }

  /** An instructor's move; `run` starts the step live (its result comes later) or simulates it at once. */
  act(action: LessonAction): ErrorFrame | null {
    if (this.running)
      return errorFrame('LESSON_PHASE', {
        message: 'The step is running in the lab; wait for its end to move on',
      });
    if (action === 'run' && this.progress.phase === 'locked') return this.run();
    return this.apply(action, null);
  }

  private run(): null {
    const step = currentStep(this.progress);
    const started = this.deps.live?.start(this.lab, step, (r) => {
      if (!this.running) return; // cancelled (the lesson ended)
      this.running = null;
      this.apply('run', r);
    });
    if (started) {
      this.running = { endsAt: this.now() + started.untilMs };
      return null;
    }
    const outcome = runStep(step);
    return this.apply('run', {
      measured: outcome.measured,
      trace: outcome.trace(),
      source: 'simulated',
    }) as null;
  }

  private apply(action: LessonAction, run: StepRun | null): ErrorFrame | null {
    const next = act(this.progress, action, run?.measured);
    if ('type' in next) return next;
    if (run) {
      this.trace = run.trace.length <= MAX_LESSON_TRACE_CHARS ? run.trace : 'too-large';
      this.source = run.source;
    }
    if (next.phase === 'open' && this.progress.phase !== 'open') this.openedAt = this.now();
    if (action === 'reveal') this.scores = scoreStep(this.scores, this.answers, next.measured);
    if (next.step !== this.progress.step || next.phase === 'done') this.trace = null;
    if (next.step !== this.progress.step) {
      this.answers = new Map();
      this.changes = new Map();
      this.source = undefined;
    }
    this.progress = next;
    this.persist();
    return null;
  }

  /** The lesson ends: a live run stops where it is (the lab keeps what it did). */
  close(): void {
    if (this.running) this.deps.live?.cancel(this.lab);
    this.running = null;
  }

  persist(): void {
    this.deps.save(
      encodeLesson({
        progress: this.progress,
        ...(this.source ? { source: this.source } : {}),
        answers: this.answers,
        changes: this.changes,
        scores: this.scores,
        openForMs:
          this.progress.phase === 'open' && this.openedAt !== null
            ? Math.max(0, this.now() - this.openedAt)
            : null,
      }),
    );
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
    this.persist();
    return null;
  }
}

interface LessonRoomsOptions {
  /** The labs' data folder: each lab's lesson is saved as <lab>.lesson.json; absent: memory only. */
  dataDir?: string;
  onError?: (err: unknown) => void;
  /** A lesson state over the file bound was not saved. */
  onTooLarge?: () => void;
  live?: LiveRunner;
}

/** Each lab's lesson, if it runs one; a removed lab's room goes with it. */
export class LessonRooms {
  private readonly rooms = new WeakMap<Lab, LessonRoom>();
  /** Labs whose saved lesson was looked for already (a lab is read once). */
  private readonly read = new WeakSet<Lab>();
  private readonly writers = new Map<string, LessonWriter>();

  constructor(private readonly opts: LessonRoomsOptions = {}) {}

  get(lab: Lab): LessonRoom | null {
    if (!this.read.has(lab)) this.restore(lab);
    return this.rooms.get(lab) ?? null;
  }

  begin(lab: Lab, lesson: Lesson, step = 0): ErrorFrame | null {
    const progress = beginLesson(lesson, step);
    if ('type' in progress) return progress;
    this.get(lab)?.close();
    const room = new LessonRoom(progress, lab, this.deps(lab));
    this.rooms.set(lab, room);
    room.persist();
    return null;
  }

  end(lab: Lab): boolean {
    const room = this.get(lab);
    if (!room) return false;
    room.close();
    this.rooms.delete(lab);
    this.writer(lab.name)?.save(null);
    return true;
  }

  /**
   * The lab was removed or let go: its lesson stops, and its file writer is flushed and dropped
   * (kept, one writer per lab name ever opened would pile up on a relay that makes and removes labs).
   */
  async forget(lab: Lab): Promise<void> {
    this.rooms.get(lab)?.close();
    this.rooms.delete(lab);
    const w = this.writers.get(lab.name);
    this.writers.delete(lab.name);
    await w?.flushed();
  }

  /** Lab names with a lesson file writer held (bounded by the labs open: forget drops one). */
  get writersHeld(): number {
    return this.writers.size;
  }

  /** Every pending save written (the relay is closing). */
  async flushed(): Promise<void> {
    await Promise.all([...this.writers.values()].map((w) => w.flushed()));
  }

  private restore(lab: Lab): void {
    this.read.add(lab);
    const dir = this.opts.dataDir;
    const saved = dir ? readLessonFile(lessonPath(dir, lab.name), this.onError) : null;
    if (saved) this.rooms.set(lab, new LessonRoom(saved.progress, lab, this.deps(lab), saved));
  }

  private deps(lab: Lab): ConstructorParameters<typeof LessonRoom>[2] {
    return {
      live: this.opts.live ?? null,
      save: (text) => this.writer(lab.name)?.save(text),
    };
  }

  private writer(name: string): LessonWriter | null {
    const dir = this.opts.dataDir;
    if (!dir) return null;
    let w = this.writers.get(name);
    if (!w) {
      w = new LessonWriter(lessonPath(dir, name), this.onError, this.opts.onTooLarge ?? (() => {}));
      this.writers.set(name, w);
    }
    return w;
  }

  private readonly onError = (err: unknown): void => this.opts.onError?.(err);
}
