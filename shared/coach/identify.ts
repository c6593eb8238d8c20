// The numbers that only identify a message: a ring hop's seq, an election's id or epoch, Bully's
// election number and term. When she sends what the reference would send, hers follow the
// reference's, so the coach's shadow recognises the answers (an ACK, her ELECTION coming back
// round). What she sends, and to whom, stays hers.
import type { Message, ProcessId } from '../algorithms/algorithm.ts';

const IDENTIFYING = ['seq', 'eid', 'epoch', 'election', 'term'];

/**
 * Her message to `to`, with the identifying numbers of `known` (the reference's sends, open or
 * late) of the same type to the same id. The hop's seq always; the election's own numbers only
 * when it is the same message (her own election start, say), never onto another election's
 * message she passes on. A hop the reference would not send takes `ownSeq()`.
 */
export function identify(message: Message, to: ProcessId, known: readonly { to: ProcessId; message: Message }[], ownSeq: () => number): Message {
  if (message.type === 'ACK') return message;
  const same = known.find((g) => g.to === to && g.message.type === message.type);
  const out = { ...message };
  const fields = same && sameBut(same.message, message) ? IDENTIFYING : ['seq'];
  for (const f of fields) if (same && same.message[f] !== undefined && f in out) out[f] = same.message[f];
  if (typeof out.seq === 'number' && !(same && typeof same.message.seq === 'number')) out.seq = ownSeq();
  return out;
}

/** The two messages agree on every field but the identifying numbers. */
function sameBut(a: Message, b: Message): boolean {
  const strip = (m: Message) => {
    const fields = Object.entries(m).filter(([k]) => !IDENTIFYING.includes(k));
    return JSON.stringify(fields.sort(([x], [y]) => x.localeCompare(y)));
  };
  return strip(a) === strip(b);
}
