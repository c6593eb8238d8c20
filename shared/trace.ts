// The trace format shared by the relay, the simulator, replay and the dashboard (versioned:
// docs/PROTOCOL.md describes it). Maelstrom's lesson: journal every send and receive, and draw
// every diagram from the journal.
import type { Message, ProcessId, Report } from './algorithm.ts';

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
    | { kind: 'drop'; msg: number; from: ProcessId; to: ProcessId; type: string; reason: DropReason }
    | { kind: 'duplicate'; msg: number; of: number; from: ProcessId; to: ProcessId; type: string }
    | { kind: 'timer'; node: ProcessId; name: string }
    | { kind: 'elect'; node: ProcessId }
    | { kind: 'crash' | 'recover' | 'join' | 'leave'; node: ProcessId }
    | { kind: 'report'; node: ProcessId; report: Report }
    | { kind: 'partition'; groups: ProcessId[][] | null }
    /** The instructor paused, resumed, reset or reconfigured the lab, or changed its fabric. */
    | { kind: 'control'; action: 'pause' | 'resume' | 'reset' | 'reconfigure' | 'fabric' }
    | { kind: 'note'; text: string }
  );

export type TraceKind = TraceEvent['kind'];
