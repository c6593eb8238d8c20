// What a hand-played process can do, per algorithm: the replies a queued event offers (OK to an
// ELECTION, forward a ring hop to the chosen successor...); her own moves (hold an election,
// declare herself, set a timeout of UB...) are in hand-moves.ts. Each offer is a list of actions
// one click carries out; the fields the messages need are filled from the event and her tab's
// counters, and every message is checked against the algorithm's schema before it is offered
// (parseMessage).
import {
  successorsOf,
  type AlgorithmConfig,
  type AlgorithmName,
  type Message,
  type ProcessId,
} from '../algorithms/algorithm.ts';
import { bullyTimeouts } from '../algorithms/bully.ts';
import { parseMessage } from '../algorithms/messages.ts';
import { MESSAGE_SCHEMAS } from '../algorithms/registry.ts';
import type { HandAction } from './coach.ts';
import { BEAT, POLL, PONG, SILENCE } from './auto-beat.ts';

/** One click: what it says on the button and what it does. `timer`: a local timeout she sets. */
export type HandStep =
  | HandAction
  | { kind: 'set-timer'; name: string; after: number }
  /** 003's work schedule: her task's time has passed and she computes it (hand-work.ts). */
  | { kind: 'compute' };

export interface Offer {
  key: string;
  label: string;
  steps: HandStep[];
  /** Enabled from this moment of her clock on (a task's compute time); absent: at once. */
  readyAt?: number;
}

/** What the kit needs to know about her tab. */
export interface HandCounters {
  /** Her own elections so far (Bully's `election` numbers, the rings' election ids). */
  elections: number;
  /** The successor she forwards ring hops to (she picks it; a dead one is skipped by picking the next). */
  successor: ProcessId | null;
  /** Ids the active-list ring's ELECTs showed her in the current epoch (001's active list). */
  activeList: readonly ProcessId[];
  /** The newest active-list election (epoch) she has seen or opened. */
  epoch: number;
  /** The newest epoch she has sent her own Elect in (0: none). */
  joined: number;
  /** The winner her Elected named in that epoch (null: none yet); a higher Elect(j) later corrects it. */
  told: ProcessId | null;
  /** The ids whose Elect she has forwarded in that epoch: another copy is only acknowledged. */
  forwarded: readonly ProcessId[];
  /** The newest Raft term she has seen in a message or stood in (§5.1: a server adopts any newer term it sees). */
  term: number;
  /** Whom she believes is coordinator now (a heartbeat from that one asks nothing of her). */
  believes?: ProcessId | null;
}

/** Messages the documents send every interval (003's heartbeats, Raft's): a newer one supersedes an unanswered older one. */
export const PERIODIC: ReadonlySet<string> = new Set([
  'HEARTBEAT',
  'MASTER_HEARTBEAT',
  'SLAVE_HEARTBEAT',
]);

export const TIMER_UB = 'her:ub';
const TIMER_COORDINATOR_WAIT = 'her:coordinator-wait';

const isRing = (a: AlgorithmName) => a === 'ring' || a === 'ring-active-list';

/** What a reply needs: her config, who sent it, the message, her counters. */
interface Asked {
  config: AlgorithmConfig;
  from: ProcessId;
  m: Message;
  c: HandCounters;
}

/** The replies a delivered message offers. */
export function replies(
  algorithm: AlgorithmName,
  config: AlgorithmConfig,
  from: ProcessId,
  m: Message,
  c: HandCounters,
): Offer[] {
  const a: Asked = { config, from, m, c };
  const out = [...(REPLIES[algorithm]?.(a) ?? [])];
  const hop = isRing(algorithm) && m.type !== 'ACK' && typeof m.seq === 'number';
  if (hop && out.length === 0) out.push(offer(`ack-${from}`, `Acknowledge to ${from}`, ack(a)));
  if (m.type === 'PING')
    out.push(offer(`pong-${from}`, `Answer PONG to ${from}`, [send(from, { type: 'PONG' })]));
  return out.filter((o) => o.steps.every(valid(algorithm)));
}

/** The ring hop layer's acknowledgement of the message she answers (ring-forwarding.ts). */
const ack = ({ from, m }: Asked): HandStep[] =>
  typeof m.seq === 'number' ? [send(from, { type: 'ACK', seq: m.seq })] : [];
/** She believes `x`, or declares herself when `x` is her. */
const settle = (x: ProcessId, self: ProcessId): HandStep =>
  x === self ? { kind: 'declare' } : { kind: 'believe', coordinator: x };

const REPLIES: Partial<Record<AlgorithmName, (a: Asked) => Offer[]>> = {
  // 000: OK to a lower id's ELECTION; believe a COORDINATOR; after an OK, wait for COORDINATOR.
  bully({ config, from, m }) {
    const out: Offer[] = [];
    if (m.type === 'ELECTION' && from < config.self) {
      out.push(
        offer(`ok-${from}`, `Answer OK to ${from}`, [
          send(from, pick(m, 'OK', ['election', 'term'])),
        ]),
      );
    }
    if (m.type === 'OK') {
      const wait = bullyTimeouts(config.timing, config.options).coordinatorTimeout;
      out.push(
        offer('wait', `Wait for COORDINATOR (set the coordinator wait, ${seconds(wait)})`, [
          { kind: 'set-timer', name: TIMER_COORDINATOR_WAIT, after: wait },
        ]),
      );
    }
    if (m.type === 'COORDINATOR')
      out.push(
        offer(`believe-${from}`, `Believe ${from} is coordinator`, [
          { kind: 'believe', coordinator: from },
        ]),
      );
    return out;
  },
  // 002: add her id and forward; her own id back in the list: circulate COORDINATOR(max).
  ring(a) {
    const { config, m, c } = a;
    const self = config.self;
    const to = c.successor;
    if (to === null) return [];
    const list = Array.isArray(m.list) ? (m.list as ProcessId[]) : [];
    if (m.type === 'ELECTION' && !list.includes(self)) {
      const fwd = { type: 'ELECTION', seq: 0, eid: m.eid, list: [...list, self] };
      return [offer(`fwd-${to}`, `Add myself and forward to ${to}`, [...ack(a), send(to, fwd)])];
    }
    if (m.type === 'ELECTION' && list.length > 0) {
      const x = Math.max(...list);
      const result = { type: 'COORDINATOR', seq: 0, eid: m.eid, coordinator: x, origin: self };
      return [
        offer(`done-${to}`, `Circuit complete: COORDINATOR(${x}) to ${to}`, [
          ...ack(a),
          send(to, result),
          settle(x, self),
        ]),
      ];
    }
    if (m.type === 'COORDINATOR' && typeof m.coordinator === 'number') {
      const x = m.coordinator;
      if (m.origin === self)
        return [
          offer(`coord-${to}`, `Believe ${x} (it came back to me)`, [...ack(a), settle(x, self)]),
        ];
      const pass = { type: 'COORDINATOR', seq: 0, eid: m.eid, coordinator: x, origin: m.origin };
      return [
        offer(`coord-${to}`, `Believe ${x} and pass it on to ${to}`, [
          ...ack(a),
          send(to, pass),
          settle(x, self),
        ]),
      ];
    }
    return [];
  },
  // 001: forward Elect(j) when j is not her; her own Elect back: Elected(the highest in her list).
  'ring-active-list'(a) {
    const { config, m, c } = a;
    const self = config.self;
    const to = c.successor;
    if (to === null) return [];
    // A copy of an Elect she forwarded already (a late ACK made its sender send it again): 001 (b)
    // adds j once, so the reference drops it; the hop is still acknowledged.
    if (
      m.type === 'ELECT' &&
      m.epoch === c.epoch &&
      typeof m.id === 'number' &&
      c.forwarded.includes(m.id)
    )
      return [];
    if (m.type === 'ELECT' && typeof m.id === 'number' && m.id !== self) {
      const fwd = { type: 'ELECT', seq: 0, id: m.id, epoch: m.epoch };
      // 001 (a): the first Elect(j) of an election she has not joined: "add Elect(i) + send Elect(j)".
      if (typeof m.epoch === 'number' && m.epoch > c.joined) {
        const own = { type: 'ELECT', seq: 0, id: self, epoch: m.epoch };
        return [
          offer(
            `fwd-${to}`,
            `First Elect of this election: send my own Elect(${self}), then Elect(${m.id}), to ${to}`,
            [...ack(a), send(to, own), send(to, fwd)],
          ),
        ];
      }
      // She told a lower winner already: her list was incomplete, so Elected(j) follows (the reference's correction).
      if (c.told !== null && m.id > c.told && m.epoch === c.epoch) {
        const correct = { type: 'ELECTED', seq: 0, coordinator: m.id, epoch: m.epoch };
        return [
          offer(
            `fwd-${to}`,
            `Forward Elect(${m.id}) to ${to}, and correct my Elected: Elected(${m.id})`,
            [...ack(a), send(to, fwd), send(to, correct)],
          ),
        ];
      }
      return [
        offer(`fwd-${to}`, `Add ${m.id} to my list and forward Elect(${m.id}) to ${to}`, [
          ...ack(a),
          send(to, fwd),
        ]),
      ];
    }
    if (m.type === 'ELECT' && m.id === self) {
      const x = Math.max(self, ...c.activeList);
      const elected = { type: 'ELECTED', seq: 0, coordinator: x, epoch: m.epoch };
      // Believed when Elected(x) comes round (001: "If a process receives Elected(x), set coordinator to x").
      return [
        offer(`elected-${to}`, `My Elect came back: Elected(${x}) to ${to}`, [
          ...ack(a),
          send(to, elected),
        ]),
      ];
    }
    if (m.type === 'ELECTED' && typeof m.coordinator === 'number') {
      return [
        offer(`believe-${m.coordinator}`, `Believe ${m.coordinator}`, [
          ...ack(a),
          settle(m.coordinator, self),
        ]),
      ];
    }
    return [];
  },
  // Ongaro and Ousterhout 2014, §5.2: one vote per term; a leader's heartbeat is answered.
  raft({ from, m, c }) {
    if (typeof m.term !== 'number') return [];
    const term = m.term;
    if (m.type === 'REQUEST_VOTE') {
      return [
        offer(`vote-${from}`, `Vote for ${from} in term ${term}`, [
          send(from, { type: 'VOTE', term, granted: true }),
        ]),
        offer(`refuse-${from}`, `Refuse ${from} (already voted in term ${term})`, [
          send(from, { type: 'VOTE', term, granted: false }),
        ]),
      ];
    }
    if (m.type === 'HEARTBEAT') {
      // No reply: the reference answers only a stale leader's heartbeat (HEARTBEAT_REPLY carries the newer term).
      if (c.believes === from) return [];
      return [
        offer(`follow-${from}`, `Follow leader ${from} (term ${term})`, [
          { kind: 'believe', coordinator: from },
        ]),
      ];
    }
    return [];
  },
  // 003 (Anthony 2004): the master's heartbeat names it (idle or slave, the reference only
  // follows it: a slave's own heartbeats go to everyone on its timer, her 'Slave heartbeat' move);
  // a master aborts a candidacy.
  emergent({ config, from, m, c }) {
    if (m.type === 'MASTER_HEARTBEAT')
      return c.believes === from
        ? []
        : [
            offer(`follow-${from}`, `Follow master ${from}`, [
              { kind: 'believe', coordinator: from },
            ]),
          ];
    if (m.type === 'CANDIDATE')
      return [
        offer(`abort-${from}`, `Abort ${from}'s candidacy: I am master`, [
          send(from, { type: 'ABORT', master: config.self }),
        ]),
      ];
    return [];
  },
};

/** A duration as the tab says it: seconds, one decimal where it matters. */
export function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Her own timer ran out, in her words. */
export function timerWords(name: string, after: number): string {
  if (name === TIMER_UB)
    return `your UB timeout (${seconds(after)}) ran out: no answer came within UB`;
  if (name === TIMER_COORDINATOR_WAIT)
    return `your coordinator wait (${seconds(after)}) ran out: no COORDINATOR came`;
  return `your timer ${name} (${seconds(after)}) ran out`;
}

/** The timers of hand mode (hers and her detector toggle's) in her words; any other name as it is. */
const TIMER_NAMES: Record<string, string> = {
  [TIMER_UB]: 'your UB timeout',
  [TIMER_COORDINATOR_WAIT]: 'your coordinator wait',
  [BEAT]: 'your next heartbeat',
  [SILENCE]: "the coordinator's silence watch",
  [POLL]: 'your next poll of the coordinator',
  [PONG]: "the coordinator's PONG wait",
  'her:work-status': 'your next status beat (the work schedule)',
  'her:work-ready': "your task's compute time",
};

/** A timer's name as her tab shows it (the Timers panel, the inbox's "fired" lines). */
export function timerName(name: string): string {
  const ack = /^her:ack:(\d+):/.exec(name);
  if (ack) return `the ACK wait for ${ack[1]}`;
  return TIMER_NAMES[name] ?? name;
}

/** A countdown in seconds, one decimal (the tab's clock; the documents' bounds are in seconds). */
export function secondsLeft(ms: number): string {
  return `${(Math.max(0, Math.ceil(ms / 100)) / 10).toFixed(1)} s`;
}

/** The ring's successors of `self` in order, for her "forward to" choice. */
export function successorChoices(config: AlgorithmConfig): ProcessId[] {
  return successorsOf(config.ring, config.self);
}

/** A message she composed by hand (type and fields), read by the algorithm's schema; null if it does not fit. */
export function composed(algorithm: AlgorithmName, message: unknown): Message | null {
  return parseMessage<Message>(MESSAGE_SCHEMAS[algorithm], message);
}

export const send = (to: ProcessId, message: Message): HandStep => ({ kind: 'send', to, message });
export const offer = (key: string, label: string, steps: HandStep[]): Offer => ({
  key,
  label,
  steps,
});

/** The reply of `type` carrying the listed fields of `m` that it has. */
function pick(m: Message, type: string, fields: string[]): Message {
  const out: Message = { type };
  for (const f of fields) if (m[f] !== undefined) out[f] = m[f];
  return out;
}

export const valid = (algorithm: AlgorithmName) => (s: HandStep) =>
  s.kind !== 'send' || composed(algorithm, s.message) !== null;
