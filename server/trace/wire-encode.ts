// The relay's hand-written JSON, all in one place: the text it writes for every message (the
// trace lines of a send and a deliver, the deliver frame, an event's clocks) and for every
// observer batch, without encoding a payload twice or building an object only to stringify it.
// Each function writes exactly what JSON.stringify would write for the object of its schema,
// field order included: the trace event schema (shared/protocol/trace.ts) and the frame schemas
// `DeliverFrameSchema` and `EventsFrameSchema` (shared/protocol/frames.ts).
// test/unit/wire-encode.test.ts holds every function to that over generated inputs; anything not on
// the hot path is written with JSON.stringify.
//
// The send and deliver lines (two per message) are written as bytes straight into the trace's
// chunk (line-chunks.ts): built as strings, a line and its vector clock were some thirty string
// pieces, then copied flat to be encoded, about 3 KB of garbage a message and over a third of all
// the relay allocated under load, so the young-generation collector ran twice as often
// (docs/RELIABILITY.md, "Tail latency").
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

/** The `deliver` frame around the payload's JSON from the send. */
export function deliverFrame(from: ProcessId, msg: number, messageJson: string): string {
  return `{"type":"deliver","from":${from},"msg":${msg},"message":${messageJson}}`;
}

/** An `events` frame: `labJson` is the lab's name as JSON, `lines` the events' lines. */
export function eventsFrame(labJson: string, lines: readonly string[], skipped: number): string {
  return `{"type":"events","lab":${labJson},"events":[${lines.join(',')}],"skipped":${skipped}}`;
}

/** The key of id `p` in a vector, comma first, as bytes: `,"<p>":`. */
export function vectorKey(p: ProcessId): Uint8Array {
  return Buffer.from(`,"${p}":`, 'latin1');
}

/**
 * `"lamport":L` or `"lamport":L,"vector":{"<id>":n,...}`: the vector as JSON.stringify writes an
 * id -> count record (integer keys ascending, zero counts left out). `counts[slot]` is the count
 * of the id in that slot, `order` the slots by ascending id, `keys[slot]` its `vectorKey` as bytes.
 */
export function clocksText(
  lamport: number,
  counts: readonly number[] | undefined,
  order: readonly number[],
  keys: readonly Uint8Array[],
): string {
  const buf = scratch(clocksMaxBytes(order.length));
  return buf.toString('latin1', 0, putClocks(buf, 0, lamport, counts, order, keys));
}

// --- bytes ------------------------------------------------------------------------------------

const ascii = (s: string): Uint8Array => Buffer.from(s, 'latin1');
const LAMPORT = ascii('"lamport":');
const VECTOR = ascii(',"vector":{');
const HEAD = ascii('{"seq":');
const T = ascii(',"t":');
const SEND = ascii(',"kind":"send","msg":');
const DELIVER = ascii(',"kind":"deliver","msg":');
const FROM = ascii(',"from":');
const TO = ascii(',"to":');
const MESSAGE = ascii(',"message":');

/** The most bytes `putClocks` writes for a lab of `slots` ids (a key and a count are at most 20 and 16 bytes). */
export const clocksMaxBytes = (slots: number): number => 48 + 40 * slots;

/** The most bytes `putMessageHead` writes (every UTF-16 unit takes at most 3 bytes). */
export const messageHeadMaxBytes = (type: string, messageJson: string | null): number =>
  200 + 3 * (type.length + (messageJson?.length ?? 0));

function putBytes(buf: Buffer, at: number, b: Uint8Array): number {
  for (let i = 0; i < b.length; i++) buf[at + i] = b[i]!;
  return at + b.length;
}

/** A number as JSON.stringify writes it: whole numbers and tenths digit by digit, anything else through JSON.stringify. */
function putNumber(buf: Buffer, at: number, x: number): number {
  const k = Math.round(x * 10);
  if (!(k >= 0 && k <= Number.MAX_SAFE_INTEGER && k / 10 === x))
    return at + buf.write(JSON.stringify(x), at, 'latin1');
  let whole = Math.floor(k / 10);
  const tenth = k - whole * 10;
  let digits = 1;
  for (let w = whole; w >= 10; w = Math.floor(w / 10)) digits++;
  const end = at + digits;
  for (let i = end - 1; i > at; i--) {
    const q = Math.floor(whole / 10);
    buf[i] = 48 + whole - q * 10;
    whole = q;
  }
  buf[at] = 48 + whole;
  if (tenth === 0) return end;
  buf[end] = 46; // .
  buf[end + 1] = 48 + tenth;
  return end + 2;
}

/** `,"type":<type as JSON>` as bytes, for the types a lab has seen (bounded: a peer may invent any). */
const typeBytes = new Map<string, Uint8Array>();
const MAX_TYPES = 1024;

function typeField(type: string): Uint8Array {
  let b = typeBytes.get(type);
  if (!b) {
    b = Buffer.from(`,"type":${JSON.stringify(type)}`, 'utf8');
    if (typeBytes.size < MAX_TYPES) typeBytes.set(type, b);
  }
  return b;
}

/** Writes `clocksText`'s text at `at` (ASCII); returns where it ends. */
export function putClocks(
  buf: Buffer,
  at: number,
  lamport: number,
  counts: readonly number[] | undefined,
  order: readonly number[],
  keys: readonly Uint8Array[],
): number {
  at = putNumber(buf, putBytes(buf, at, LAMPORT), lamport);
  if (!counts) return at;
  at = putBytes(buf, at, VECTOR);
  let first = true;
  for (const slot of order) {
    const n = counts[slot];
    if (n === undefined || n === 0) continue;
    const key = keys[slot]!;
    // Every key starts with a comma, which the first one leaves out.
    for (let i = first ? 1 : 0; i < key.length; i++) buf[at++] = key[i]!;
    at = putNumber(buf, at, n);
    first = false;
  }
  buf[at] = 0x7d; // }
  return at + 1;
}

/**
 * The line of a `send` or `deliver` event up to its clocks, as UTF-8 at `at`:
 * `{"seq":..,"t":..,"kind":..,"msg":..,"from":..,"to":..,"type":..[,"message":..],` (the caller
 * writes the clocks with `putClocks` and the closing brace). `messageJson` is the send's payload
 * already encoded, null for a deliver, which carries none. Returns where it ends.
 */
export function putMessageHead(
  buf: Buffer,
  at: number,
  seq: number,
  t: number,
  kind: 'send' | 'deliver',
  msg: number,
  from: ProcessId,
  to: ProcessId,
  type: string,
  messageJson: string | null,
): number {
  at = putNumber(buf, putBytes(buf, at, HEAD), seq);
  at = putNumber(buf, putBytes(buf, at, T), t);
  at = putNumber(buf, putBytes(buf, at, kind === 'send' ? SEND : DELIVER), msg);
  at = putNumber(buf, putBytes(buf, at, FROM), from);
  at = putNumber(buf, putBytes(buf, at, TO), to);
  at = putBytes(buf, at, typeField(type));
  if (messageJson !== null) {
    at = putBytes(buf, at, MESSAGE);
    at += buf.write(messageJson, at, 'utf8');
  }
  buf[at] = 44; // ,
  return at + 1;
}

let scratchBuf = Buffer.allocUnsafeSlow(16 * 1024);

/** A reusable buffer of at least `min` bytes, for a line nobody keeps as bytes (decode it before the next call). */
export function scratch(min: number): Buffer {
  if (scratchBuf.length < min)
    scratchBuf = Buffer.allocUnsafeSlow(Math.max(min, 2 * scratchBuf.length));
  return scratchBuf;
}
