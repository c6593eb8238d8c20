// A lab's journal: every event gets its sequence number and time, goes to the trace on disk (as
// the trace gate says), to the observers, the live checker, the stats and any tap. The
// per-message events are written as bytes straight into the trace's buffer.
import type { TraceEvent } from '@shared/protocol/trace.ts';
import type { Message, ProcessId } from '@shared/algorithms/algorithm.ts';
import type { LiveStamp } from '../trace/live-clocks.ts';
import type { EventBody, Lab } from './lab.ts';
import { messageHeadMaxBytes, putMessageHead, scratch, traceLine } from '../trace/wire-encode.ts';

const MESSAGE_KINDS = new Set(['send', 'deliver', 'drop', 'duplicate']);

/** Journals one event: seq and time, the clocks of the process it happened at, to disk (as the gate says; `always`: its notes) and to observers. */
export function recordEvent(
  lab: Lab,
  body: EventBody,
  stamp: LiveStamp | undefined,
  always: boolean,
): void {
  const isMessage = MESSAGE_KINDS.has(body.kind);
  const written = always || (isMessage ? lab.gate.message(body.kind) : lab.gate.other(body.kind));
  const seq = lab.numbers.takeSeq();
  if (lab.inert) return;
  const event = { seq, t: lab.now(), ...body } as TraceEvent;
  const observed = lab.observers.admit(isMessage);
  if (written || observed) {
    const line = traceLine(event, stamp ? lab.clocks.json(stamp) : null);
    if (written) lab.deps.store.append(line);
    if (observed) lab.observers.push(line);
  }
  lab.checker.observe(event);
  lab.stats.observe(event);
  for (const tap of lab.taps) tap(event);
}

/**
 * The per-message events (send, deliver), the same text as `record` gives, written as bytes
 * straight into the trace's buffer (wire-encode.ts): no string is made unless an observer
 * takes the line, and the payload is not encoded twice (`messageJson`: the send's, null for a
 * deliver). The checker and the stats get the event without the clocks, which they never read.
 */
export function recordMessage(
  lab: Lab,
  kind: 'send' | 'deliver',
  msg: number,
  from: ProcessId,
  to: ProcessId,
  type: string,
  message: Message | undefined,
  messageJson: string | null,
  stamp: LiveStamp,
): void {
  const written = lab.gate.message(kind);
  const seq = lab.numbers.takeSeq();
  if (lab.inert) return;
  const t = lab.now();
  const observed = lab.observers.admit(true);
  if (written || observed) {
    const max = messageHeadMaxBytes(type, messageJson) + lab.clocks.maxBytes;
    // The trace's own chunk when the line is written, else a scratch buffer (an observer's copy only).
    const chunk = written ? lab.deps.store.reserve(max) : null;
    const buf = chunk ?? scratch(max);
    const start = chunk ? lab.deps.store.lineStart : 0;
    let end = lab.clocks.put(
      buf,
      putMessageHead(buf, start, seq, t, kind, msg, from, to, type, messageJson),
      stamp,
    );
    buf[end++] = 0x7d; // }
    if (chunk) lab.deps.store.commit(end);
    if (observed) lab.observers.push(buf.toString('utf8', start, end));
  }
  // One object of a fixed shape (no spread copy): this runs twice for every message.
  const event = (
    message ? { seq, t, kind, msg, from, to, type, message } : { seq, t, kind, msg, from, to, type }
  ) as TraceEvent;
  lab.checker.observe(event);
  lab.stats.observe(event);
  for (const tap of lab.taps) tap(event);
}
