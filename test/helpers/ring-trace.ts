// Trace rendering and counting for the ring scenario tests: one line per event, so a run is
// reviewed as a diff (etcd raft's testdata style), and message tallies taken from the trace.
import type { Message, ProcessId } from '@shared/algorithms/algorithm.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';

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

export function render(trace: TraceEvent[]): string {
  const messages = new Map<number, Message>();
  const line = (e: TraceEvent): string => {
    switch (e.kind) {
      case 'send':
        messages.set(e.msg, e.message);
        return `send     ${e.from} -> ${e.to}  ${describeMessage(e.message)}`;
      case 'deliver':
        return `deliver  ${e.from} -> ${e.to}  ${describeMessage(messages.get(e.msg) ?? { type: e.type })}`;
      case 'drop':
        return `drop     ${e.from} -> ${e.to}  ${describeMessage(messages.get(e.msg) ?? { type: e.type })} (${e.reason})`;
      case 'timer':
        return `timer    ${e.node}  ${e.name}`;
      case 'report': {
        const r = e.report;
        const list = r.activeList ? ` list=${JSON.stringify(r.activeList)}` : '';
        const chosen =
          r.detail?.['chosen'] === undefined ? '' : ` chosen=${String(r.detail['chosen'])}`;
        return `report   ${e.node}  ${r.role} coordinator=${String(r.coordinator)}${list} successor=${String(r.successor)}${chosen}`;
      }
      case 'partition':
        return `partition ${JSON.stringify(e.groups)}`;
      case 'note':
        return `note     ${e.text}`;
      case 'duplicate':
        return `duplicate ${e.from} -> ${e.to}  ${e.type}`;
      case 'control':
        return `control  ${e.action}`;
      case 'finding':
        return `finding  ${e.finding.kind} ${e.finding.detail}`;
      case 'fault':
        return `fault    ${e.node} ${e.event}`;
      case 'owner':
        return `owner    ${e.relay} epoch ${e.epoch}`;
      default:
        return `${e.kind.padEnd(8)} ${e.node}`;
    }
  };
  return trace.map((e) => `t=${String(e.t).padStart(5)}  ${line(e)}`).join('\n') + '\n';
}

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
