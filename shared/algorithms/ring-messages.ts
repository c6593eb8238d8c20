// The ring algorithm's messages (002, "A Ring Algorithm"), one schema each.
import { z } from 'zod';
import {
  ACK_SCHEMA,
  CountSchema,
  DETECTOR_SCHEMAS,
  IdListSchema,
  IdSchema,
  type MessageSchemas,
} from './messages.ts';

export const RING_SCHEMAS = {
  ELECTION: z.object({
    type: z.literal('ELECTION'),
    seq: CountSchema,
    eid: z.string().min(1).max(64),
    list: IdListSchema,
  }),
  COORDINATOR: z.object({
    type: z.literal('COORDINATOR'),
    seq: CountSchema,
    eid: z.string().min(1).max(64),
    coordinator: IdSchema,
    origin: IdSchema,
  }),
  ACK: ACK_SCHEMA,
  ...DETECTOR_SCHEMAS,
} satisfies MessageSchemas;
