// Trace events as text, written once for every reader: `describeEvent` in words (replay's
// timeline and event list, the ShiViz export), `describeInput` from the process's side (what it
// was handling, in the grader's divergence text) and `renderTrace`, one aligned line per event
// with every field that matters (the scenario scripts' and ring tests' traces, reviewed as diffs).
import type { Message, Report } from '../algorithms/algorithm.ts';
import type { TraceEvent } from './trace.ts';

/** An event in words: `3 sends ELECTION to 5 (#12)`. `ids: false` leaves the message ids out. */
export function describeEvent(e: TraceEvent, opts: { ids?: boolean } = {}): string {
  const id = (text: string) => (opts.ids === false ? '' : ` (${text})`);
  switch (e.kind) {
    case 'send':
      return `${e.from} sends ${e.type} to ${e.to}${id(`#${e.msg}`)}`;
    case 'deliver':
      return `${e.to} receives ${e.type} from ${e.from}${id(`#${e.msg}`)}`;
    case 'drop':
      return `${e.type} ${e.from} → ${e.to} dropped: ${e.reason}${id(`#${e.msg}`)}`;
    case 'duplicate':
      return `${e.type} ${e.from} → ${e.to} duplicated${id(`#${e.msg} of #${e.of}`)}`;
    case 'timer':
      return `${e.node}: timer ${e.name} fires`;
    case 'elect':
      return `${e.node} is asked to start an election`;
    case 'crash':
      return `${e.node} crashes`;
    case 'recover':
      return `${e.node} recovers`;
    case 'pause':
      return `${e.node} is paused (SIGSTOP)`;
    case 'resume':
      return `${e.node} resumes (SIGCONT)`;
    case 'join':
      return `${e.node} joins`;
    case 'leave':
      return `${e.node} leaves`;
    case 'report': {
      const r = e.report;
      const term = r.term === undefined ? '' : `, term ${r.term}`;
      return `${e.node} is ${r.role}, coordinator ${r.coordinator ?? 'none'}${r.electing ? ', electing' : ''}${term}`;
    }
    case 'partition':
      return e.groups
        ? `partition: ${e.groups.map((g) => `{${g.join(', ')}}`).join(' | ')}`
        : 'partition healed';
    case 'control':
      return `instructor: ${e.action}`;
    case 'note':
      return `note: ${e.text}`;
    case 'fault':
      return `${e.node}'s algorithm threw on ${e.event} (${e.error}); ${e.restarted ? 'restarted from scratch' : 'stopped'}`;
    case 'owner':
      return `relay ${e.relay} owns the lab (epoch ${e.epoch}${e.previous ? `, after ${e.previous}` : ''})`;
    case 'finding':
      return `checker (${e.finding.kind}): ${e.finding.detail}`;
    case 'deviation':
      return `${e.node} departs from the reference (${e.rule}): ${e.text}`;
  }
}

/**
 * What a process was handling, from its side: `ELECTION from 4`, `timer ack:1`, `elect`, `crash`,
 * `recover`; null for an event that is not an input to one process.
 */
export function describeInput(e: TraceEvent): string | null {
  switch (e.kind) {
    case 'deliver':
      return `${e.type} from ${e.from}`;
    case 'timer':
      return `timer ${e.name}`;
    case 'elect':
    case 'crash':
    case 'recover':
      return e.kind;
    default:
      return null;
  }
}

/** How `renderTrace` writes a message body; the default is `TYPE field=value ...`. */
type MessageText = (m: Message) => string;

/**
 * One line per event, every field that matters to a reader: the reviewable form of a run. A
 * delivery or drop carries only its type, so the body is the one its send carried.
 */
export function renderTrace(
  trace: readonly TraceEvent[],
  opts: { message?: MessageText } = {},
): string {
  const text = opts.message ?? messageText;
  const bodies = new Map<number, Message>();
  const body = (msg: number, type: string) => text(bodies.get(msg) ?? { type });
  const line = (e: TraceEvent): string => {
    switch (e.kind) {
      case 'send':
        bodies.set(e.msg, e.message);
        return `send      ${e.from} -> ${e.to}  ${text(e.message)}  #${e.msg}`;
      case 'duplicate':
        bodies.set(e.msg, bodies.get(e.of) ?? { type: e.type });
        return `duplicate ${e.from} -> ${e.to}  ${e.type}  #${e.msg} of #${e.of}`;
      case 'deliver':
        return `deliver   ${e.from} -> ${e.to}  ${body(e.msg, e.type)}  #${e.msg}`;
      case 'drop':
        return `drop      ${e.from} -> ${e.to}  ${body(e.msg, e.type)}  #${e.msg} (${e.reason})`;
      case 'timer':
        return `timer     ${e.node}  ${e.name}`;
      case 'report':
        return `report    ${e.node}  ${reportText(e.report)}`;
      case 'partition':
        return e.groups ? `partition ${e.groups.map((g) => g.join(',')).join(' | ')}` : 'heal';
      case 'control':
        return `control   ${e.action}${e.restart ? ' restart' : ''}`;
      case 'note':
        return `note      ${e.text}`;
      case 'finding':
        return `finding   ${e.finding.kind} ${e.finding.detail}`;
      case 'fault':
        return `fault     ${e.node}  ${e.event}`;
      case 'owner':
        return `owner     ${e.relay}  epoch ${e.epoch}`;
      default:
        return `${e.kind.padEnd(9)} ${e.node}`;
    }
  };
  // Times to the microsecond: random delays and timeouts are not whole milliseconds.
  return (
    trace
      .map((e) => `t=${String(Math.round(e.t * 1000) / 1000).padStart(9)}  ${line(e)}`)
      .join('\n') + '\n'
  );
}

function value(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}

function messageText(m: Message): string {
  const rest = Object.entries(m).filter(([k]) => k !== 'type');
  return [m.type, ...rest.map(([k, v]) => `${k}=${value(v)}`)].join(' ');
}

function reportText(r: Report): string {
  const parts = [r.role, `coordinator=${value(r.coordinator)}`];
  if (r.electing) parts.push('electing');
  if (r.term !== undefined) parts.push(`term=${r.term}`);
  if (r.activeList !== undefined) parts.push(`list=${value(r.activeList)}`);
  if (r.successor !== undefined) parts.push(`successor=${value(r.successor)}`);
  for (const [k, v] of Object.entries(r.detail ?? {})) parts.push(`${k}=${value(v)}`);
  return parts.join(' ');
}
