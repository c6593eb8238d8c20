// Replay: the state of a lab at any point of a trace, folded from the events alone (no
// algorithm code runs). Each process's status and last report, the messages in flight and who
// believes whom is coordinator: what the dashboard shows live, rebuilt for a scrub bar.
//
// `stateAt(trace, n)` is the state after the first n events (0: before any). Scrubbing a long
// trace back and forth folds from the nearest checkpoint (`replayIndex`) instead of the start.
import type { Message, ProcessId, Report } from '../algorithms/algorithm.ts';
import type { ParsedTrace } from '../protocol/trace-file.ts';
import type { Finding } from '../protocol/finding.ts';
import type { TraceEvent } from '../protocol/trace.ts';

/** `absent`: not joined yet (relay traces); `gone`: left the lab. */
export type ProcessStatus = 'up' | 'crashed' | 'gone' | 'absent';

export interface ProcessView {
  id: ProcessId;
  status: ProcessStatus;
  /** The last report since the process (re)started; null before its first and after a crash. */
  report: Report | null;
}

export interface FlightView {
  msg: number;
  from: ProcessId;
  to: ProcessId;
  type: string;
  sentAt: number;
  /** The message body, when the trace carries it (send events do; duplicates point at them). */
  message: Message | null;
}

export interface ReplayState {
  /** How many events have been applied. */
  applied: number;
  /** Time of the last applied event (0 before any). */
  t: number;
  /** Every process seen so far, by ascending id. */
  processes: ProcessView[];
  /** Messages sent and neither delivered nor dropped, by message id. */
  inFlight: FlightView[];
  /** Coordinator each up process believes in (null: none or electing), by id. */
  coordinators: Record<ProcessId, ProcessId | null>;
  partition: ProcessId[][] | null;
  /** The checker's (or the explorer's) findings recorded so far, oldest first. */
  findings: Finding[];
}

interface Acc {
  applied: number;
  t: number;
  procs: Map<ProcessId, ProcessView>;
  flights: Map<number, FlightView>;
  partition: ProcessId[][] | null;
  findings: Finding[];
}

export interface ReplayIndex {
  every: number;
  /** checkpoints[k] is the state after k * every events. */
  checkpoints: ReplayState[];
}

export function stateAt(trace: ParsedTrace, count: number, index?: ReplayIndex): ReplayState {
  const n = Math.max(0, Math.min(Math.floor(count), trace.events.length));
  const k = index ? Math.min(Math.floor(n / index.every), index.checkpoints.length - 1) : -1;
  const acc = k >= 0 ? thaw(index!.checkpoints[k]!) : start(trace);
  for (let i = acc.applied; i < n; i++) apply(acc, trace.events[i]!);
  return freeze(acc);
}

/** The final state: what the run ended with. */
export function finalState(trace: ParsedTrace): ReplayState {
  return stateAt(trace, trace.events.length);
}

/** Checkpoints every `every` events, so `stateAt` never folds more than that many. */
export function replayIndex(trace: ParsedTrace, every = 1000): ReplayIndex {
  const step = Math.max(1, Math.floor(every));
  const acc = start(trace);
  const checkpoints: ReplayState[] = [freeze(acc)];
  for (let i = 0; i < trace.events.length; i++) {
    apply(acc, trace.events[i]!);
    if (acc.applied % step === 0) checkpoints.push(freeze(acc));
  }
  return { every: step, checkpoints };
}

/** The header's processes start up (the simulator starts every id at t = 0); relay traces join. */
function start(trace: ParsedTrace): Acc {
  const procs = new Map<ProcessId, ProcessView>();
  for (const id of trace.header?.ids ?? []) procs.set(id, { id, status: 'up', report: null });
  return { applied: 0, t: 0, procs, flights: new Map(), partition: null, findings: [] };
}

function proc(acc: Acc, id: ProcessId): ProcessView {
  let p = acc.procs.get(id);
  if (!p) {
    // First seen without a join: it was there before the trace began.
    p = { id, status: 'up', report: null };
    acc.procs.set(id, p);
  }
  return p;
}

function apply(acc: Acc, e: TraceEvent): void {
  acc.applied++;
  acc.t = e.t;
  switch (e.kind) {
    case 'send':
      proc(acc, e.from);
      acc.flights.set(e.msg, { msg: e.msg, from: e.from, to: e.to, type: e.type, sentAt: e.t, message: e.message });
      break;
    case 'duplicate': {
      const of = acc.flights.get(e.of);
      acc.flights.set(e.msg, { msg: e.msg, from: e.from, to: e.to, type: e.type, sentAt: e.t, message: of?.message ?? null });
      break;
    }
    case 'deliver':
    case 'drop':
      acc.flights.delete(e.msg);
      break;
    case 'report':
      setProc(acc, e.node, { status: 'up', report: e.report });
      break;
    case 'crash':
      setProc(acc, e.node, { status: 'crashed', report: null });
      break;
    case 'leave':
      setProc(acc, e.node, { status: 'gone', report: null });
      break;
    case 'recover':
    case 'join':
      setProc(acc, e.node, { status: 'up', report: null });
      break;
    case 'fault':
      // The host restarted the process from scratch: it holds no beliefs until it reports again.
      setProc(acc, e.node, { status: 'up', report: null });
      break;
    case 'timer':
    case 'elect':
      proc(acc, e.node);
      break;
    case 'partition':
      acc.partition = e.groups;
      break;
    case 'finding':
      acc.findings = [...acc.findings, e.finding];
      break;
    case 'control':
    case 'note':
    case 'owner':
      break;
    default: {
      // A new event kind must be handled here (or listed above as changing nothing).
      const unhandled: never = e;
      void unhandled;
    }
  }
}

function setProc(acc: Acc, id: ProcessId, patch: Omit<ProcessView, 'id'>): void {
  acc.procs.set(id, { id, ...patch });
}

function freeze(acc: Acc): ReplayState {
  const processes = [...acc.procs.values()].sort((a, b) => a.id - b.id).map((p) => ({ ...p }));
  const coordinators: Record<ProcessId, ProcessId | null> = {};
  for (const p of processes) if (p.status === 'up') coordinators[p.id] = p.report?.coordinator ?? null;
  return {
    applied: acc.applied,
    t: acc.t,
    processes,
    inFlight: [...acc.flights.values()].sort((a, b) => a.msg - b.msg),
    coordinators,
    partition: acc.partition,
    findings: acc.findings,
  };
}

function thaw(s: ReplayState): Acc {
  return {
    applied: s.applied,
    t: s.t,
    procs: new Map(s.processes.map((p) => [p.id, { ...p }])),
    flights: new Map(s.inFlight.map((f) => [f.msg, f])),
    partition: s.partition,
    findings: s.findings,
  };
}
