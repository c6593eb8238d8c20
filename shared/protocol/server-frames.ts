// The relay's frames as zod schemas, for the machine-readable contract (docs/schema.json). The
// ServerFrame type in frames.ts stays the one the code builds; the assertion below keeps the two
// in step on the fields a client relies on, so a frame changed in one and not the other fails to compile.
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './errors.ts';
import {
  FabricSchema,
  LabConfigSchema,
  LabName,
  PlaySchema,
  ProcessIdSchema,
} from './lab-config.ts';
import {
  PROTOCOL_VERSION,
  ProcessConfigSchema,
  type HandFigures,
  type ProcessInfo,
  type ServerFrame,
} from './frames.ts';
import { GradeSummarySchema, ProcessModeSchema } from './grade-summary.ts';
import { MessageSchema, ReportSchema } from './payloads.ts';
import { TraceEventSchema } from './trace.ts';

const Ref = z.union([z.string().max(64), z.int()]).optional();
const Id = ProcessIdSchema;

/** The REST API's process entry (GET /api/labs/:lab/processes/:id, and each of a lab's processes). */
export const ProcessInfoSchema = z.object({
  id: Id,
  name: z.string().nullable(),
  status: z.enum(['up', 'crashed', 'absent']),
  kind: z.enum(['human', 'bot', 'external']).nullable(),
  transport: z.enum(['socketio', 'ws', 'server']).nullable(),
  report: ReportSchema.nullable(),
  group: z.int().nullable(),
  mode: ProcessModeSchema.optional(),
  /** Her latest grade as her tab reported it: a claim the relay did not re-run ("reported by the student's tab"). */
  claimedGrade: z
    .object({
      ...GradeSummarySchema.shape,
      claimed: z.literal(true),
      at: z.number(),
      trace: z.boolean(),
    })
    .describe(
      "Reported by the student's tab; the relay checked only that it does not contradict itself",
    )
    .optional(),
  since: z.number().nullable().optional(),
  /** Hand mode: the relay's own figures (actions, sends, deviations) and her tab's claims. */
  hand: z
    .object({
      actions: z.int().min(0).describe('Her moves as the relay received them (verified)'),
      sends: z.int().min(0).describe('Messages she sent while playing by hand (verified)'),
      deviations: z
        .int()
        .min(0)
        .describe(
          "Marks of the relay's own coach on what it delivered to her and what she sent (verified)",
        ),
      claimed: z
        .object({ clicks: z.int().min(0), deviations: z.int().min(0) })
        .describe('What her tab reported: not verified'),
      progress: z
        .object({
          open: z.int().min(0),
          oldestOpenMs: z.number().min(0).nullable(),
          electingMs: z.number().min(0).nullable(),
          stuck: z.boolean(),
        })
        .describe(
          "Whether she holds the class up, by the relay's own coach and clock (verified): answers owed, the oldest's wait, time electing; stuck past 2 x UB",
        )
        .optional(),
    })
    .optional(),
  findings: z.int().min(0).optional(),
  paused: z.literal(true).optional(),
  held: z.int().min(0).optional(),
});
const _processInfo: Same<keyof z.infer<typeof ProcessInfoSchema>, keyof ProcessInfo> &
  Same<z.infer<typeof ProcessInfoSchema>['hand'], HandFigures | undefined> = true;
void _processInfo;

export const LabSnapshotSchema = z.looseObject({
  config: LabConfigSchema,
  processes: z.array(ProcessInfoSchema),
  paused: z.boolean(),
  inFlight: z.int().min(0),
  now: z.number(),
  partition: z.array(z.array(Id)).nullable(),
  seq: z.int().optional(),
  joinCode: z.string().optional(),
});

export const ServerFrameSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('joined'),
    /** The protocol version the relay speaks (docs/PROTOCOL.md). */
    protocol: z.literal(PROTOCOL_VERSION),
    lab: LabName,
    id: Id,
    resume: z.string(),
    config: ProcessConfigSchema,
    status: z.enum(['up', 'crashed']),
    paused: z.literal(true).optional(),
    play: PlaySchema.optional(),
    ref: Ref,
  }),
  z.object({ type: z.literal('play'), play: PlaySchema }),
  z.object({ type: z.literal('deliver'), from: Id, msg: z.int().min(0), message: MessageSchema }),
  z.object({ type: z.literal('crashed') }),
  z.object({ type: z.literal('paused') }),
  z.object({ type: z.literal('resumed') }),
  z.object({ type: z.literal('recovered'), config: ProcessConfigSchema }),
  z.object({ type: z.literal('restart'), config: ProcessConfigSchema }),
  z.object({ type: z.literal('elect') }),
  z.object({ type: z.literal('left') }),
  z.object({ type: z.literal('pong'), ref: Ref }),
  z.object({ type: z.literal('snapshot'), lab: LabName, snapshot: LabSnapshotSchema, ref: Ref }),
  z.object({
    type: z.literal('events'),
    lab: LabName,
    events: z.array(TraceEventSchema),
    skipped: z.int().min(0),
  }),
  z.object({ type: z.literal('fabric'), lab: LabName, fabric: FabricSchema }),
  /** A cluster: the lab lives on the relay at `url` (docs/SCALING.md). */
  z.object({ type: z.literal('moved'), lab: LabName, url: z.string().max(2048), ref: Ref }),
  z.object({ type: z.literal('labs-changed') }),
  z.object({ type: z.literal('answered'), step: z.int().min(0), value: z.number(), ref: Ref }),
  z.object({
    type: z.literal('verdict'),
    challenge: z.string(),
    accepted: z.literal(true),
    faults: z.int().min(0),
    at: z.number().min(0),
    rank: z.int().min(1),
    ref: Ref,
  }),
  z.object({
    type: z.literal('error'),
    code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    ref: Ref,
    details: z.array(z.string()).max(10).optional(),
  }),
]);

type Parsed = z.infer<typeof ServerFrameSchema>;
// Every frame type of the code is in the schema and the other way round.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameTypes: Same<Parsed['type'], ServerFrame['type']> = true;
void _sameTypes;
