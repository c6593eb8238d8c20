// The wire protocol: one schema per frame a client may send, the frames the relay sends back,
// and the socket.io event maps. Raw WebSocket (`/ws`) carries the same frames as JSON text;
// socket.io carries them as the argument of a single `frame` event. docs/PROTOCOL.md documents it.
import { z } from 'zod';
import type { Message, ProcessId, Report } from '../algorithms/algorithm.ts';
import type { CheckerSummary } from './finding.ts';
import type { ErrorFrame } from './errors.ts';
import {
  AlgorithmNameSchema,
  DetectorSchema,
  LabName,
  ProcessIdSchema,
  TimingSchema,
  WorkloadSchema,
  type FabricConfig,
  type LabConfig,
  type Play,
} from './lab-config.ts';
import { DisplayNameSchema } from './display-name.ts';
import { DeviationSchema, MAX_DEVIATIONS_PER_FRAME, MAX_HAND_ACTION_CHARS } from './class-play.ts';
import {
  GradeSummarySchema,
  MAX_GRADE_TRACE_CHARS,
  ProcessModeSchema,
  type GradeSummary,
  type ProcessMode,
} from './grade-summary.ts';
import { MessageSchema, ReportSchema, type Same } from './payloads.ts';
import { TraceEventSchema, type TraceEvent } from './trace.ts';
import { MAX_ANSWER } from '../lessons/lesson-schema.ts';
import { SubmissionSchema, SubmitSessionSchema } from '../challenges/challenge-schema.ts';

/** Largest frame the relay accepts, in bytes of JSON text. */
export const MAX_FRAME_BYTES = 16 * 1024;

const Ref = z.union([z.string().max(64), z.int()]).optional();

const JoinFrame = z
  .object({
    type: z.literal('join'),
    lab: LabName,
    /** The id to claim; absent: the next free id. */
    id: ProcessIdSchema.optional(),
    /** Her name: NFC, at most 40 characters, no control, bidi-control or zero-width character (display-name.ts). */
    name: DisplayNameSchema.optional(),
    /** The resume token from an earlier `joined`: reclaims the same id after a reconnect. */
    resume: z.string().max(128).optional(),
    kind: z.enum(['human', 'bot', 'external']).optional(),
    ref: Ref,
  })
  .strict();

const SendFrame = z
  .object({ type: z.literal('send'), to: ProcessIdSchema, message: MessageSchema, ref: Ref })
  .strict();
const ReportFrame = z
  .object({ type: z.literal('report'), report: ReportSchema, ref: Ref })
  .strict();
const LeaveFrame = z.object({ type: z.literal('leave'), ref: Ref }).strict();
const ObserveFrame = z.object({ type: z.literal('observe'), lab: LabName, ref: Ref }).strict();
const UnobserveFrame = z.object({ type: z.literal('unobserve'), lab: LabName, ref: Ref }).strict();
const PingFrame = z.object({ type: z.literal('ping'), ref: Ref }).strict();
/** The process's algorithm threw and its host restarted it (or gave up): recorded as a `fault` trace event. */
const FaultFrame = z
  .object({
    type: z.literal('fault'),
    error: z.string().max(200),
    event: z.string().max(64),
    restarted: z.boolean(),
    ref: Ref,
  })
  .strict();
/** What the tab runs now: the lab's algorithm, her hand, or her own module (docs/STUDENT_MODULES.md). */
const ModeFrame = z.object({ type: z.literal('mode'), mode: ProcessModeSchema, ref: Ref }).strict();
/** Her latest grade, and the failing run as a trace file (JSON Lines) when it fits. */
const GradeFrame = z
  .object({
    type: z.literal('grade'),
    summary: GradeSummarySchema,
    trace: z.string().max(MAX_GRADE_TRACE_CHARS).optional(),
    ref: Ref,
  })
  .strict();
/** Hand mode: her click (`action`, its label; null: a deadline she let pass) and the coach's deviations from the reference. */
const HandFrame = z
  .object({
    type: z.literal('hand'),
    action: z.string().min(1).max(MAX_HAND_ACTION_CHARS).nullable(),
    deviations: z.array(DeviationSchema).max(MAX_DEVIATIONS_PER_FRAME),
    ref: Ref,
  })
  .strict();
/** Be told `labs-changed` whenever the relay's (or the cluster's) lab list changes. */
/** A student's answer to the lab's open lesson question (docs/RUN_A_CLASS.md, "Lessons"); her latest one counts. */
const AnswerFrame = z
  .object({
    type: z.literal('answer'),
    step: z.int().min(0).max(19),
    value: z.number().min(-MAX_ANSWER).max(MAX_ANSWER),
    ref: Ref,
  })
  .strict();
/**
 * A student's "break it" submission (docs/RUN_A_CLASS.md, "Challenges"): no join needed, her
 * private lab runs in her browser; the relay re-runs it and answers `verdict` or an error.
 */
const SubmitFrame = z
  .object({
    type: z.literal('submit'),
    lab: LabName,
    name: DisplayNameSchema.pipe(z.string().min(1)),
    submission: SubmissionSchema,
    /** Her lab session (process id and resume token), when she has one: her name is then verified. */
    session: SubmitSessionSchema.optional(),
    ref: Ref,
  })
  .strict();
const ObserveLabsFrame = z.object({ type: z.literal('observe-labs'), ref: Ref }).strict();

export const ClientFrameSchema = z.discriminatedUnion('type', [
  JoinFrame,
  SendFrame,
  ReportFrame,
  LeaveFrame,
  ObserveFrame,
  UnobserveFrame,
  PingFrame,
  ObserveLabsFrame,
  FaultFrame,
  ModeFrame,
  GradeFrame,
  HandFrame,
  AnswerFrame,
  SubmitFrame,
]);
export type ClientFrame = z.infer<typeof ClientFrameSchema>;
export const CLIENT_FRAME_TYPES = [
  'join',
  'send',
  'report',
  'leave',
  'observe',
  'unobserve',
  'ping',
  'observe-labs',
  'fault',
  'mode',
  'grade',
  'hand',
  'answer',
  'submit',
] as const;

/** What a process needs to run its algorithm; timing is already scaled by the lab's time scale. */
/** The wire protocol's version: in every `joined` frame and in the JSON Schema (docs/schema.json). */
export const PROTOCOL_VERSION = 1;

export const ProcessConfigSchema = z.object({
  algorithm: AlgorithmNameSchema,
  ids: z.array(ProcessIdSchema),
  ring: z.array(ProcessIdSchema),
  timing: TimingSchema,
  detector: DetectorSchema,
  options: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
  seed: z.int(),
  /** The lab's work schedule (docs/WORK_SCHEDULE.md); absent: the election alone. */
  workload: WorkloadSchema.optional(),
  /**
   * Start agreeing on this coordinator, holding no election (a restart of the job keeps the
   * lab's coordinator: the simulator's starting point); absent: elect on start, as always.
   */
  coordinator: ProcessIdSchema.optional(),
});
export type ProcessConfig = z.infer<typeof ProcessConfigSchema>;

export type ProcessStatus = 'up' | 'crashed' | 'absent';
export type ProcessKind = 'human' | 'bot' | 'external';

export interface ProcessInfo {
  id: ProcessId;
  name: string | null;
  status: ProcessStatus;
  kind: ProcessKind | null;
  transport: 'socketio' | 'ws' | 'server' | null;
  report: Report | null;
  /** Partition group index, or null when the lab is not partitioned. */
  group: number | null;
  /** What its tab runs (absent: never said; a bot runs the lab's algorithm). */
  mode?: ProcessMode;
  /**
   * Her latest grade as her tab reported it (a `grade` frame): a claim, never re-run by the relay,
   * shown as "reported by the student's tab". `trace`: the failing run can be fetched (GET …/grade-trace).
   */
  claimedGrade?: GradeSummary & { claimed: true; at: number; trace: boolean };
  /** Wall-clock ms (the relay's Date.now()) of this id's last join or leave; null if it never joined. */
  since?: number | null;
  /** Hand mode: what the relay saw and its own coach found, and what her tab claims (absent: never played by hand). */
  hand?: HandFigures;
  /** Checker findings that named this process (split brain, disagreement...), since the lab started. */
  findings?: number;
  /** Paused by the instructor (SIGSTOP); absent when not. */
  paused?: true;
  /** While paused: messages that came due for it and wait for its resume. */
  held?: number;
}

/**
 * A hand-played student's figures. `actions`, `sends` and `deviations` are the relay's own: her
 * moves and messages as it received them, and the marks of the coach it runs on what it delivered
 * to her and what she sent (server/lab/hand-audit.ts). `claimed` is what her tab reported.
 */
export interface HandFigures {
  /** Her moves (sends other than the shared detector's, changes of belief); those within 20 ms are one. */
  actions: number;
  /** Messages she sent while playing by hand (the detector's included). */
  sends: number;
  /** Deviations from the reference found by the relay's coach. */
  deviations: number;
  /** What her tab reported (`hand` frames): its click count and its coach's marks. Not verified. */
  claimed: { clicks: number; deviations: number };
  /** While she plays by hand: whether she holds the class up, by the relay's own coach and clock. */
  progress?: HandProgress;
}

/** Who holds the class up (issue 24), measured by the relay (server/lab/hand-audit.ts), not her tab. */
export interface HandProgress {
  /** Answers the relay's coach says the reference owes and she has not sent. */
  open: number;
  /** ms the oldest of them has waited since the reference would have sent it; null: none. */
  oldestOpenMs: number | null;
  /** ms her reports have said electing, on the relay's clock; null: not electing. */
  electingMs: number | null;
  /** Either of the two past 2 x UB. */
  stuck: boolean;
}

export interface LabSnapshot {
  config: LabConfig;
  processes: ProcessInfo[];
  paused: boolean;
  inFlight: number;
  /** ms since the lab started, on the relay's clock. */
  now: number;
  partition: ProcessId[][] | null;
  /** Seq of the last trace event this snapshot reflects; the stream continues after it. */
  seq?: number;
  /** The lab's join code (six letters, shared/protocol/join-code.ts). */
  joinCode?: string;
}

/** A message held by the relay (GET /api/labs/:lab/inflight), soonest first. */
export interface InFlightInfo {
  msg: number;
  from: ProcessId;
  to: ProcessId;
  type: string;
  message: Message;
  /** ms until it is due on the lab's fabric clock (which stands still while paused). */
  dueIn: number;
  /** Set when this copy is the fabric's duplicate of message `of`. */
  of?: number;
}

/** POST /api/labs/:lab/step answer: what happened to the message taken off the queue. */
export interface StepResult {
  msg: number;
  from: ProcessId;
  to: ProcessId;
  type: string;
  /** 'held': its receiver is paused and gets it at resume. */
  outcome: 'delivered' | 'held' | 'dropped';
  /** Why it was dropped: 'manual' when asked to, or the receiver's state (crashed, gone...). */
  reason?: string;
}

/** GET /api/labs/:lab/stats. */
export interface LabStats {
  /** ms since the lab started. */
  now: number;
  messages: {
    sent: number;
    delivered: number;
    dropped: number;
    duplicated: number;
    byType: Record<string, number>;
  };
  drops: Record<string, number>;
  /** The election in progress or the last one: started when a process began electing (or the instructor asked). */
  election: {
    active: boolean;
    startedAt: number | null;
    endedAt: number | null;
    /** ms from start to the last process settling; null while running or before any election. */
    duration: number | null;
    /** Messages by type since that election started. */
    byType: Record<string, number>;
    messages: number;
  };
  /** Directed links that carried traffic: counts since the lab started or was reset. */
  links: { from: ProcessId; to: ProcessId; sent: number; delivered: number; dropped: number }[];
  /** Links left out of `links` (the busiest are kept; `?links=<n>` raises the limit). */
  linksOmitted?: number;
  /** Believed coordinator -> how many live processes believe it (key "none" for null). */
  coordinators: Record<string, number>;
  processes: { up: number; crashed: number; absent: number };
  /** Bad input the relay refused for this lab's connections and overall. */
  relay: Record<string, number>;
  /** The live checker's findings and state (shared/analysis/checker.ts); the relay always fills it. */
  checker?: CheckerSummary;
  /**
   * The lab's trace file: its size, whether it went lean (message events counted, not written),
   * is behind its disk (`waiting` bytes; new messages refused) or full (no event written), and the
   * events left out by kind.
   */
  trace?: {
    bytes: number;
    lean: boolean;
    unrecorded: number;
    behind?: boolean;
    full?: boolean;
    waiting?: number;
    unwritten?: Record<string, number>;
  };
  /** Messages refused before they were recorded, by reason ('address-budget', 'lab-budget', 'trace-behind'). */
  refused?: Record<string, number>;
}

export type ServerFrame =
  | {
      type: 'joined';
      protocol: typeof PROTOCOL_VERSION;
      lab: string;
      id: ProcessId;
      resume: string;
      config: ProcessConfig;
      status: 'up' | 'crashed';
      paused?: true;
      play?: Play;
      ref?: string | number;
    }
  /** The lab's play settings changed (hand mode for students, hints): the tab obeys at once. */
  | { type: 'play'; play: Play }
  | { type: 'deliver'; from: ProcessId; msg: number; message: Message }
  /** The instructor crashed this process: stop the algorithm, drop its state and timers. */
  | { type: 'crashed' }
  /** The instructor paused this process (SIGSTOP): freeze its timers (keeping their time left), handle nothing, send nothing. */
  | { type: 'paused' }
  /** Resumed (SIGCONT): timers run on from where they stopped; the messages that waited follow. */
  | { type: 'resumed' }
  /** Recovered: restart the algorithm from scratch (the documents: a recovered process holds an election). */
  | { type: 'recovered'; config: ProcessConfig }
  /** The lab was reconfigured or reset: restart from scratch with this config. */
  | { type: 'restart'; config: ProcessConfig }
  /** Start an election now (the instructor's "elect"). */
  | { type: 'elect' }
  | { type: 'left' }
  | { type: 'pong'; ref?: string | number }
  | { type: 'snapshot'; lab: string; snapshot: LabSnapshot; ref?: string | number }
  /** Batched trace events for observers (10 to 20 batches a second at most). */
  | { type: 'events'; lab: string; events: TraceEvent[]; skipped: number }
  | { type: 'fabric'; lab: string; fabric: FabricConfig }
  /** The lab lives on another relay of the cluster (like Redis Cluster's MOVED): connect to `url` and repeat. */
  | { type: 'moved'; lab: string; url: string; ref?: string | number }
  /** A lab was created, removed or moved (to `observe-labs` observers): fetch GET /api/labs again. */
  | { type: 'labs-changed' }
  /** Her answer to lesson step `step` is stored (it replaces any earlier one of hers). */
  | { type: 'answered'; step: number; value: number; ref?: string | number }
  /** Her submission reproduced the challenge's target within its budget; `rank` on the board (1: fewest faults). */
  | {
      type: 'verdict';
      challenge: string;
      accepted: true;
      faults: number;
      at: number;
      rank: number;
      ref?: string | number;
    }
  | ErrorFrame;

// The relay writes these two frames by hand on its hot path (server/trace/wire-encode.ts); as schemas a
// test holds that text to them. The assertions keep them and ServerFrame in step.
export const DeliverFrameSchema = z
  .object({
    type: z.literal('deliver'),
    from: ProcessIdSchema,
    msg: z.int().min(0),
    message: MessageSchema,
  })
  .strict();
export const EventsFrameSchema = z
  .object({
    type: z.literal('events'),
    lab: LabName,
    events: z.array(TraceEventSchema),
    skipped: z.int().min(0),
  })
  .strict();
const _fastFramesMatchTypes: Same<
  Omit<z.infer<typeof DeliverFrameSchema>, 'message'>,
  Omit<Extract<ServerFrame, { type: 'deliver' }>, 'message'>
> &
  Same<
    Omit<z.infer<typeof EventsFrameSchema>, 'events'>,
    Omit<Extract<ServerFrame, { type: 'events' }>, 'events'>
  > = true;
void _fastFramesMatchTypes;

/** socket.io event maps: everything travels in one `frame` event each way. */
export interface ServerToClientEvents {
  frame: (frame: ServerFrame) => void;
}
export interface ClientToServerEvents {
  frame: (frame: unknown) => void;
}
