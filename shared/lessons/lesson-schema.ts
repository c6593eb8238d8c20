// A lesson as data (issue 28; docs/RUN_A_CLASS.md, "Lessons"): steps, each a set-up, an
// optional question, a run of faults at virtual times, and a reveal that says what to measure
// from the run's trace, what the documents predict and where they say so. Lesson files in
// lessons/ are checked against this schema; docs/schema.json publishes it as `Lesson`.
import { z } from 'zod';
import {
  AlgorithmNameSchema,
  DetectorSchema,
  ProcessIdSchema,
  TimingSchema,
  WorkloadSchema,
} from '../protocol/lab-config.ts';
import { FINDING_KINDS } from '../protocol/finding.ts';
import { issueLines } from '../protocol/errors.ts';

/** Virtual times of a run, ms; a lesson's run is short (a class watches it). */
const At = z.number().min(0).max(600_000);
const MAX_LESSON_IDS = 64;
const MAX_CHOICES = 8;
/** Bounds of a number answer (the relay refuses anything outside the question's own range). */
export const MAX_ANSWER = 1_000_000;

const IdList = z.array(ProcessIdSchema).min(1).max(MAX_LESSON_IDS);
const Text = (max: number) => z.string().min(1).max(max);

export const SetupSchema = z
  .object({
    algorithm: AlgorithmNameSchema,
    ids: IdList,
    ring: IdList.optional(),
    timing: TimingSchema.partial().strict().optional(),
    /** `none`: only the run's `elect` events start elections (the documents' analysis). */
    detector: DetectorSchema.optional(),
    options: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).optional(),
    /** Who every process starts agreeing on; absent: the highest id; null: nobody (all elect). */
    coordinator: ProcessIdSchema.nullable().optional(),
    link: z
      .object({
        delay: z.number().min(0).max(60_000),
        jitter: z.number().min(0).max(60_000).optional(),
        loss: z.number().min(0).max(1).optional(),
      })
      .strict()
      .optional(),
    seed: z
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .optional(),
    /** Virtual horizon of the run, ms (runs with heartbeats never go quiet on their own). */
    until: At.optional(),
    /** 003's work schedule over the election (docs/WORK_SCHEDULE.md); what is left out: the job's defaults. */
    work: WorkloadSchema.partial().strict().optional(),
  })
  .strict();

const ChoiceSchema = z
  .object({ label: Text(80), value: z.number().min(-MAX_ANSWER).max(MAX_ANSWER) })
  .strict();

/** What the class is asked before the run; every answer is a number (a count, a choice's value or an id). */
/** Optional time to answer, in seconds: the projector counts it down (the instructor still locks). */
const Seconds = { seconds: z.int().min(5).max(3600).optional() };
const QuestionSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('number'),
      text: Text(300),
      min: z.int().min(0).max(MAX_ANSWER).optional(),
      max: z.int().min(0).max(MAX_ANSWER).optional(),
      ...Seconds,
    })
    .strict(),
  z
    .object({
      kind: z.literal('choice'),
      text: Text(300),
      choices: z.array(ChoiceSchema).min(2).max(MAX_CHOICES),
      ...Seconds,
    })
    .strict(),
  z.object({ kind: z.literal('process'), text: Text(300), ...Seconds }).strict(),
]);

const TimedId = z.object({ id: ProcessIdSchema, at: At }).strict();
export const RunSchema = z
  .object({
    crash: z.array(TimedId).max(64).optional(),
    recover: z.array(TimedId).max(64).optional(),
    /** A process's failure detector firing (or the instructor's "elect"). */
    elect: z.array(TimedId).max(64).optional(),
    /** `groups: null` heals. */
    partition: z
      .array(z.object({ at: At, groups: z.array(IdList).min(1).max(16).nullable() }).strict())
      .max(16)
      .optional(),
    /** From `at` on, these directed links take this delay (or lose this share). */
    links: z
      .array(
        z
          .object({
            at: At,
            from: ProcessIdSchema,
            to: ProcessIdSchema,
            delay: z.number().min(0).max(60_000).optional(),
            loss: z.number().min(0).max(1).optional(),
          })
          .strict(),
      )
      .max(64)
      .optional(),
  })
  .strict();

/** What the reveal measures from the run. Every measure is one number. */
const MeasureSchema = z.discriminatedUnion('kind', [
  /** Messages sent of these types over the whole run. */
  z.object({ kind: z.literal('messages'), types: z.array(Text(32)).min(1).max(16) }).strict(),
  /** How many distinct processes sent a message of this type (e.g. who announced itself). */
  z.object({ kind: z.literal('senders'), type: Text(32) }).strict(),
  /** The coordinator every live process believes at the end (the run fails to reveal if they disagree). */
  z.object({ kind: z.literal('coordinator') }).strict(),
  /** Live processes that believe themselves coordinator at the end of the run (two or more: split brain). */
  z.object({ kind: z.literal('acting-coordinators') }).strict(),
  /** From the first election to the last live process settling, ms. */
  z.object({ kind: z.literal('election-time') }).strict(),
  /** The live checker's findings of a kind, or (`spurious-elections`) its count of false detections. */
  z
    .object({
      kind: z.literal('findings'),
      finding: z.enum([...FINDING_KINDS, 'spurious-elections']),
    })
    .strict(),
  /** A figure of the work schedule's audit (needs `setup.work`): e.g. results lost at the end. */
  z
    .object({
      kind: z.literal('tasks'),
      figure: z.enum(['completed', 'lost', 'duplicates', 'reassigned', 'wrong']),
    })
    .strict(),
]);

const CiteSchema = z
  .object({ document: z.enum(['000', '001', '002', '003', '004']), rule: Text(300) })
  .strict();

const RevealSchema = z
  .object({
    measure: MeasureSchema,
    /** What the documents predict for this set-up; a lesson whose run measures otherwise is wrong. */
    expected: z.number().min(-MAX_ANSWER).max(MAX_ANSWER),
    /** The formula or rule behind `expected`, as the class sees it. */
    formula: Text(200).optional(),
    cites: CiteSchema,
    /** One or two sentences the projector shows with the result. */
    explain: Text(600),
  })
  .strict();

const StepSchema = z
  .object({
    title: Text(120),
    setup: SetupSchema,
    question: QuestionSchema.optional(),
    run: RunSchema,
    reveal: RevealSchema,
  })
  .strict();

export const LessonSchema = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'lower-case letters, digits and -, at most 64'),
    title: Text(120),
    summary: Text(600),
    steps: z.array(StepSchema).min(1).max(20),
  })
  .strict();

export type Lesson = z.infer<typeof LessonSchema>;
export type LessonStep = z.infer<typeof StepSchema>;
export type Question = z.infer<typeof QuestionSchema>;

/**
 * A lesson file checked: the lesson, or why not with the fields named (`steps.0.reveal.expected:
 * ...`), as an instructor who wrote it needs to read. Ids the run names must be the set-up's.
 */
export function parseLesson(
  raw: unknown,
): { ok: true; lesson: Lesson } | { ok: false; errors: string[] } {
  const parsed = LessonSchema.safeParse(raw);
  if (!parsed.success)
    return {
      ok: false,
      errors: issueLines(parsed.error.issues, '(lesson)'),
    };
  const errors = parsed.data.steps.flatMap((s, i) =>
    strangers(s).map((what) => `steps.${i}.${what}`),
  );
  return errors.length
    ? { ok: false, errors: errors.slice(0, 10) }
    : { ok: true, lesson: parsed.data };
}

/** Fields of a step that name a process its set-up does not have. */
function strangers(step: LessonStep): string[] {
  const ids = new Set(step.setup.ids);
  const out: string[] = [];
  const check = (path: string, id: number) =>
    void (ids.has(id) || out.push(`${path}: ${id} is not among setup.ids`));
  step.setup.ring?.forEach((id, j) => check(`setup.ring.${j}`, id));
  if (typeof step.setup.coordinator === 'number')
    check('setup.coordinator', step.setup.coordinator);
  for (const key of ['crash', 'recover', 'elect'] as const)
    step.run[key]?.forEach((e, j) => check(`run.${key}.${j}.id`, e.id));
  step.run.partition?.forEach((p, j) =>
    p.groups?.forEach((g, k) => g.forEach((id) => check(`run.partition.${j}.groups.${k}`, id))),
  );
  step.run.links?.forEach(
    (l, j) => (check(`run.links.${j}.from`, l.from), check(`run.links.${j}.to`, l.to)),
  );
  if (step.reveal.measure.kind === 'tasks' && !step.setup.work)
    out.push('reveal.measure: "tasks" needs setup.work (the work schedule)');
  step.setup.work?.slow?.forEach((s, j) => check(`setup.work.slow.${j}.id`, s.id));
  const q = step.question;
  if (q?.kind === 'number' && q.min !== undefined && q.max !== undefined && q.min > q.max)
    out.push('question.max: below question.min');
  return out;
}
