// A trace file read for replay: checked line by line, then everything the page derives once per
// file (its processes and config, the checkpoint index, each message's fate, the elections, how
// long a drop lingers). Pure: text in, a loaded trace or the reason it cannot be replayed out.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { LabConfig } from '@shared/protocol/lab-config.ts';
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import {
  parseTraceFile,
  type ParsedTrace,
  type TraceProblem,
} from '@shared/protocol/trace-file.ts';
import { replayIndex, stateAt, type ReplayIndex } from '@shared/analysis/replay.ts';
import { replayElections, type ReplayElection } from './replay-elections.ts';
import {
  messageFates,
  replayConfig,
  replaySnapshot,
  traceMeta,
  type MessageOutcome,
  type TraceMeta,
} from './replay-view.ts';

export interface LoadedTrace {
  name: string;
  trace: ParsedTrace;
  meta: TraceMeta;
  config: LabConfig;
  index: ReplayIndex;
  fates: Map<number, MessageOutcome>;
  elections: ReplayElection[];
  known: Map<ProcessId, Pick<ProcessInfo, 'name' | 'kind'>>;
  /** How long a drop's cross stays on the ring, in trace ms. */
  linger: number;
}

export type TraceRead =
  { ok: true; loaded: LoadedTrace } | { ok: false; error: string; problems: TraceProblem[] };

/** The lab the trace came from, when it came from a lab on this relay: its config and names. */
export interface TraceLab {
  config: LabConfig;
  processes: ProcessInfo[];
}

export function readTrace(text: string, name: string, lab: TraceLab | null = null): TraceRead {
  const parsed = parseTraceFile(text);
  if (!parsed.ok) {
    const n = parsed.problems.length;
    return {
      ok: false,
      problems: parsed.problems,
      error: `“${name}” is not a trace this dashboard can replay: ${n}${n >= 20 ? '+' : ''} line${n === 1 ? '' : 's'} failed the check.`,
    };
  }
  const trace = parsed.trace;
  const refuse = (error: string): TraceRead => ({ ok: false, error, problems: [] });
  if (trace.events.length === 0)
    return refuse(`“${name}” holds no trace events${trace.header ? ' (only a header)' : ''}.`);
  const meta = traceMeta(trace, lab?.config ?? null);
  if (meta.ids.length === 0) return refuse(`“${name}” names no processes: nothing to draw.`);
  const config = replayConfig(meta, lab?.config ?? null);
  const known = new Map((lab?.processes ?? []).map((p) => [p.id, { name: p.name, kind: p.kind }]));
  const index = replayIndex(trace, 500);
  const initial = replaySnapshot(stateAt(trace, 0, index), config, meta.source, known);
  const fates = messageFates(trace.events);
  const elections = replayElections(trace.events, initial);
  const loaded = { name, trace, meta, config, index, fates, elections, known };
  return { ok: true, loaded: { ...loaded, linger: lingerOf(trace, fates) } };
}

/** Drops stay visible for twice the mean delivery time (at least 20 ms of trace time). */
export function lingerOf(trace: ParsedTrace, fates: ReadonlyMap<number, MessageOutcome>): number {
  let sum = 0;
  let n = 0;
  for (const e of trace.events) {
    if (e.kind !== 'send' || n >= 2000) continue;
    const f = fates.get(e.msg);
    if (f && !f.dropped) {
      sum += f.at - e.t;
      n++;
    }
  }
  return Math.max(20, n ? (2 * sum) / n : 200);
}
