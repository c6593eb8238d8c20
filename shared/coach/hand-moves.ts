// Her own moves in hand mode, whatever is queued, per algorithm: hold an election, declare
// herself, stand as candidate or for a term, set a timeout of UB. Each is an offer of hand-kit.ts,
// every message checked against the algorithm's schema before it is offered.
import { usesSharedDetector } from './auto-beat.ts';
import {
  roundTripBound,
  type AlgorithmConfig,
  type AlgorithmName,
  type Message,
  type ProcessId,
} from '../algorithms/algorithm.ts';
import {
  offer,
  seconds,
  send,
  TIMER_UB,
  valid,
  type HandCounters,
  type Offer,
} from './hand-kit.ts';

/** What her moves are made of: who is above and below her, her next election, her counters. */
interface MoveKit {
  self: ProcessId;
  ub: number;
  higher: ProcessId[];
  lower: ProcessId[];
  /** Her next election's number. */
  n: number;
  /** The ring successor she picked (null: none yet). */
  to: ProcessId | null;
  c: HandCounters;
  /** One send of `m` to every other process. */
  everyone: (m: Message) => ReturnType<typeof send>[];
}

/** Her own moves, whatever is queued. */
export function moves(algorithm: AlgorithmName, config: AlgorithmConfig, c: HandCounters): Offer[] {
  const self = config.self;
  const ub = roundTripBound(config.timing);
  const others = config.ids.filter((i) => i !== self);
  const out = OWN_MOVES[algorithm]({
    self,
    ub,
    higher: config.ids.filter((i) => i > self),
    lower: config.ids.filter((i) => i < self),
    n: c.elections + 1,
    to: c.successor,
    c,
    everyone: (m) => others.map((to) => send(to, m)),
  });
  if (algorithm !== 'bully')
    out.push(offer('declare', 'Declare myself coordinator', [{ kind: 'declare' }]));
  out.push(
    offer('ub', `Set a timeout of UB (${seconds(ub)})`, [
      { kind: 'set-timer', name: TIMER_UB, after: ub },
    ]),
  );
  return out.filter((o) => o.steps.every(valid(algorithm)));
}

/** The moves that hold an election of her own, first found first (the top Bully id's: declaring). */
const ELECTION_MOVES = ['elect', 'vote', 'candidate', 'declare'];

/** Her move that answers a call for an election (the start, the detector, the instructor): only where the lab's shared detector calls. */
export function electionMove(
  algorithm: AlgorithmName,
  config: AlgorithmConfig | null,
  c: HandCounters,
): Offer[] {
  if (!config || !usesSharedDetector(algorithm)) return [];
  const all = moves(algorithm, config, c);
  const move = ELECTION_MOVES.map((k) => all.find((m) => m.key === k)).find((m) => m !== undefined);
  return move ? [move] : [];
}

const OWN_MOVES: Record<AlgorithmName, (k: MoveKit) => Offer[]> = {
  // 003: ELECTION to every higher id, then wait UB; with none answering, COORDINATOR to every lower id.
  bully({ higher, lower, n, ub }) {
    const out: Offer[] = [];
    const elect = [
      ...higher.map((h) => send(h, { type: 'ELECTION', election: n })),
      { kind: 'set-timer', name: TIMER_UB, after: ub } as const,
    ];
    if (higher.length)
      out.push(
        offer(
          'elect',
          `Hold an election: ELECTION to every higher id (${higher.join(', ')}) and a timeout of UB`,
          elect,
        ),
      );
    const label = lower.length
      ? `Declare myself coordinator: COORDINATOR to every lower id (${lower.join(', ')})`
      : 'Declare myself coordinator';
    out.push(
      offer('declare', label, [
        { kind: 'declare' },
        ...lower.map((l) => send(l, { type: 'COORDINATOR' })),
      ]),
    );
    return out;
  },
  ring({ self, n, to }) {
    if (to === null) return [];
    const start = { type: 'ELECTION', seq: 0, eid: `${self}-h${n}`, list: [self] };
    return [offer('elect', `Start an election: ELECTION([${self}]) to ${to}`, [send(to, start)])];
  },
  // 001, on detection: a new election (the epoch after the newest she knows) with Elect(i).
  'ring-active-list'({ self, to, c }) {
    if (to === null) return [];
    return [
      offer('elect', `Start an election: Elect(${self}) to ${to}`, [
        send(to, { type: 'ELECT', seq: 0, id: self, epoch: c.epoch + 1 }),
      ]),
    ];
  },
  emergent({ everyone }) {
    return [
      offer(
        'candidate',
        'Stand as candidate: CANDIDATE to everyone',
        everyone({ type: 'CANDIDATE' }),
      ),
      offer('master', 'Act as master: MASTER_HEARTBEAT to everyone', [
        { kind: 'declare' },
        ...everyone({ type: 'MASTER_HEARTBEAT' }),
      ]),
      // 003, "Operation ii": an idle that sees fewer than poolMin slaves joins the pool; a slave
      // heartbeats every interval to stay in it, and leaves when it sees more than poolMax.
      offer(
        'pool-beat',
        'Slave heartbeat (join or stay in the pool): SLAVE_HEARTBEAT to everyone',
        everyone({ type: 'SLAVE_HEARTBEAT' }),
      ),
      offer(
        'pool-leave',
        'Leave the slave pool: SLAVE_LEAVE to everyone',
        everyone({ type: 'SLAVE_LEAVE' }),
      ),
    ];
  },
  // §5.2: "a follower increments its current term and transitions to candidate state".
  raft({ c, everyone }) {
    const term = c.term + 1;
    return [
      offer(
        'vote',
        `Stand for term ${term}: REQUEST_VOTE to everyone`,
        everyone({ type: 'REQUEST_VOTE', term }),
      ),
    ];
  },
};
