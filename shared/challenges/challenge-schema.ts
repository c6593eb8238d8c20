// A "break it" challenge as data (issue 28, item 6; docs/RUN_A_CLASS.md, "Challenges"): a target
// the checker can see in a run, a fixed set-up, and a budget of faults. A student's submission is
// her seed, the set-up she ran and her schedule of faults; the relay re-runs it
// (challenge-verify.ts). Files in challenges/ are checked against ChallengeSchema; docs/schema.json
// publishes it and the submission frame.
import { z } from 'zod';
import { ProcessIdSchema } from '../protocol/lab-config.ts';
import { RunSchema, SetupSchema } from '../lessons/lesson-schema.ts';
import { issueLines } from '../protocol/errors.ts';

const Text = (max: number) => z.string().min(1).max(max);
const Count = (max: number) => z.int().min(0).max(max);

/** What counts as broken: both are read off the run's trace by the checker's own rules. */
const TargetSchema = z.discriminatedUnion('kind', [
  /** The live checker's safety finding: two processes act as coordinator at once (003, "Uniqueness"). */
  z.object({ kind: z.literal('split-brain') }).strict(),
  /** A stretch of at least `ms` during which no live process acts as coordinator. */
  z.object({ kind: z.literal('leaderless'), ms: z.int().min(100).max(600_000) }).strict(),
]);
export type Target = z.infer<typeof TargetSchema>;

/** The faults a schedule may use; a heal (`groups: null`) is free. */
const BudgetSchema = z
  .object({
    links: Count(16),
    partitions: Count(4),
    crashes: Count(8),
    recoveries: Count(8),
    elections: Count(8),
    /** Processes no schedule may crash (e.g. the top two ids: crashing the leader is too easy). */
    protect: z.array(ProcessIdSchema).max(64).default([]),
  })
  .strict();
export type Budget = z.infer<typeof BudgetSchema>;

export const ChallengeSchema = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'lower-case letters, digits and -, at most 64'),
    title: Text(120),
    /** What to break, as the class reads it. */
    summary: Text(600),
    target: TargetSchema,
    /** The lab every student starts from; `until` bounds the run (default 20 s). */
    setup: SetupSchema,
    budget: BudgetSchema,
    cites: z
      .object({ document: z.enum(['000', '001', '002', '003', '004']), rule: Text(300) })
      .strict(),
  })
  .strict();
export type Challenge = z.infer<typeof ChallengeSchema>;

/** A schedule of faults: the lesson run's events (crash, recover, elect, partition, links). */
export const ScheduleSchema = RunSchema;
export type Schedule = z.infer<typeof ScheduleSchema>;

/** What a student submits: the relay re-runs exactly this. */
export const SubmissionSchema = z
  .object({
    challenge: z.string().min(1).max(64),
    seed: z
      .int()
      .min(0)
      .max(2 ** 32 - 1),
    setup: SetupSchema,
    schedule: ScheduleSchema,
  })
  .strict();
export type Submission = z.infer<typeof SubmissionSchema>;

/**
 * Her lab session, when she has one (the join page's process: its id and resume token): the
 * relay checks it holds that id and shows the name she joined with as verified; without it the
 * typed name is shown as claimed.
 */
export const SubmitSessionSchema = z
  .object({ id: ProcessIdSchema, resume: z.string().min(1).max(64) })
  .strict();
export type SubmitSession = z.infer<typeof SubmitSessionSchema>;

/** The faults a schedule spends, by kind (heals are free). */
export function faultsOf(s: Schedule): Omit<Budget, 'protect'> {
  return {
    links: s.links?.length ?? 0,
    partitions: s.partition?.filter((p) => p.groups !== null).length ?? 0,
    crashes: s.crash?.length ?? 0,
    recoveries: s.recover?.length ?? 0,
    elections: s.elect?.length ?? 0,
  };
}

/** Every way a schedule spends more than the budget allows, in the student's words. */
export function overBudget(challenge: Challenge, schedule: Schedule): string[] {
  const spent = faultsOf(schedule);
  const { protect, ...allowed } = challenge.budget;
  const out = (Object.keys(allowed) as (keyof typeof allowed)[])
    .filter((k) => spent[k] > allowed[k])
    .map((k) => `${spent[k]} ${k} (at most ${allowed[k]})`);
  for (const c of schedule.crash ?? [])
    if (protect.includes(c.id)) out.push(`a crash of ${c.id}, which this challenge protects`);
  return out;
}

export function totalFaults(s: Schedule): number {
  return Object.values(faultsOf(s)).reduce((a, b) => a + b, 0);
}

/**
 * A challenge file checked: the challenge, or why not with the fields named. Ids must be the
 * set-up's (a protected id it does not have protects nothing).
 */
export function parseChallenge(
  raw: unknown,
): { ok: true; challenge: Challenge } | { ok: false; errors: string[] } {
  const parsed = ChallengeSchema.safeParse(raw);
  if (!parsed.success)
    return {
      ok: false,
      errors: issueLines(parsed.error.issues, '(challenge)'),
    };
  const ids = new Set(parsed.data.setup.ids);
  const errors = parsed.data.budget.protect
    .map((id, j) => (ids.has(id) ? null : `budget.protect.${j}: ${id} is not among setup.ids`))
    .filter((e): e is string => e !== null);
  return errors.length ? { ok: false, errors } : { ok: true, challenge: parsed.data };
}
