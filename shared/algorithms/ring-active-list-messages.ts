// The active-list ring's messages (001, "Election In A Ring": Elect(j), Elected(x)), one schema each.
import { z } from 'zod';
import {
  ACK_SCHEMA,
  CountSchema,
  DETECTOR_SCHEMAS,
  IdSchema,
  type MessageSchemas,
} from './messages.ts';

export const ACTIVE_LIST_SCHEMAS = {
  ELECT: z.object({ type: z.literal('ELECT'), seq: CountSchema, id: IdSchema, epoch: CountSchema }),
  ELECTED: z.object({
    type: z.literal('ELECTED'),
    seq: CountSchema,
    coordinator: IdSchema,
    epoch: CountSchema,
  }),
  ACK: ACK_SCHEMA,
  ...DETECTOR_SCHEMAS,
} satisfies MessageSchemas;
