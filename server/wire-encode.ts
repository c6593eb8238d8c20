// The relay's hand-written JSON, all in one place: the text it writes for every message (the
// trace lines of a send and a deliver, the deliver frame, an event's clocks) and for every
// observer batch, without encoding a payload twice or building an object only to stringify it.
// Each function writes exactly what JSON.stringify would write for the object of its schema,
// field order included: the trace event schema (shared/protocol/trace.ts) and the frame schemas
// `DeliverFrameSchema` and `EventsFrameSchema` (shared/protocol/frames.ts).
// test/wire-encode.test.ts holds every function to that over generated inputs; anything not on
// the hot path is written with JSON.stringify.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { DistributiveOmit } from '@shared/sim/event-queue.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';

/** An event's fields without its clocks, which `traceLine` appends. */
type UnstampedEvent = DistributiveOmit<TraceEvent, 'lamport' | 'vector'>;

/**
 * A trace event's line: the event as JSON, its clocks (`clocksText`) last, as
 * `{...event, lamport, vector}` would put them.
 */
export function traceLine(event: UnstampedEvent, clocks: string | null): string {
  const text = JSON.stringify(event);
  return clocks === null ? text : `${text.slice(0, -1)},${clocks}}`;
}

/**
 * The line of a `send` or `deliver` event: `messageJson` is the send's payload already encoded
 * (null for a deliver, which carries none), `clocks` from `clocksText`.
 */
export function messageLine(seq: number, t: number, kind: 'send' | 'deliver', msg: number, from: ProcessId, to: ProcessId, type: string, messageJson: string | null, clocks: string): string {
  const message = messageJson === null ? '' : `"message":${messageJson},`;
  return `{"seq":${seq},"t":${t},"kind":"${kind}","msg":${msg},"from":${from},"to":${to},"type":${JSON.stringify(type)},${message}${clocks}}`;
}

/** The `deliver` frame around the payload's JSON from the send. */
export function deliverFrame(from: ProcessId, msg: number, messageJson: string): string {
  return `{"type":"deliver","from":${from},"msg":${msg},"message":${messageJson}}`;
}

/** An `events` frame: `labJson` is the lab's name as JSON, `lines` the events' lines. */
export function eventsFrame(labJson: string, lines: readonly string[], skipped: number): string {
  return `{"type":"events","lab":${labJson},"events":[${lines.join(',')}],"skipped":${skipped}}`;
}

/** The key text of id `p` in a vector, comma first: `,"<p>":`. */
export function vectorKey(p: ProcessId): string {
  return `,"${p}":`;
}

/**
 * `"lamport":L` or `"lamport":L,"vector":{"<id>":n,...}`: the vector as JSON.stringify writes an
 * id -> count record (integer keys ascending, zero counts left out). `counts[slot]` is the count
 * of the id in that slot, `order` the slots by ascending id, `keys[slot]` its `vectorKey`.
 */
export function clocksText(lamport: number, counts: readonly number[] | undefined, order: readonly number[], keys: readonly string[]): string {
  if (!counts) return `"lamport":${lamport}`;
  let out = `"lamport":${lamport},"vector":{`;
  let first = true;
  for (const slot of order) {
    const n = counts[slot];
    if (n === undefined || n === 0) continue;
    // Every key text starts with a comma, which the first one leaves out.
    out += (first ? keys[slot]!.slice(1) : keys[slot]!) + n;
    first = false;
  }
  return out + '}';
}
