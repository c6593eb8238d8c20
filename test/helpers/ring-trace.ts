// The ring scenario tests' trace rendering (the one trace format, with the documents' message
// notation), so a run is reviewed as a diff (etcd raft's testdata style), and message tallies
// taken from the trace.
import type { Message, ProcessId } from '@shared/algorithms/algorithm.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { renderTrace } from '@shared/protocol/trace-format.ts';

/** The message as the documents write it: ELECTION [5,6], COORDINATOR 6, Elect(2), Elected(3). */
export function describeMessage(m: Message): string {
  switch (m.type) {
    case 'ELECTION':
      return `ELECTION ${JSON.stringify(m.list)} #${String(m.eid).split('-')[0]}`;
    case 'COORDINATOR':
      return `COORDINATOR ${String(m.coordinator)} #${String(m.eid).split('-')[0]} origin=${String(m.origin)}`;
    case 'ELECT':
      return `Elect(${String(m.id)})`;
    case 'ELECTED':
      return `Elected(${String(m.coordinator)})`;
    case 'ACK':
      return `ACK ${String(m.seq)}`;
    default:
      return m.type;
  }
}

/** The run in the one trace format (shared/protocol/trace-format.ts), messages in the documents' notation. */
export const render = (trace: TraceEvent[]): string =>
  renderTrace(trace, { message: describeMessage });

type Send = Extract<TraceEvent, { kind: 'send' }>;
type Deliver = Extract<TraceEvent, { kind: 'deliver' }>;

export const sendsOf = (trace: TraceEvent[]): Send[] =>
  trace.filter((e): e is Send => e.kind === 'send');
export const deliveriesOf = (trace: TraceEvent[]): Deliver[] =>
  trace.filter((e): e is Deliver => e.kind === 'deliver');

/** Sends that never arrived because the receiver had crashed: the hops a skip wasted. */
export function sendsToCrashed(trace: TraceEvent[], types: readonly string[]): number {
  return trace.filter(
    (e) => e.kind === 'drop' && e.reason === 'receiver-crashed' && types.includes(e.type),
  ).length;
}

/** Delivered messages of these types: the hops that carried the election between live processes. */
export function hops(trace: TraceEvent[], types: readonly string[]): number {
  return deliveriesOf(trace).filter((e) => types.includes(e.type)).length;
}

/** The active lists one process reported, in order, without repeats. */
export function activeListsOf(trace: TraceEvent[], node: ProcessId): ProcessId[][] {
  const lists: ProcessId[][] = [];
  for (const e of trace) {
    if (e.kind !== 'report' || e.node !== node || !e.report.activeList) continue;
    const last = lists[lists.length - 1];
    if (!last || JSON.stringify(last) !== JSON.stringify(e.report.activeList))
      lists.push(e.report.activeList);
  }
  return lists;
}

export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
