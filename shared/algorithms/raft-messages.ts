// Raft's election messages (Ongaro & Ousterhout 2014, §5.2), one schema each.
import { z } from 'zod';
import { CountSchema, type MessageSchemas } from './messages.ts';

export const RAFT_SCHEMAS = {
  REQUEST_VOTE: z.object({ type: z.literal('REQUEST_VOTE'), term: CountSchema }),
  VOTE: z.object({ type: z.literal('VOTE'), term: CountSchema, granted: z.boolean() }),
  HEARTBEAT: z.object({ type: z.literal('HEARTBEAT'), term: CountSchema }),
  HEARTBEAT_REPLY: z.object({ type: z.literal('HEARTBEAT_REPLY'), term: CountSchema }),
} satisfies MessageSchemas;
