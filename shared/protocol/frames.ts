// The wire protocol: one schema per frame a client may send, the frames the relay sends back,
// and the socket.io event maps. Raw WebSocket (`/ws`) carries the same frames as JSON text;
// socket.io carries them as the argument of a single `frame` event. docs/PROTOCOL.md documents it.
import { z } from 'zod';
import type { Message, ProcessId, Report } from '../algorithms/algorithm.ts';
import type { CheckerSummary } from './finding.ts';
import type { ErrorFrame } from './errors.ts';
import { AlgorithmNameSchema, DetectorSchema, LabName, ProcessIdSchema, TimingSchema, type Fabric, type LabConfig } from './lab-config.ts';
import type { TraceEvent } from './trace.ts';

export const PROTOCOL_VERSION = 1;
/** Largest frame the relay accepts, in bytes of JSON text. */
export const MAX_FRAME_BYTES = 16 * 1024;

const Ref = z.union([z.string().max(64), z.int()]).optional();

export const ReportSchema = z
  .object({
    role: z.string().min(1).max(32),
    coordinator: ProcessIdSchema.nullable(),
    electing: z.boolean(),
    activeList: z.array(ProcessIdSchema).max(5000).optional(),
    successor: ProcessIdSchema.nullable().optional(),
    term: z.int().min(0).optional(),
    detail: z.record(z.string().max(32), z.union([z.number(), z.string().max(64), z.boolean(), z.null()])).optional(),
  })
  .strict();

/** An algorithm message: any JSON object with a short string `type`. The relay does not read it further. */
export const MessageSchema = z.looseObject({ type: z.string().min(1).max(32) });

export const JoinFrame = z
  .object({
    type: z.literal('join'),
    lab: LabName,
    /** The id to claim; absent: the next free id. */
    id: ProcessIdSchema.optional(),
    name: z.string().max(40).optional(),
    /** The resume token from an earlier `joined`: reclaims the same id after a reconnect. */
    resume: z.string().max(128).optional(),
    kind: z.enum(['human', 'bot', 'external']).optional(),
    ref: Ref,
  })
  .strict();

export const SendFrame = z.object({ type: z.literal('send'), to: ProcessIdSchema, message: MessageSchema, ref: Ref }).strict();
export const ReportFrame = z.object({ type: z.literal('report'), report: ReportSchema, ref: Ref }).strict();
export const LeaveFrame = z.object({ type: z.literal('leave'), ref: Ref }).strict();
export const ObserveFrame = z.object({ type: z.literal('observe'), lab: LabName, ref: Ref }).strict();
export const UnobserveFrame = z.object({ type: z.literal('unobserve'), lab: LabName, ref: Ref }).strict();
export const PingFrame = z.object({ type: z.literal('ping'), ref: Ref }).strict();

export const ClientFrameSchema = z.discriminatedUnion('type', [JoinFrame, SendFrame, ReportFrame, LeaveFrame, ObserveFrame, UnobserveFrame, PingFrame]);
export type ClientFrame = z.infer<typeof ClientFrameSchema>;
export const CLIENT_FRAME_TYPES = ['join', 'send', 'report', 'leave', 'observe', 'unobserve', 'ping'] as const;

/** What a process needs to run its algorithm; timing is already scaled by the lab's time scale. */
export const ProcessConfigSchema = z.object({
  algorithm: AlgorithmNameSchema,
  ids: z.array(ProcessIdSchema),
  ring: z.array(ProcessIdSchema),
  timing: TimingSchema,
  detector: DetectorSchema,
  options: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
  seed: z.int(),
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
  outcome: 'delivered' | 'dropped';
  /** Why it was dropped: 'manual' when asked to, or the receiver's state (crashed, gone...). */
  reason?: string;
}

/** GET /api/labs/:lab/stats. */
export interface LabStats {
  /** ms since the lab started. */
  now: number;
  messages: { sent: number; delivered: number; dropped: number; duplicated: number; byType: Record<string, number> };
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
}

export type ServerFrame =
  | { type: 'joined'; protocol: typeof PROTOCOL_VERSION; lab: string; id: ProcessId; resume: string; config: ProcessConfig; status: 'up' | 'crashed'; ref?: string | number }
  | { type: 'deliver'; from: ProcessId; msg: number; message: Message }
  /** The instructor crashed this process: stop the algorithm, drop its state and timers. */
  | { type: 'crashed' }
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
  | { type: 'fabric'; lab: string; fabric: Fabric }
  | ErrorFrame;

/** socket.io event maps: everything travels in one `frame` event each way. */
export interface ServerToClientEvents {
  frame: (frame: ServerFrame) => void;
}
export interface ClientToServerEvents {
  frame: (frame: unknown) => void;
}
