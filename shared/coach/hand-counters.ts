// Her books in hand mode, as pure folds: what her counters (hand-kit.ts's HandCounters) learn
// from a message she received or a step she took, and how her report follows a step. The runner
// (hand-runner.ts) carries them out; nothing here reads a clock or sends.
import type {
  AlgorithmConfig,
  AlgorithmName,
  Message,
  ProcessId,
  Report,
} from '../algorithms/algorithm.ts';
import { composed, successorChoices, type HandCounters, type HandStep } from './hand-kit.ts';

/** Her books as she starts: no election yet, her successor the first choice. */
export function startCounters(config: AlgorithmConfig | null): HandCounters {
  return {
    elections: 0,
    successor: config ? (successorChoices(config)[0] ?? null) : null,
    activeList: [],
    epoch: 0,
    joined: 0,
    told: null,
    forwarded: [],
    term: 0,
  };
}

/**
 * The active-list ring's bookkeeping for an Elect she received or sent (`own`: her own Elect).
 * 001: a newer election (epoch) starts a new active list, since the last one's ids may be dead.
 */
export function seeElect(
  c: HandCounters,
  id: ProcessId,
  epoch: number,
  own: boolean,
): HandCounters {
  const newer = epoch > c.epoch;
  const list = newer ? [] : c.activeList;
  return {
    ...c,
    epoch: Math.max(c.epoch, epoch),
    joined: own ? Math.max(c.joined, epoch) : c.joined,
    told: newer ? null : c.told,
    forwarded: newer ? [] : c.forwarded,
    activeList: own || list.includes(id) ? list : [...list, id],
  };
}

/**
 * Her own send in the active-list ring, in her counters: Elected(x) in this epoch (Elects of
 * higher ids waiting for her now carry the correction); Elect(j) forwarded in this epoch (copies
 * of it still waiting are only to be acknowledged).
 */
export function sentInRing(c: HandCounters, m: Message, self: ProcessId): HandCounters {
  if (m.epoch !== c.epoch) return c;
  if (
    m.type === 'ELECTED' &&
    typeof m.coordinator === 'number' &&
    (c.told === null || c.told < m.coordinator)
  )
    return { ...c, told: m.coordinator };
  if (
    m.type === 'ELECT' &&
    typeof m.id === 'number' &&
    m.id !== self &&
    !c.forwarded.includes(m.id)
  )
    return { ...c, forwarded: [...c.forwarded, m.id] };
  return c;
}

/** Raft: the newest term in a message she received or sent is her term from now on. */
export function seeTerm(algorithm: string, c: HandCounters, m: Message): HandCounters {
  const raft =
    algorithm === 'raft' &&
    typeof m.term === 'number' &&
    Number.isFinite(m.term) &&
    m.term > c.term;
  return raft ? { ...c, term: m.term as number } : c;
}

/**
 * A message she received. Her counters learn only from a message that fits the algorithm's
 * schemas, as the reference does: a peer's epoch or term of 2.5 would otherwise name one no
 * message can carry, and her "Start an election" or "Stand for term" move would vanish.
 */
export function heard(algorithm: AlgorithmName, c: HandCounters, m: Message): HandCounters {
  if (!composed(algorithm, m)) return c;
  const elect =
    m.type === 'ELECT' && typeof m.id === 'number'
      ? seeElect(c, m.id, typeof m.epoch === 'number' ? m.epoch : 0, false)
      : c;
  return seeTerm(algorithm, elect, m);
}

/**
 * Her own send. Her own Elect joins the election it carries on the wire: the coach gives her the
 * reference's numbers when she sends what it would (her start election knows no epoch yet: 0),
 * and the ring answers what it received, not what the offer said.
 */
export function sent(
  algorithm: string,
  c: HandCounters,
  m: Message,
  self: ProcessId,
): HandCounters {
  const own =
    m.type === 'ELECT' && m.id === self && typeof m.epoch === 'number'
      ? seeElect(c, m.id, m.epoch, true)
      : c;
  return seeTerm(algorithm, sentInRing(own, m, self), m);
}

const ELECTING_TYPES = new Set(['ELECTION', 'ELECT', 'REQUEST_VOTE', 'CANDIDATE']);

/** Her report after a step of hers (a compute, an accept and a timer leave it alone). */
export function reportAfter(
  algorithm: string,
  report: Report,
  step: HandStep,
  self: ProcessId,
): Report {
  if (step.kind === 'declare') return { role: 'coordinator', coordinator: self, electing: false };
  if (step.kind === 'believe')
    return { role: 'follower', coordinator: step.coordinator, electing: false };
  if (step.kind !== 'send') return report;
  const type = step.message.type;
  // In a ring, passing an election on makes her a participant (the reference's role name).
  const ring = algorithm === 'ring' || algorithm === 'ring-active-list';
  if (ELECTING_TYPES.has(type) && !report.electing)
    return { ...report, electing: true, role: ring ? 'participant' : 'electing' };
  // 003: the dashboard counts the slave pool by role.
  if (type === 'SLAVE_HEARTBEAT' && report.role !== 'slave' && !report.electing)
    return { ...report, role: 'slave' };
  if (type === 'SLAVE_LEAVE' && report.role === 'slave') return { ...report, role: 'idle' };
  return report;
}
