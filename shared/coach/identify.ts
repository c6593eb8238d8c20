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
export function identify(
  message: Message,
  to: ProcessId,
  known: readonly { to: ProcessId; message: Message }[],
  ownSeq: () => number,
): Message {
  if (message.type === 'ACK') return message;
  const like = known.filter((g) => g.to === to && g.message.type === message.type);
  // The reference's send of this very election first (her Elect joining epoch 2 is not its start
  // election of epoch 0, though both are Elect(i) to the same successor), else the oldest.
  const same = like.find((g) => sameElection(g.message, message)) ?? like[0];
  const out = { ...message };
  // The same send: it carries every number the reference's carries (a term the kit's offer lacks too).
  const whole = same !== undefined && sameBut(same.message, message);
  for (const f of whole ? IDENTIFYING : ['seq'])
    if (same && same.message[f] !== undefined && (whole || f in out)) out[f] = same.message[f];
  if (typeof out.seq === 'number' && !(same && typeof same.message.seq === 'number'))
    out.seq = ownSeq();
  return out;
}

/** The message's fields but `left` as text, in key order (key order on the wire is nobody's meaning). */
function fieldsText(m: Message, left: readonly string[]): string {
  const fields = Object.entries(m).filter(([k]) => !left.includes(k));
  return JSON.stringify(fields.sort(([x], [y]) => x.localeCompare(y)));
}

/** The two messages agree on every field but the identifying numbers. */
function sameBut(a: Message, b: Message): boolean {
  return fieldsText(a, IDENTIFYING) === fieldsText(b, IDENTIFYING);
}

/** Each message's whole text, once: the coach compares every new suggestion with the open ones. */
const wholeText = new WeakMap<Message, string>();

/** The very same message, whatever the order of its fields. */
export function sameMessage(a: Message, b: Message): boolean {
  return a.type === b.type && whole(a) === whole(b);
}

function whole(m: Message): string {
  let t = wholeText.get(m);
  if (t === undefined) wholeText.set(m, (t = fieldsText(m, [])));
  return t;
}

/** The same message of the same election: equal in everything but the hop's seq. */
function sameElection(a: Message, b: Message): boolean {
  return fieldsText(a, ['seq']) === fieldsText(b, ['seq']);
}
