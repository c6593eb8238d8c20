// Replay: the state of a lab at any point of a trace, folded from the events alone (no
// algorithm code runs). Each process's status and last report, the messages in flight and who
// believes whom is coordinator: what the dashboard shows live, rebuilt for a scrub bar.
//
// `stateAt(trace, n)` is the state after the first n events (0: before any). Scrubbing a long
// trace back and forth folds from the nearest checkpoint (`replayIndex`) instead of the start.
import type { ProcessId } from '../algorithms/algorithm.ts';
import type { ParsedTrace } from '../protocol/trace-file.ts';
import type { Finding } from '../protocol/finding.ts';
import type { TraceEvent } from '../protocol/trace.ts';
import {
  createFold,
  foldEvent,
  type FlightView,
  type FoldedProcess,
  type LabFold,
} from './lab-fold.ts';

export interface ReplayState {
  /** How many events have been applied. */
  applied: number;
  /** Time of the last applied event (0 before any). */
  t: number;
  /** Every process seen so far, by ascending id. */
  processes: FoldedProcess[];
  /** Messages sent and neither delivered nor dropped, by message id. */
  inFlight: FlightView[];
  /** Coordinator each up process believes in (null: none or electing), by id. */
  coordinators: Record<ProcessId, ProcessId | null>;
  partition: ProcessId[][] | null;
  /** The checker's (or the explorer's) findings recorded so far, oldest first. */
  findings: Finding[];
  /** Deviations from the reference so far per hand-played process (the coach's `deviation` events). */
  deviations: Record<ProcessId, number>;
}

/** The lab fold (lab-fold.ts) with what replay adds: a count of events and the findings. */
interface Acc {
  applied: number;
  lab: LabFold;
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
  const lab = createFold(upProcess, { flights: true });
  for (const id of trace.header?.ids ?? []) lab.processes.set(id, upProcess(id));
  return { applied: 0, lab, findings: [] };
}

function upProcess(id: ProcessId): FoldedProcess {
  return { id, status: 'up', report: null };
}

function apply(acc: Acc, e: TraceEvent): void {
  acc.applied++;
  if (foldEvent(acc.lab, e) === 'finding' && e.kind === 'finding')
    acc.findings = [...acc.findings, e.finding];
}

function freeze(acc: Acc): ReplayState {
  const { lab } = acc;
  const processes = [...lab.processes.values()].sort((a, b) => a.id - b.id).map((p) => ({ ...p }));
  const coordinators: Record<ProcessId, ProcessId | null> = {};
  for (const p of processes)
    if (p.status === 'up') coordinators[p.id] = p.report?.coordinator ?? null;
  return {
    applied: acc.applied,
    t: lab.t,
    processes,
    inFlight: [...lab.flights!.values()].sort((a, b) => a.msg - b.msg),
    coordinators,
    partition: lab.partition,
    findings: acc.findings,
    deviations: Object.fromEntries(lab.deviations),
  };
}

function thaw(s: ReplayState): Acc {
  const lab = createFold(upProcess, { flights: true });
  lab.t = s.t;
  for (const p of s.processes) lab.processes.set(p.id, { ...p });
  for (const f of s.inFlight) lab.flights!.set(f.msg, f);
  lab.inFlight = s.inFlight.length;
  lab.partition = s.partition;
  for (const [id, n] of Object.entries(s.deviations)) lab.deviations.set(Number(id), n);
  return { applied: s.applied, lab, findings: s.findings };
}
