// The lesson routes' bodies and answers as zod schemas (docs/openapi.json is made from them):
// POST /api/labs/:lab/lesson and GET /api/labs/:lab/lesson.
import { z } from 'zod';
import { LessonSchema } from './lesson-schema.ts';

const PHASES = ['ready', 'open', 'locked', 'ran', 'revealed', 'done'] as const;

/** POST /api/labs/:lab/lesson: a shipped lesson by id (GET /api/lessons) or a whole lesson of her own. */
export const SetLessonSchema = z
  .object({
    lesson: z.union([z.string().min(1).max(64), LessonSchema]),
    step: z.int().min(0).max(19).optional(),
  })
  .strict();

/** What the relay reads first: the outer shape; a lesson object is then checked by parseLesson so its fields are named. */
export const SetLessonBodySchema = z
  .object({
    lesson: z.union([z.string().min(1).max(64), z.looseObject({})]),
    step: z.int().min(0).max(19).optional(),
  })
  .strict();

export const LessonViewSchema = z
  .object({
    lesson: z.object({
      id: z.string(),
      title: z.string(),
      summary: z.string(),
      steps: z.int().min(1),
    }),
    step: z.int().min(0),
    title: z.string(),
    /** The step's process ids (a process question's answers). */
    ids: z.array(z.int().min(0)),
    question: LessonSchema.shape.steps.element.shape.question.unwrap().nullable(),
    phase: z.enum(PHASES),
    answers: z
      .record(z.string(), z.int().min(0))
      .describe(
        'Answer value -> how many gave it; empty until the reveal (the instructor sees it always)',
      ),
    answered: z.int().min(0).describe('Students who have answered this step'),
    openForMs: z
      .number()
      .min(0)
      .optional()
      .describe(
        "While the question is open: how long it has been open, by the relay's clock (the projector's countdown or elapsed time)",
      ),
    measured: z
      .number()
      .nullable()
      .optional()
      .describe("The run's result; from the reveal on (the instructor: once it ran)"),
    source: z
      .enum(['live', 'simulated'])
      .optional()
      .describe(
        "With `measured`: measured from the live lab's own run, or from the relay's simulator (the step could not run live)",
      ),
    running: z
      .object({ live: z.literal(true), endsInMs: z.number().min(0) })
      .strict()
      .optional()
      .describe('While the step runs in the live lab: how long until it ends and is measured'),
    expected: z.number().optional(),
    formula: z.string().optional(),
    explain: z.string().optional(),
    cites: z.object({ document: z.string(), rule: z.string() }).optional(),
    byStudent: z
      .record(z.string(), z.number())
      .optional()
      .describe('Instructor only (with the token): each answer by process id'),
    scores: z
      .record(z.string(), z.object({ answered: z.int().min(0), correct: z.int().min(0) }).strict())
      .optional()
      .describe(
        "Instructor only: by process id, the lesson's revealed steps she answered and how many of those matched the relay's measured value",
      ),
  })
  .strict();

export type LessonView = z.infer<typeof LessonViewSchema>;
export type LessonPhase = (typeof PHASES)[number];

/** GET /api/labs/:lab/demo: whether the demo loop (shared/lessons/demo-loop.ts) drives the lab. */
export const DemoStatusSchema = z.union([
  z
    .object({
      running: z.literal(true),
      everyMs: z.number().positive(),
      crashed: z.int().min(0).nullable().describe('The id the loop crashed and will recover next'),
    })
    .strict(),
  z.object({ running: z.literal(false) }).strict(),
]);
export type DemoStatus = z.infer<typeof DemoStatusSchema>;
