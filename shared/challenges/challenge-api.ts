// The challenge routes' bodies and answers as zod schemas (docs/openapi.json is made from them):
// POST /api/labs/:lab/challenge, GET /api/labs/:lab/challenge and the REST submission.
import { z } from 'zod';
import { DisplayNameSchema } from '../protocol/display-name.ts';
import { ChallengeSchema, ScheduleSchema, SubmissionSchema } from './challenge-schema.ts';

/** POST /api/labs/:lab/challenge: a shipped challenge by id (GET /api/challenges). */
export const OpenChallengeSchema = z.object({ challenge: z.string().min(1).max(64) }).strict();

/** POST /api/labs/:lab/challenge/submissions: the same fields as the `submit` frame. */
export const SubmitBodySchema = z
  .object({
    name: DisplayNameSchema.pipe(z.string().min(1)),
    submission: SubmissionSchema,
  })
  .strict();

const BoardEntrySchema = z
  .object({
    rank: z.int().min(1),
    name: z.string(),
    faults: z.int().min(0),
    /** When her run reached the target, ms of virtual time. */
    at: z.number().min(0),
  })
  .strict();
export type BoardEntry = z.infer<typeof BoardEntrySchema>;

export const ChallengeViewSchema = z
  .object({
    challenge: ChallengeSchema,
    board: z
      .array(BoardEntrySchema)
      .describe(
        "Who broke it, each student's best: fewest faults first, then the first to get there",
      ),
    submissions: z.int().min(0),
    refused: z
      .record(z.string(), z.int().min(0))
      .describe('Refused submissions by reason (over-budget, setup-changed, not-reproduced, ...)'),
  })
  .strict();
export type ChallengeView = z.infer<typeof ChallengeViewSchema>;

/** GET /api/labs/:lab/challenge/entries/:rank (token): an accepted schedule, to replay. */
export const BoardScheduleSchema = z
  .object({ name: z.string(), seed: z.int().min(0), schedule: ScheduleSchema })
  .strict();
