// What processes put on the wire inside frames and trace events: an algorithm's message and its
// report. Both frames.ts (the frames that carry them) and trace.ts (the events that journal them)
// read these schemas; neither imports the other for them.
import { z } from 'zod';
import { ProcessIdSchema } from './lab-config.ts';

export const ReportSchema = z
  .object({
    role: z.string().min(1).max(32),
    coordinator: ProcessIdSchema.nullable(),
    electing: z.boolean(),
    activeList: z.array(ProcessIdSchema).max(5000).optional(),
    successor: ProcessIdSchema.nullable().optional(),
    term: z.int().min(0).optional(),
    detail: z
      .record(z.string().max(32), z.union([z.number(), z.string().max(64), z.boolean(), z.null()]))
      .optional(),
  })
  .strict();

/** An algorithm message: any JSON object with a short string `type`. The relay does not read it further. */
export const MessageSchema = z.looseObject({ type: z.string().min(1).max(32) });

/** True when A and B are the same type: the schemas' assertions keep each schema and its TypeScript type in step. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
