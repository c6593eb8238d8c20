// Bully's messages (000, Figure 6-20; 002), one schema each. `term` is optional: a process
// written from the documents alone sends none (bully.ts, "terms").
import { z } from 'zod';
import { CountSchema, DETECTOR_SCHEMAS, type MessageSchemas } from './messages.ts';

export const BULLY_SCHEMAS = {
  ELECTION: z.object({
    type: z.literal('ELECTION'),
    election: CountSchema,
    term: CountSchema.optional(),
  }),
  OK: z.object({ type: z.literal('OK'), election: CountSchema, term: CountSchema.optional() }),
  COORDINATOR: z.object({ type: z.literal('COORDINATOR'), term: CountSchema.optional() }),
  ...DETECTOR_SCHEMAS,
} satisfies MessageSchemas;
