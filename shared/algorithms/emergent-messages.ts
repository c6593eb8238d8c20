// The emergent election algorithm's messages (003, Anthony 2004), one schema each.
import { z } from 'zod';
import { bare, IdSchema, type MessageSchemas } from './messages.ts';

export const EMERGENT_SCHEMAS = {
  MASTER_HEARTBEAT: bare('MASTER_HEARTBEAT'),
  SLAVE_HEARTBEAT: bare('SLAVE_HEARTBEAT'),
  SLAVE_LEAVE: bare('SLAVE_LEAVE'),
  CANDIDATE: bare('CANDIDATE'),
  ABORT: z.object({ type: z.literal('ABORT'), master: IdSchema }),
} satisfies MessageSchemas;
