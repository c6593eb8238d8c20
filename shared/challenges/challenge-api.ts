// The challenge routes' bodies and answers as zod schemas (docs/openapi.json is made from them):
// POST /api/labs/:lab/challenge, GET /api/labs/:lab/challenge and the REST submission.
import { z } from 'zod';
import { DisplayNameSchema } from '../protocol/display-name.ts';
import {
  ChallengeSchema,
  ScheduleSchema,
  SubmissionSchema,
  SubmitSessionSchema,
} from './challenge-schema.ts';

/** POST /api/labs/:lab/challenge: a shipped challenge by id (GET /api/challenges). */
export const OpenChallengeSchema = z.object({ challenge: z.string().min(1).max(64) }).strict();

/** POST /api/labs/:lab/challenge/submissions: the same fields as the `submit` frame. */
export const SubmitBodySchema = z
  .object({
    name: DisplayNameSchema.pipe(z.string().min(1)),
    submission: SubmissionSchema,
    session: SubmitSessionSchema.optional(),
  })
  .strict();

/** A board entry's rank in a route's path (/challenge/board/:rank...). */
export const BoardRankSchema = z.coerce.number().int().min(1).max(10_000);

const BoardEntrySchema = z
  .object({
    rank: z.int().min(1),
    name: z.string(),
    /** True: the name she joined the lab with, her session checked by the relay; false: typed, a claim. */
    verified: z.boolean(),
    faults: z.int().min(0),
    /** When her run reached the target, ms of virtual time. */
    at: z.number().min(0),
  })
  .strict();
export type BoardEntry = z.infer<typeof BoardEntrySchema>;

/** The instructor's replay of one entry in the live lab, as the board shows it (live, not simulated). */
const LiveReplaySchema = z
  .object({
    rank: z.int().min(1),
    name: z.string(),
    verified: z.boolean(),
    /** settling: the set-up is put on the lab; running: her faults at their times; then the verdict. */
    phase: z.enum(['settling', 'running', 'reproduced', 'not-reproduced', 'stopped', 'unsettled']),
    /** One line: what the live run reached, or why it did not run to its end. */
    detail: z.string(),
    /** When the relay's simulator reached the target (ms), beside the live run's. */
    simulatedAt: z.number().min(0),
    /** When the live run reached it, ms from the run's start; null: not (yet). */
    at: z.number().min(0).nullable(),
    /** The live checker's findings during the run, by kind. */
    findings: z.record(z.string(), z.int().min(0)),
    /** The run's end by the relay's clock, while settling or running. */
    endsInMs: z.number().min(0).optional(),
  })
  .strict();
export type LiveReplay = z.infer<typeof LiveReplaySchema>;

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
    live: LiveReplaySchema.nullable().describe(
      "The instructor's latest replay of an entry in the live lab (POST .../board/:rank/live)",
    ),
  })
  .strict();
export type ChallengeView = z.infer<typeof ChallengeViewSchema>;

/** GET /api/labs/:lab/challenge/entries/:rank (token): an accepted schedule, to replay. */
export const BoardScheduleSchema = z
  .object({
    name: z.string(),
    verified: z.boolean(),
    seed: z.int().min(0),
    schedule: ScheduleSchema,
  })
  .strict();
