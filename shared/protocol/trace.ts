// The trace format shared by the relay, the simulator, replay and the dashboard (versioned:
// docs/PROTOCOL.md describes it). Maelstrom's lesson: journal every send and receive, and draw
// every diagram from the journal.
import { z } from 'zod';
import type { Message, ProcessId, Report } from '../algorithms/algorithm.ts';
import { FindingSchema, type Finding } from './finding.ts';
import { AlgorithmNameSchema, ProcessIdSchema } from './lab-config.ts';
import { MessageSchema, ReportSchema, type Same } from './payloads.ts';

export const TRACE_VERSION = 1;

export type DropReason =
  | 'loss' // the fabric's loss probability
  | 'partition' // sender and receiver are in different partition groups
  | 'receiver-crashed'
  | 'sender-crashed'
  | 'unknown-destination'
  | 'manual' // dropped by hand while paused
  | 'overflow' // the receiver could not keep up and the bounded queue was full
  | 'receiver-gone' // the receiver left the lab (or its connection dropped)
  | 'reset'; // discarded in flight when the instructor reset or reconfigured the lab

interface Base {
  seq: number;
  /** ms since the lab (or simulation) started */
  t: number;
  /** Lamport clock of the process the event happened at, where there is one. */
  lamport?: number;
  /** Vector clock of that process, as id -> count (only ids that have ticked). */
  vector?: Record<string, number>;
}

export type TraceEvent = Base &
  (
    | { kind: 'send'; msg: number; from: ProcessId; to: ProcessId; type: string; message: Message }
    | { kind: 'deliver'; msg: number; from: ProcessId; to: ProcessId; type: string }
    | {
        kind: 'drop';
        msg: number;
        from: ProcessId;
        to: ProcessId;
        type: string;
        reason: DropReason;
      }
    | { kind: 'duplicate'; msg: number; of: number; from: ProcessId; to: ProcessId; type: string }
    | { kind: 'timer'; node: ProcessId; name: string }
    | { kind: 'elect'; node: ProcessId }
    /** `pause` and `resume`: the instructor paused one process (SIGSTOP) and resumed it (SIGCONT). */
    | { kind: 'crash' | 'recover' | 'pause' | 'resume' | 'join' | 'leave'; node: ProcessId }
    | { kind: 'report'; node: ProcessId; report: Report }
    | { kind: 'partition'; groups: ProcessId[][] | null }
    /**
     * The instructor paused, resumed, reset or reconfigured the lab, changed its fabric, or
     * restarted the work schedule's job (`restart-job`: every live process restarts, agreeing
     * on the coordinator it had, with a fresh task list); `restart`: every process restarted (a
     * new time scale, a restart of the job; a reset or a reconfigure always does).
     */
    | {
        kind: 'control';
        action: 'pause' | 'resume' | 'reset' | 'reconfigure' | 'fabric' | 'restart-job';
        restart?: true;
      }
    | { kind: 'note'; text: string }
    /** The process's algorithm threw; its host restarted it from scratch (`restarted`) or stopped it. */
    | { kind: 'fault'; node: ProcessId; error: string; event: string; restarted: boolean }
    /** A relay took ownership of the lab (a cluster: REDIS_URL) with this fencing epoch; previous: the owner before, if known. */
    | { kind: 'owner'; relay: string; epoch: number; previous: string | null }
    /** The live checker's conclusion (shared/analysis/checker.ts): split brain, disagreement, a late or spurious election. */
    | { kind: 'finding'; finding: Finding }
    /** A hand-played process departed from the reference (the coach, shared/coach/): the rule and its sentence. */
    | { kind: 'deviation'; node: ProcessId; rule: string; text: string; action: string | null }
  );

const DROP_REASONS = [
  'loss',
  'partition',
  'receiver-crashed',
  'sender-crashed',
  'unknown-destination',
  'manual',
  'overflow',
  'receiver-gone',
  'reset',
] as const satisfies readonly DropReason[];

// The same events as a zod schema, for reading trace files back (replay). The assertions below
// keep it and the TraceEvent type in step: a field added to one and not the other fails to compile.
const base = {
  seq: z.int().min(0),
  t: z.number().min(0),
  lamport: z.int().min(0).optional(),
  vector: z.record(z.string(), z.int().min(0)).optional(),
};
const Id = ProcessIdSchema;
const Type = z.string().min(1).max(64);
const Msg = z.int().min(0);
export const TraceEventSchema = z.discriminatedUnion('kind', [
  z
    .object({
      ...base,
      kind: z.literal('send'),
      msg: Msg,
      from: Id,
      to: Id,
      type: Type,
      message: MessageSchema,
    })
    .strict(),
  z
    .object({ ...base, kind: z.literal('deliver'), msg: Msg, from: Id, to: Id, type: Type })
    .strict(),
  z
    .object({
      ...base,
      kind: z.literal('drop'),
      msg: Msg,
      from: Id,
      to: Id,
      type: Type,
      reason: z.enum(DROP_REASONS),
    })
    .strict(),
  z
    .object({
      ...base,
      kind: z.literal('duplicate'),
      msg: Msg,
      of: Msg,
      from: Id,
      to: Id,
      type: Type,
    })
    .strict(),
  z.object({ ...base, kind: z.literal('timer'), node: Id, name: z.string().max(128) }).strict(),
  z.object({ ...base, kind: z.literal('elect'), node: Id }).strict(),
  z
    .object({
      ...base,
      kind: z.enum(['crash', 'recover', 'pause', 'resume', 'join', 'leave']),
      node: Id,
    })
    .strict(),
  z.object({ ...base, kind: z.literal('report'), node: Id, report: ReportSchema }).strict(),
  z
    .object({ ...base, kind: z.literal('partition'), groups: z.array(z.array(Id)).nullable() })
    .strict(),
  z
    .object({
      ...base,
      kind: z.literal('control'),
      action: z.enum(['pause', 'resume', 'reset', 'reconfigure', 'fabric', 'restart-job']),
      restart: z.literal(true).optional(),
    })
    .strict(),
  z.object({ ...base, kind: z.literal('note'), text: z.string().max(10_000) }).strict(),
  z
    .object({
      ...base,
      kind: z.literal('fault'),
      node: Id,
      error: z.string().max(200),
      event: z.string().max(64),
      restarted: z.boolean(),
    })
    .strict(),
  z
    .object({
      ...base,
      kind: z.literal('owner'),
      relay: z.string().max(128),
      epoch: z.int().min(0),
      previous: z.string().max(128).nullable(),
    })
    .strict(),
  z.object({ ...base, kind: z.literal('finding'), finding: FindingSchema }).strict(),
  z
    .object({
      ...base,
      kind: z.literal('deviation'),
      node: Id,
      rule: z.string().max(48),
      text: z.string().max(300),
      action: z.string().max(120).nullable(),
    })
    .strict(),
]);

/**
 * A trace file's first line (JSON Lines: this header, then one TraceEvent per line). `source`
 * says who recorded it; the rest describes the run so a reader can label it. Unknown fields are
 * kept: later versions may add some.
 */
export const TraceHeaderSchema = z.looseObject({
  kind: z.literal('header'),
  version: z.int().min(1),
  source: z.enum(['simulator', 'relay', 'explorer', 'experiment']),
  algorithm: AlgorithmNameSchema.optional(),
  ids: z.array(Id).optional(),
  seed: z.number().optional(),
});
export type TraceHeader = z.infer<typeof TraceHeaderSchema>;

type Parsed = z.infer<typeof TraceEventSchema>;
// Messages are open objects on both sides; compare the rest field by field.
const _schemaMatchesType: Same<
  Omit<Extract<Parsed, { kind: 'send' }>, 'message'>,
  Omit<Extract<TraceEvent, { kind: 'send' }>, 'message'>
> &
  Same<Exclude<Parsed, { kind: 'send' }>, Exclude<TraceEvent, { kind: 'send' }>> = true;
void _schemaMatchesType;
