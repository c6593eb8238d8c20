// A lab's lesson on disk (DATA_DIR/<lab>.lesson.json), so a relay restart finds the class where
// it was: the lesson, its step and phase, the measured value and the answers. Written like the
// lab's state (lab-state.ts): a temp file, then rename; saves coalesce (only the newest state is
// written, one write at a time) and a state over the byte bound is not written but counted.
// Read once per lab, checked with zod and the lesson schema; a bad file is reported and ignored.
import { readFileSync, statSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ProcessIdSchema } from '@shared/protocol/lab-config.ts';
import { parseLesson } from '@shared/lessons/lesson-schema.ts';
import type { LessonProgress, StudentScore } from '@shared/lessons/lesson-class.ts';
import type { ProcessId } from '@shared/algorithms/algorithm.ts';

/** A lesson (at most 256 KiB as a file) and 5,000 students' answers and scores fit well under this. */
const MAX_LESSON_STATE_BYTES = 2 * 2 ** 20;

const Pairs = <T extends z.ZodType>(value: T) =>
  z.array(z.tuple([ProcessIdSchema, value])).max(5000);

const LessonFileSchema = z
  .object({
    version: z.literal(1),
    lesson: z.unknown(),
    step: z.int().min(0).max(19),
    phase: z.enum(['ready', 'open', 'locked', 'ran', 'revealed', 'done']),
    measured: z.number().nullable(),
    /** Where the measured value came from (server/lab/lesson-live.ts); absent: the simulator. */
    source: z.enum(['live', 'simulated']).optional(),
    answers: Pairs(z.number()),
    changes: Pairs(z.int().min(0)),
    scores: Pairs(z.object({ answered: z.int().min(0), correct: z.int().min(0) }).strict()),
    /** How long the question had been open at the save (the countdown resumes from there). */
    openForMs: z.number().min(0).nullable(),
  })
  .strict();

export interface LessonSnapshot {
  progress: LessonProgress;
  source?: 'live' | 'simulated';
  answers: Map<ProcessId, number>;
  changes: Map<ProcessId, number>;
  scores: Map<ProcessId, StudentScore>;
  openForMs: number | null;
}

export const lessonPath = (dir: string, lab: string): string => join(dir, `${lab}.lesson.json`);

export function encodeLesson(s: LessonSnapshot): string {
  const { lesson, step, phase, measured } = s.progress;
  return JSON.stringify({
    version: 1,
    lesson,
    step,
    phase,
    measured,
    ...(s.source ? { source: s.source } : {}),
    answers: [...s.answers],
    changes: [...s.changes],
    scores: [...s.scores],
    openForMs: s.openForMs,
  } satisfies z.input<typeof LessonFileSchema>);
}

/** The saved lesson, or null: none, too large, or not a lesson state (reported through `onError`). */
export function readLessonFile(
  path: string,
  onError: (err: unknown) => void,
): LessonSnapshot | null {
  try {
    if (statSync(path).size > MAX_LESSON_STATE_BYTES) {
      onError(new Error(`${path}: over ${MAX_LESSON_STATE_BYTES} bytes, not read`));
      return null;
    }
  } catch {
    return null; // no lesson saved for this lab
  }
  try {
    const file = LessonFileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    const lesson = file.success ? parseLesson(file.data.lesson) : null;
    if (!file.success || !lesson?.ok || file.data.step >= lesson.lesson.steps.length) {
      onError(new Error(`${path}: not a lesson state file`));
      return null;
    }
    const d = file.data;
    return {
      progress: { lesson: lesson.lesson, step: d.step, phase: d.phase, measured: d.measured },
      ...(d.source ? { source: d.source } : {}),
      answers: new Map(d.answers),
      changes: new Map(d.changes),
      scores: new Map(d.scores),
      openForMs: d.openForMs,
    };
  } catch (err) {
    onError(err);
    return null;
  }
}

/** One lab's file: the newest text is written, one write at a time; `remove` deletes it after them. */
export class LessonWriter {
  private pending: string | null | undefined = undefined;
  private running: Promise<void> | null = null;

  constructor(
    private readonly path: string,
    private readonly onError: (err: unknown) => void,
    private readonly onTooLarge: () => void,
  ) {}

  /** `null` removes the file (the lesson ended). */
  save(text: string | null): void {
    if (text !== null && Buffer.byteLength(text) > MAX_LESSON_STATE_BYTES) return this.onTooLarge();
    this.pending = text;
    this.running ??= this.drain().finally(() => (this.running = null));
  }

  flushed(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    // Bounded: each pass takes the newest pending text; saves made meanwhile coalesce into one more pass.
    while (this.pending !== undefined) {
      const text = this.pending;
      this.pending = undefined;
      try {
        if (text === null) await rm(this.path, { force: true });
        else {
          await writeFile(`${this.path}.tmp`, text);
          await rename(`${this.path}.tmp`, this.path);
        }
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
