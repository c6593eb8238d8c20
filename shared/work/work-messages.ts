// The work schedule's messages, one zod schema each (the gate is messages.ts's parser, as for
// the algorithms): what a peer may send the work layer. Lists are bounded by the largest job.
import { z } from 'zod';
import { CountSchema, IdSchema, type MessageSchemas } from '../algorithms/messages.ts';
import { MAX_TASKS } from '../protocol/lab-config.ts';

/** No task: an empty machine's `task` in WORK_STATUS and WORK_HELD. */
export const NONE = -1;

const Token = CountSchema;
const Task = z
  .int()
  .min(0)
  .max(MAX_TASKS - 1);
const Value = CountSchema;
/** When the sender last started (its clock, whole ms): a new value means it crashed and lost its state. */
const Boot = CountSchema;
/** The task a machine runs, or NONE (-1) when it is empty: a plain integer, so the hot path's fast check reads it. */
const Running = z
  .int()
  .min(NONE)
  .max(MAX_TASKS - 1);

export const WORK_SCHEMAS = {
  /** Coordinator -> worker: compute `task`; send the result to `reportTo` (the coordinator, or in static sharing the analyser). */
  WORK_ASSIGN: z.object({
    type: z.literal('WORK_ASSIGN'),
    token: Token,
    task: Task,
    reportTo: IdSchema,
  }),
  /** Worker -> coordinator (static: -> analyser): the answer; also "I am empty". */
  WORK_RESULT: z.object({ type: z.literal('WORK_RESULT'), token: Token, task: Task, value: Value }),
  /** Worker -> coordinator, every heartbeat interval: alive (since `boot`), and busy with `task` or empty (-1). */
  WORK_STATUS: z.object({
    type: z.literal('WORK_STATUS'),
    token: Token,
    task: Running,
    boot: Boot,
  }),
  /** Coordinator -> analyser: keep this result. */
  WORK_STORE: z.object({ type: z.literal('WORK_STORE'), token: Token, task: Task, value: Value }),
  /** A coordinator taking office -> everyone: "what do you hold?" */
  WORK_HOLD: z.object({ type: z.literal('WORK_HOLD'), token: Token, boot: Boot }),
  /** The answer: the task running, the results held ([task, value] pairs) and those kept as analyser. */
  WORK_HELD: z.object({
    type: z.literal('WORK_HELD'),
    token: Token,
    task: Running,
    boot: Boot,
    /** This token came before from another life of the asker (a crash forgot it): it must take a newer one. */
    reused: z.boolean(),
    held: z.array(z.tuple([Task, Value])).max(MAX_TASKS),
    stored: z.array(Task).max(MAX_TASKS),
  }),
  /** Fencing: "your token is older than `newest`"; the stale coordinator learns it is stale. */
  WORK_REFUSED: z.object({ type: z.literal('WORK_REFUSED'), token: Token, newest: Token }),
} satisfies MessageSchemas;

export type WorkMessage = z.infer<(typeof WORK_SCHEMAS)[keyof typeof WORK_SCHEMAS]>;
export const WORK_TYPES = Object.keys(WORK_SCHEMAS);
export const isWorkType = (type: unknown): boolean =>
  typeof type === 'string' && Object.hasOwn(WORK_SCHEMAS, type);
