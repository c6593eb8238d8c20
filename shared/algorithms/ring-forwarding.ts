// Hop-by-hop forwarding around a logical ring, shared by both ring algorithms.
//
// 002: "Processes are able to 'skip' faulty systems: instead of sending to process j, send to
// j + 1. Faulty systems are those that don't respond in a fixed amount of time." Every ring hop
// is therefore acknowledged: the sender waits UB = 2T + M (000, 002) for an ACK and, when none
// comes, marks that successor down and re-sends every hop still waiting on it, in the original
// order, to the next successor. 001's "the message continues around the ring even if a process
// along the way has crashed" is this rule.
//
// Down successors are remembered so that later hops of the same election skip them without
// another send (002 counts 2(n-1) messages, not one wasted send per hop). The host clears the
// memory (`forgetDown`) when a new election episode begins, so a process that came back, or a
// partition that healed, is tried again; any message from a process also revives it.
//
// A late ACK (after UB: a slow link or a stalled process, beyond the documents' bounds) still
// proves that the hop was delivered. So a hop remembers every (successor, seq) it was sent
// under, and an ACK to any of them completes it: without that, when most ACKs are late, every
// timeout moves all the hops waiting on a successor on to the next one, round and round, and
// they never complete. The copy the resend made is the host's to drop (it forwards each
// election once). And a process skipped while wrongly thought down would miss what went past
// it (001's Elected(x) is not forwarded; 002's COORDINATOR would not come round to it): so
// each hop sent past a down successor is remembered, and sent to it once it is heard from.
import {
  roundTripBound,
  successorsOf,
  type Effect,
  type Message,
  type ProcessId,
  type Timing,
} from './algorithm.ts';

export type AckMessage = { type: 'ACK'; seq: number };

/** A ring message as the host builds it: the forwarder adds the hop's `seq`. */
export type Unsent<M> = M extends unknown ? Omit<M, 'seq'> : never;

interface Attempt {
  seq: number;
  to: ProcessId;
}

interface PendingHop<M> extends Attempt {
  message: Unsent<M>;
  /** The earlier sends of this hop, to successors that did not ACK within UB (oldest first). */
  earlier: readonly Attempt[];
}

export interface Forwarder<M extends Message> {
  readonly self: ProcessId;
  /** The ring after `self`, in order, wrapping. */
  readonly successors: readonly ProcessId[];
  /** UB = 2T + M, the documents' bound on a round trip. */
  readonly ackBound: number;
  /** How long a hop waits for its ACK: UB, doubled by each late ACK up to MAX_BACKOFF · UB. */
  readonly ackTimeout: number;
  readonly nextSeq: number;
  /** Successors that did not acknowledge within UB, skipped until heard from again. */
  readonly down: readonly ProcessId[];
  /** Hops sent and not yet acknowledged, in send order. */
  readonly pending: readonly PendingHop<M>[];
  /** Hops sent past successors thought down (`past`), owed to each of them once it is up. */
  readonly bypassed: readonly Bypass<M>[];
}

interface Bypass<M> {
  message: Unsent<M>;
  past: readonly ProcessId[];
}

export interface ForwardStep<M extends Message> {
  forwarder: Forwarder<M>;
  effects: Effect<M | AckMessage>[];
  /** Messages that found no live successor at all: this process is alone on the ring. */
  stranded: Unsent<M>[];
}

const ACK_PREFIX = 'ack:';
/** Earlier sends a hop remembers: a late ACK older than this many resends no longer counts. */
const MAX_EARLIER = 16;
/** The ACK wait grows to at most this many UB. */
const MAX_BACKOFF = 8;
/** Bypassed hops kept per successor: older ones belong to elections long over. */
const BYPASS_KEPT_PER_SUCCESSOR = 4;

export function createForwarder<M extends Message>(
  ring: readonly ProcessId[],
  self: ProcessId,
  timing: Timing,
): Forwarder<M> {
  return {
    self,
    successors: successorsOf(ring, self).filter((id) => id !== self),
    ackBound: roundTripBound(timing),
    ackTimeout: roundTripBound(timing),
    nextSeq: 1,
    down: [],
    pending: [],
    bypassed: [],
  };
}

/** The first successor not known to be down; null when every other process is. */
export function liveSuccessor<M extends Message>(f: Forwarder<M>): ProcessId | null {
  return f.successors.find((id) => !f.down.includes(id)) ?? null;
}

/** Send `messages`, in order, to the live successor, each waiting UB for its ACK. */
export function forward<M extends Message>(
  f: Forwarder<M>,
  ...messages: Unsent<M>[]
): ForwardStep<M> {
  const owed = catchUp(f);
  const out = send(
    owed.forwarder,
    messages.map((message) => ({ message, earlier: [] })),
  );
  return { ...out, effects: [...owed.effects, ...out.effects] };
}

function send<M extends Message>(
  f: Forwarder<M>,
  hops: { message: Unsent<M>; earlier: readonly Attempt[] }[],
): ForwardStep<M> {
  let next = f;
  const effects: Effect<M | AckMessage>[] = [];
  const stranded: Unsent<M>[] = [];
  for (const { message, earlier } of hops) {
    const to = liveSuccessor(next);
    if (to === null) {
      stranded.push(message);
      continue;
    }
    const seq = next.nextSeq;
    next = { ...next, nextSeq: seq + 1, pending: [...next.pending, { seq, to, message, earlier }] };
    // Down successors before `to` that this hop was never sent to: it is owed to them.
    const past = next.successors
      .slice(0, next.successors.indexOf(to))
      .filter((id) => !earlier.some((a) => a.to === id));
    if (past.length > 0)
      next = {
        ...next,
        bypassed: [...next.bypassed, { message, past }].slice(
          -BYPASS_KEPT_PER_SUCCESSOR * next.successors.length,
        ),
      };
    effects.push({ kind: 'send', to, message: { ...message, seq } as unknown as M });
    effects.push({ kind: 'set-timer', name: ACK_PREFIX + seq, after: f.ackTimeout });
  }
  return { forwarder: next, effects, stranded };
}

/** The live successor is up again after hops went past it: send them to it now, oldest first. */
function catchUp<M extends Message>(f: Forwarder<M>): ForwardStep<M> {
  const to = liveSuccessor(f);
  if (to === null || !f.bypassed.some((b) => b.past.includes(to)))
    return { forwarder: f, effects: [], stranded: [] };
  const owed = f.bypassed.filter((b) => b.past.includes(to));
  const bypassed = f.bypassed.flatMap((b) => {
    if (!b.past.includes(to)) return [b];
    const past = b.past.filter((id) => id !== to);
    return past.length > 0 ? [{ ...b, past }] : [];
  });
  return send(
    { ...f, bypassed },
    owed.map((b) => ({ message: b.message, earlier: [] })),
  );
}

/** A ring hop arrived: acknowledge it. Its sender is evidently up (and owed what went past it). */
export function receiveHop<M extends Message>(
  f: Forwarder<M>,
  from: ProcessId,
  seq: number,
): ForwardStep<M> {
  const ack: AckMessage = { type: 'ACK', seq };
  const owed = catchUp(revive(f, [from]));
  return {
    forwarder: owed.forwarder,
    effects: [{ kind: 'send', to: from, message: ack }, ...owed.effects],
    stranded: [],
  };
}

/** An ACK arrived, in time or late (to an earlier send of a hop since moved on): that hop is done. */
export function receiveAck<M extends Message>(
  f: Forwarder<M>,
  from: ProcessId,
  seq: number,
): ForwardStep<M> {
  const acks = (a: Attempt) => a.seq === seq && a.to === from;
  const hop = f.pending.find((p) => acks(p) || p.earlier.some(acks));
  const late = !hop || !acks(hop);
  // A late ACK also clears the suspicion that made this process skip `from`, and shows that
  // round trips take longer than UB here: wait twice as long from now on (up to a cap).
  const revived = late ? slower(revive(f, [from])) : revive(f, [from]);
  const done: Effect<M | AckMessage>[] = hop
    ? [{ kind: 'cancel-timer', name: ACK_PREFIX + hop.seq }]
    : [];
  const owed = catchUp(
    hop ? { ...revived, pending: revived.pending.filter((p) => p !== hop) } : revived,
  );
  return { forwarder: owed.forwarder, effects: [...done, ...owed.effects], stranded: [] };
}

function slower<M extends Message>(f: Forwarder<M>): Forwarder<M> {
  const ackTimeout = Math.min(2 * f.ackTimeout, MAX_BACKOFF * f.ackBound);
  return ackTimeout === f.ackTimeout ? f : { ...f, ackTimeout };
}

export function isAckTimer(name: string): boolean {
  return name.startsWith(ACK_PREFIX);
}

/**
 * No ACK within UB: the successor is down. Every hop still waiting on it moves, in send order,
 * to the next successor (per-link FIFO is kept, which 001's example relies on: "P3 sends
 * Elect(3) towards P4 and then sends Elect(2) towards P4").
 */
export function ackTimeout<M extends Message>(f: Forwarder<M>, name: string): ForwardStep<M> {
  const seq = Number(name.slice(ACK_PREFIX.length));
  const hop = f.pending.find((p) => p.seq === seq);
  if (!hop) return { forwarder: f, effects: [], stranded: [] };
  const moved = f.pending.filter((p) => p.to === hop.to);
  const kept: Forwarder<M> = {
    ...f,
    down: f.down.includes(hop.to) ? f.down : [...f.down, hop.to],
    pending: f.pending.filter((p) => p.to !== hop.to),
  };
  const cancels: Effect<M | AckMessage>[] = moved
    .filter((p) => p.seq !== seq)
    .map((p) => ({ kind: 'cancel-timer', name: ACK_PREFIX + p.seq }));
  const out = send(
    kept,
    moved.map((p) => ({
      message: p.message,
      earlier: [...p.earlier, { seq: p.seq, to: p.to }].slice(-MAX_EARLIER),
    })),
  );
  return {
    forwarder: out.forwarder,
    effects: [...cancels, ...out.effects],
    stranded: out.stranded,
  };
}

/** These processes are up after all (a message from them, or their id in a circulating list). */
export function revive<M extends Message>(
  f: Forwarder<M>,
  ids: readonly ProcessId[],
): Forwarder<M> {
  if (!f.down.some((id) => ids.includes(id))) return f;
  return { ...f, down: f.down.filter((id) => !ids.includes(id)) };
}

/** A new election episode: try every successor again; what went past them is stale. Hops in flight keep their targets. */
export function forgetDown<M extends Message>(f: Forwarder<M>): Forwarder<M> {
  return f.down.length === 0 && f.bypassed.length === 0 ? f : { ...f, down: [], bypassed: [] };
}

/** Whether `id` is on the forwarder's ring (self or a successor). */
export function onRing<M extends Message>(f: Forwarder<M>, id: ProcessId): boolean {
  return id === f.self || f.successors.includes(id);
}
