// The documents' rules a hand-played process can break, each with the sentence it follows, and
// how the coach names a mismatch between her action and the reference's. The sentences are
// quoted from the seed documents (000 lecture notes with Figure 6-20, 001 the active-list ring,
// 002 Module 3, 003 Elections); the emergent algorithm and Raft are judged against the reference
// itself (003's emergent section and Ongaro and Ousterhout 2014 give no per-message rules here).
import type { AlgorithmName, Message, ProcessId } from '../algorithms/algorithm.ts';

interface Rule {
  /** Where it comes from: "003", "000, Figure 6-20"... */
  source: string;
  /** The sentence (or the reference's behaviour) the action breaks. */
  text: string;
}

export const RULES = {
  'bully.answer': {
    source: '000',
    text: 'When an ELECTION arrives from a lower id, the receiver sends an OK message back to the sender to indicate that it is alive and will take over.',
  },
  'bully.elect-higher': {
    source: '003',
    text: 'It sends an election message to all machines with a higher ID.',
  },
  'bully.hold': {
    source: '000',
    text: 'The receiver then holds an election, unless it is already holding one.',
  },
  'bully.declare': {
    source: '003',
    text: 'If no reply is received during a time-out period – 2*(transit time) + (processing time) – it sends a coordinator message to all processes with a lower ID; if it receives a reply (it must be from a higher ID), it waits for a coordinator message.',
  },
  'bully.announce': {
    source: '000',
    text: 'It announces its victory by sending all processes a message telling them that starting immediately it is the new coordinator.',
  },
  'bully.believe': {
    source: '000',
    text: 'A process believes the COORDINATOR of a higher id; a victory message from a lower id starts a new election.',
  },
  'ring.forward': { source: '002', text: 'Each process adds its own number and forwards to next.' },
  'ring.skip': {
    source: '002',
    text: 'Sends to first live successor: faulty systems, those that do not respond in a fixed amount of time, are skipped.',
  },
  'ring.complete': {
    source: '002',
    text: 'When the message returns to p, it sees its own process ID in the list and knows that the circuit is complete; only then does it announce the result.',
  },
  'ring.circulate': {
    source: '002',
    text: 'P circulates a COORDINATOR message with the new high number; each process passes it on and believes it.',
  },
  'active.forward': {
    source: '001',
    text: 'If i != j, add i to the active list and forward Elect(j) to the neighbour; Elected(x) is circulated once the message comes back.',
  },
  'work.busy': {
    source: '003',
    text: 'The co-ordinator only hands out the next task when a machine is empty.',
  },
  'work.store': {
    source: '003',
    text: 'A job that finishes is sent to the analyser: the co-ordinator passes every result on.',
  },
  'work.result': {
    source: '003',
    text: 'A machine that finishes its task sends the result back and is empty again.',
  },
  'work.stale': {
    source: '003',
    text: 'What happens if two machines decide they are co-ordinators? Need to timestamp communications: with fencing on, an order stamped with a token older than the newest seen is refused.',
  },
  'reference.send': {
    source: 'the reference',
    text: 'The lab’s algorithm would not send this message now.',
  },
  'reference.missed': {
    source: 'the reference',
    text: 'The lab’s algorithm would have sent this message by now.',
  },
  'reference.belief': {
    source: 'the reference',
    text: 'The lab’s algorithm believes another coordinator at this point.',
  },
} as const satisfies Record<string, Rule>;

export type RuleId = keyof typeof RULES;

/** Why the ring rules are the same for both rings: ELECTION/ELECT are the forwarded hop, COORDINATOR/ELECTED the result. */
const RING_HOP = new Set(['ELECTION', 'ELECT']);
const RING_RESULT = new Set(['COORDINATOR', 'ELECTED']);

const isRing = (a: AlgorithmName) => a === 'ring' || a === 'ring-active-list';

/**
 * She sent `message` to `to` and the reference would not have. `expected`: whom the reference
 * would send a message of that type to now (empty: it sends none of that type).
 */
export function unexpectedSendRule(
  algorithm: AlgorithmName,
  self: ProcessId,
  to: ProcessId,
  message: Message,
  expected: readonly ProcessId[],
  ring: readonly ProcessId[],
): RuleId {
  if (algorithm === 'bully') {
    if (message.type === 'ELECTION') return to < self ? 'bully.elect-higher' : 'bully.hold';
    if (message.type === 'OK') return 'bully.answer';
    if (message.type === 'COORDINATOR') return 'bully.declare';
  }
  if (isRing(algorithm)) {
    if (RING_HOP.has(message.type)) {
      // The reference forwards past `to`: she sent to a successor already found dead.
      if (expected.length > 0 && skippedOver(ring, self, to, expected[0]!)) return 'ring.skip';
      return algorithm === 'ring' ? 'ring.forward' : 'active.forward';
    }
    if (RING_RESULT.has(message.type)) return expected.length > 0 ? 'ring.skip' : 'ring.complete';
  }
  return 'reference.send';
}

/** The reference sent `message` and she did not within UB; `reply`: a COORDINATOR it sends as coordinator already. */
export function missedSendRule(algorithm: AlgorithmName, message: Message, reply = false): RuleId {
  if (algorithm === 'bully') {
    if (message.type === 'OK') return 'bully.answer';
    if (message.type === 'ELECTION') return 'bully.hold';
    if (message.type === 'COORDINATOR') return reply ? 'bully.announce' : 'bully.declare';
  }
  if (isRing(algorithm)) {
    if (RING_HOP.has(message.type)) return algorithm === 'ring' ? 'ring.forward' : 'active.forward';
    if (RING_RESULT.has(message.type)) return 'ring.circulate';
  }
  return 'reference.missed';
}

/** She declared herself coordinator and the reference would not. */
export function declareRule(algorithm: AlgorithmName): RuleId {
  if (algorithm === 'bully') return 'bully.declare';
  if (isRing(algorithm)) return 'ring.complete';
  return 'reference.belief';
}

/** She believes someone the reference does not. */
export function believeRule(algorithm: AlgorithmName): RuleId {
  if (algorithm === 'bully') return 'bully.believe';
  if (isRing(algorithm)) return 'ring.circulate';
  return 'reference.belief';
}

/** `to` lies strictly between `self` and `target` going round the ring. */
function skippedOver(
  ring: readonly ProcessId[],
  self: ProcessId,
  to: ProcessId,
  target: ProcessId,
): boolean {
  const i = ring.indexOf(self);
  if (i < 0) return false;
  const after = [...ring.slice(i + 1), ...ring.slice(0, i)];
  const a = after.indexOf(to);
  const b = after.indexOf(target);
  return a >= 0 && b >= 0 && a < b;
}

/**
 * Messages the coach leaves alone: the failure detector's and the ring's hop acknowledgements
 * (plumbing, not the election; the tab may send them by itself when she allows it). Raft's
 * HEARTBEAT is its leader's own message and is judged like any other.
 */
export function isPlumbing(algorithm: AlgorithmName, type: string): boolean {
  if (algorithm === 'raft') return false;
  return type === 'HEARTBEAT' || type === 'PING' || type === 'PONG' || type === 'ACK';
}
