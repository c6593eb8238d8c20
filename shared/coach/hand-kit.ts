// What a hand-played process can do, per algorithm: the replies a queued event offers (OK to an
// ELECTION, forward a ring hop to the chosen successor...) and her own moves (hold an election,
// declare herself, set a timeout of UB...). Each offer is a list of actions one click carries
// out; the fields the messages need are filled from the event and her tab's counters, and every
// message is checked against the algorithm's schema before it is offered (parseMessage).
import { roundTripBound, successorsOf, type AlgorithmConfig, type AlgorithmName, type Message, type ProcessId } from '../algorithms/algorithm.ts';
import { bullyTimeouts } from '../algorithms/bully.ts';
import { parseMessage } from '../algorithms/messages.ts';
import { MESSAGE_SCHEMAS } from '../algorithms/registry.ts';
import type { HandAction } from './coach.ts';

/** One click: what it says on the button and what it does. `timer`: a local timeout she sets. */
export type HandStep = HandAction | { kind: 'set-timer'; name: string; after: number };

export interface Offer {
  key: string;
  label: string;
  steps: HandStep[];
}

/** What the kit needs to know about her tab. */
export interface HandCounters {
  /** Her own elections so far (Bully's `election` numbers, the rings' election ids). */
  elections: number;
  /** The successor she forwards ring hops to (she picks it; a dead one is skipped by picking the next). */
  successor: ProcessId | null;
  /** Ids the active-list ring's ELECTs showed her in the current epoch (001's active list). */
  activeList: readonly ProcessId[];
}

const TIMER_UB = 'her:ub';
const TIMER_COORDINATOR_WAIT = 'her:coordinator-wait';

const isRing = (a: AlgorithmName) => a === 'ring' || a === 'ring-active-list';

/** The replies a delivered message offers. */
export function replies(algorithm: AlgorithmName, config: AlgorithmConfig, from: ProcessId, m: Message, c: HandCounters): Offer[] {
  const self = config.self;
  const out: Offer[] = [];
  const to = c.successor;
  const ack = (seq: unknown): HandStep[] => (typeof seq === 'number' ? [{ kind: 'send', to: from, message: { type: 'ACK', seq } }] : []);
  if (algorithm === 'bully') {
    if (m.type === 'ELECTION' && from < self) out.push(offer(`ok-${from}`, `Answer OK to ${from}`, [{ kind: 'send', to: from, message: pick(m, 'OK', ['election', 'term']) }]));
    if (m.type === 'OK') out.push(offer('wait', 'Wait for COORDINATOR (set the coordinator wait)', [{ kind: 'set-timer', name: TIMER_COORDINATOR_WAIT, after: bullyTimeouts(config.timing, config.options).coordinatorTimeout }]));
    if (m.type === 'COORDINATOR') out.push(offer(`believe-${from}`, `Believe ${from} is coordinator`, [{ kind: 'believe', coordinator: from }]));
  } else if (algorithm === 'ring' && to !== null) {
    const list = Array.isArray(m.list) ? (m.list as ProcessId[]) : [];
    if (m.type === 'ELECTION' && !list.includes(self)) out.push(offer(`fwd-${to}`, `Add myself and forward to ${to}`, [...ack(m.seq), send(to, { type: 'ELECTION', seq: 0, eid: m.eid, list: [...list, self] })]));
    if (m.type === 'ELECTION' && list.includes(self) && list.length > 0) {
      const x = Math.max(...list);
      out.push(offer(`done-${to}`, `Circuit complete: COORDINATOR(${x}) to ${to}`, [...ack(m.seq), send(to, { type: 'COORDINATOR', seq: 0, eid: m.eid, coordinator: x, origin: self }), x === self ? { kind: 'declare' } : { kind: 'believe', coordinator: x }]));
    }
    if (m.type === 'COORDINATOR' && typeof m.coordinator === 'number') {
      const x = m.coordinator;
      const pass: HandStep[] = m.origin === self ? [] : [send(to, { type: 'COORDINATOR', seq: 0, eid: m.eid, coordinator: x, origin: m.origin })];
      out.push(offer(`coord-${to}`, m.origin === self ? `Believe ${x} (it came back to me)` : `Believe ${x} and pass it on to ${to}`, [...ack(m.seq), ...pass, { kind: 'believe', coordinator: x }]));
    }
  } else if (algorithm === 'ring-active-list' && to !== null) {
    if (m.type === 'ELECT' && typeof m.id === 'number' && m.id !== self) {
      out.push(offer(`fwd-${to}`, `Add ${m.id} to my list and forward Elect(${m.id}) to ${to}`, [...ack(m.seq), send(to, { type: 'ELECT', seq: 0, id: m.id, epoch: m.epoch })]));
    }
    if (m.type === 'ELECT' && m.id === self) {
      const x = Math.max(self, ...c.activeList);
      out.push(offer(`elected-${to}`, `My Elect came back: Elected(${x}) to ${to}`, [...ack(m.seq), send(to, { type: 'ELECTED', seq: 0, coordinator: x, epoch: m.epoch }), x === self ? { kind: 'declare' } : { kind: 'believe', coordinator: x }]));
    }
    if (m.type === 'ELECTED' && typeof m.coordinator === 'number') out.push(offer(`believe-${m.coordinator}`, `Believe ${m.coordinator}`, [...ack(m.seq), { kind: 'believe', coordinator: m.coordinator }]));
  } else if (algorithm === 'raft' && typeof m.term === 'number') {
    // Ongaro and Ousterhout 2014, §5.2: one vote per term, to the first candidate that asks.
    if (m.type === 'REQUEST_VOTE') {
      out.push(offer(`vote-${from}`, `Vote for ${from} in term ${m.term}`, [send(from, { type: 'VOTE', term: m.term, granted: true })]));
      out.push(offer(`refuse-${from}`, `Refuse ${from} (already voted in term ${m.term})`, [send(from, { type: 'VOTE', term: m.term, granted: false })]));
    }
    if (m.type === 'HEARTBEAT') out.push(offer(`follow-${from}`, `Follow leader ${from}: HEARTBEAT_REPLY`, [send(from, { type: 'HEARTBEAT_REPLY', term: m.term }), { kind: 'believe', coordinator: from }]));
  } else if (algorithm === 'emergent') {
    // 003 (Anthony 2004): slaves answer their master's heartbeat; a master aborts a candidacy.
    if (m.type === 'MASTER_HEARTBEAT') out.push(offer(`slave-${from}`, `Serve master ${from}: SLAVE_HEARTBEAT`, [send(from, { type: 'SLAVE_HEARTBEAT' }), { kind: 'believe', coordinator: from }]));
    if (m.type === 'CANDIDATE') out.push(offer(`abort-${from}`, `Abort ${from}'s candidacy: I am master`, [send(from, { type: 'ABORT', master: self })]));
  }
  if (isRing(algorithm) && m.type !== 'ACK' && typeof m.seq === 'number' && out.length === 0) out.push(offer(`ack-${from}`, `Acknowledge to ${from}`, ack(m.seq)));
  if (m.type === 'PING') out.push(offer(`pong-${from}`, `Answer PONG to ${from}`, [send(from, { type: 'PONG' })]));
  return out.filter((o) => o.steps.every(valid(algorithm)));
}

/** Her own moves, whatever is queued. */
export function moves(algorithm: AlgorithmName, config: AlgorithmConfig, c: HandCounters): Offer[] {
  const self = config.self;
  const ub = roundTripBound(config.timing);
  const higher = config.ids.filter((i) => i > self);
  const lower = config.ids.filter((i) => i < self);
  const others = config.ids.filter((i) => i !== self);
  const n = c.elections + 1;
  const out: Offer[] = [];
  if (algorithm === 'bully') {
    if (higher.length) out.push(offer('elect', `Hold an election: ELECTION to every higher id (${higher.join(', ')}) and a timeout of UB`, [...higher.map((to) => send(to, { type: 'ELECTION', election: n })), { kind: 'set-timer', name: TIMER_UB, after: ub }]));
    out.push(offer('declare', lower.length ? `Declare myself coordinator: COORDINATOR to every lower id (${lower.join(', ')})` : 'Declare myself coordinator', [{ kind: 'declare' }, ...lower.map((to) => send(to, { type: 'COORDINATOR' }))]));
  } else if (algorithm === 'ring' && c.successor !== null) {
    out.push(offer('elect', `Start an election: ELECTION([${self}]) to ${c.successor}`, [send(c.successor, { type: 'ELECTION', seq: 0, eid: `${self}-h${n}`, list: [self] })]));
  } else if (algorithm === 'ring-active-list' && c.successor !== null) {
    out.push(offer('elect', `Start an election: Elect(${self}) to ${c.successor}`, [send(c.successor, { type: 'ELECT', seq: 0, id: self, epoch: 0 })]));
  } else if (algorithm === 'emergent') {
    out.push(offer('candidate', 'Stand as candidate: CANDIDATE to everyone', others.map((to) => send(to, { type: 'CANDIDATE' }))));
    out.push(offer('master', 'Act as master: MASTER_HEARTBEAT to everyone', [{ kind: 'declare' }, ...others.map((to) => send(to, { type: 'MASTER_HEARTBEAT' }))]));
  } else if (algorithm === 'raft') {
    out.push(offer('vote', `Stand for term ${n}: REQUEST_VOTE to everyone`, others.map((to) => send(to, { type: 'REQUEST_VOTE', term: n }))));
  }
  if (algorithm !== 'bully') out.push(offer('declare', 'Declare myself coordinator', [{ kind: 'declare' }]));
  out.push(offer('ub', `Set a timeout of UB (${Math.round(ub)} ms)`, [{ kind: 'set-timer', name: TIMER_UB, after: ub }]));
  return out.filter((o) => o.steps.every(valid(algorithm)));
}

/** The ring's successors of `self` in order, for her "forward to" choice. */
export function successorChoices(config: AlgorithmConfig): ProcessId[] {
  return successorsOf(config.ring, config.self);
}

/** A message she composed by hand (type and fields), read by the algorithm's schema; null if it does not fit. */
export function composed(algorithm: AlgorithmName, message: unknown): Message | null {
  return parseMessage<Message>(MESSAGE_SCHEMAS[algorithm], message);
}

const send = (to: ProcessId, message: Message): HandStep => ({ kind: 'send', to, message });
const offer = (key: string, label: string, steps: HandStep[]): Offer => ({ key, label, steps });

/** The reply of `type` carrying the listed fields of `m` that it has. */
function pick(m: Message, type: string, fields: string[]): Message {
  const out: Message = { type };
  for (const f of fields) if (m[f] !== undefined) out[f] = m[f];
  return out;
}

const valid = (algorithm: AlgorithmName) => (s: HandStep) => s.kind !== 'send' || composed(algorithm, s.message) !== null;
