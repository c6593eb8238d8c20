// The Bully algorithm (Garcia-Molina 1982) as the seed documents teach it:
// 000 (lecture notes, Figure 6-20), 002 (Module 3: analysis and message counts), 003 (Elections).
//
// Rules, with the sentence each one follows:
// - Start an election: ELECTION to every higher id, then wait UB = 2T + M for an OK
//   (003: "It sends an election message to all machines with a higher ID ... If no reply is
//   received during a time-out period – 2*(transit time) + (processing time) it sends a
//   coordinator message to all processes with a lower ID"). With no higher id it wins at once
//   (000, pseudocode, translated: "if p has the highest possible id it declares itself leader
//   and announces its id to every process with a lower id").
// - An OK means "a bigger one takes over": wait for COORDINATOR, and hold a new election if it
//   does not come in time (003: "it sets a time out on the wait for the coordinator message and
//   if it does not materialise will start a new election").
// - ELECTION from a lower id: answer OK, hold an election "unless it is already holding one"
//   (000, 003). Waiting for COORDINATOR still counts as holding one: the election has not ended.
// - COORDINATOR from a higher id: believe it. From a lower id: hold a new election
//   (000: "if P receives a victory message from a process with a lower ID number, it
//   immediately initiates a new election"); if already holding one, that election will end in a
//   COORDINATOR that bullies the lower one anyway, so it is not restarted.
// - A process holds an election on start and on restart (003); a steady start
//   (initialCoordinator) believes the given coordinator instead.
// - Failure detection is shared/algorithms/failure-detector.ts; here only what its observations mean.
//
// Late answers (beyond the documents, whose timeouts assume every message within T): on links
// or processes slower than UB an OK arrives after its timeout, so its receiver declares itself
// too early; and ELECTIONs of an election already over reach processes that have settled, each
// of which holds an election of its own (000: "The receiver then holds an election"), whose
// ELECTIONs arrive late in turn; and the highest process re-announces itself to every lower id
// for every ELECTION it gets. That multiplies without end. These rules bound it and leave the
// documents' runs, and counts, as they were (no coordinator or settled process receives an
// ELECTION there, every process holds one election, and no timeout fires early):
// - Terms. Every ELECTION, OK and COORDINATOR carries a term: an election held for a reason of
//   the process's own (start, `elect`, a detector, a timeout, a lower COORDINATOR) opens the
//   highest term it knows + 1; one held because of an ELECTION from below keeps that ELECTION's
//   term. Every process keeps the highest term it has seen. A process holds at most one election
//   per term: a settled process that gets an ELECTION of a term it has held one in answers OK
//   and holds nothing (its election ended with a COORDINATOR, which the ELECTION's sender gets
//   as well; a sender that never gets one times out and opens a newer term).
// - Within one term the highest declared id wins: a follower ignores a COORDINATOR from an id
//   below its coordinator unless it is of a newer term (its sender declared because an OK was
//   late, and the higher one's COORDINATOR got here first).
// - A coordinator answers an ELECTION with OK and a COORDINATOR to its sender only: an
//   election it held would end with itself (a higher process that came back holds its own).
// - A follower whose detector (heartbeat or poll) vouches for its coordinator, above it,
//   answers OK only: the ELECTION went to the coordinator too, which answers it; if the
//   coordinator is in fact gone, the detector says so soon and the follower elects then.
// - An OK arriving after its timeout doubles this process's two election timeouts, up to
//   BACKOFF_CAP times the derived ones: the links are slower than the lab declares.
import { BULLY_SCHEMAS } from './bully-messages.ts';
import { defineAlgorithm, type Counted } from './define.ts';
import {
  roundTripBound,
  type Algorithm,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type Effect,
  type ProcessId,
  type Report,
  type Step,
  type Timing,
} from './algorithm.ts';
import {
  DETECTOR_OFF,
  detectorMessage,
  detectorTimer,
  follow,
  isDetectorMessage,
  isDetectorTimer,
  lead,
  stopDetector,
  type DetectorMessage,
  type DetectorSetup,
  type DetectorState,
  type DetectorStep,
} from './failure-detector.ts';

/**
 * `election` numbers a process's own elections so an OK answers the election it was meant for.
 * `term`: see the header (absent in a message from elsewhere: no term known, the documents' rules).
 */
export type BullyMessage =
  | { type: 'ELECTION'; election: number; term?: number }
  | { type: 'OK'; election: number; term?: number }
  | { type: 'COORDINATOR'; term?: number }
  | DetectorMessage;

/** follower/coordinator: settled. electing: awaiting OKs. waiting: got an OK, awaiting COORDINATOR. */
type BullyRole = 'follower' | 'coordinator' | 'electing' | 'waiting';

export interface BullyState extends Counted {
  self: ProcessId;
  higher: readonly ProcessId[];
  lower: readonly ProcessId[];
  okTimeout: number;
  coordinatorTimeout: number;
  /** The OK timeout derived from the lab's timing, before late OKs lengthened both. */
  baseOkTimeout: number;
  fdSetup: DetectorSetup;
  role: BullyRole;
  coordinator: ProcessId | null;
  /** How many elections this process has held; the current one's number. */
  elections: number;
  /** The highest term seen; the term of the last election held (0: none); the term of the COORDINATOR believed. */
  term: number;
  heldTerm: number;
  coordinatorTerm: number;
  fd: DetectorState;
}

export const TIMER_OK = 'ok-timeout';
export const TIMER_COORDINATOR = 'coordinator-timeout';

/**
 * How long to wait for OKs and then for COORDINATOR. OK: UB = 2T + M (000, 002, 003).
 * COORDINATOR: every live higher process got our ELECTION within T + M of our send (it went to
 * all of them at once), so the highest live one declares within another UB and its COORDINATOR
 * lands within T + M more: 4T + 3M after our send, which precedes the first OK. One T on top
 * keeps the timer clear of a COORDINATOR arriving at the bound itself: 2·UB + T + M = 5T + 3M.
 * Options `okTimeout` / `coordinatorTimeout` (ms) override both for experiments.
 */
export function bullyTimeouts(timing: Timing, options?: Readonly<Record<string, unknown>>) {
  const ub = roundTripBound(timing);
  return {
    okTimeout: positive(options?.okTimeout) ?? ub,
    coordinatorTimeout:
      positive(options?.coordinatorTimeout) ?? 2 * ub + timing.transmission + timing.processing,
  };
}

function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}

type Out = Step<BullyState, BullyMessage>;
type Fx = Effect<BullyMessage>[];

const holding = (s: BullyState) => s.role === 'electing' || s.role === 'waiting';
const BACKOFF_CAP = 8;

/** The detector follows a coordinator above this process and has not suspected it. */
const vouched = (s: BullyState) =>
  s.role === 'follower' &&
  s.fd.role === 'follow' &&
  s.coordinator !== null &&
  s.fd.leader === s.coordinator &&
  s.coordinator > s.self;

const seen = (s: BullyState, term: number | undefined): BullyState =>
  term !== undefined && term > s.term ? { ...s, term } : s;

/** An OK came after its timeout: round trips take longer than UB here. */
function slower(s: BullyState): BullyState {
  if (s.okTimeout >= BACKOFF_CAP * s.baseOkTimeout) return s;
  return { ...s, okTimeout: 2 * s.okTimeout, coordinatorTimeout: 2 * s.coordinatorTimeout };
}

function withDetector(s: BullyState, fx: Fx, d: DetectorStep<BullyMessage>): BullyState {
  fx.push(...d.effects);
  return d.state === s.fd ? s : { ...s, fd: d.state };
}

/** Hold an election: in `term` when an ELECTION from below set it off, else in a new term. */
function startElection(s0: BullyState, fx: Fx, term = s0.term + 1): BullyState {
  let s: BullyState = {
    ...s0,
    elections: s0.elections + 1,
    coordinator: null,
    term: Math.max(s0.term, term),
    heldTerm: term,
  };
  s = withDetector(s, fx, stopDetector(s.fdSetup, s.fd));
  fx.push({ kind: 'cancel-timer', name: TIMER_COORDINATOR });
  if (s.higher.length === 0) return becomeCoordinator(s, fx);
  for (const to of s.higher)
    fx.push({ kind: 'send', to, message: { type: 'ELECTION', election: s.elections, term } });
  fx.push({ kind: 'set-timer', name: TIMER_OK, after: s.okTimeout });
  return { ...s, role: 'electing' };
}

function becomeCoordinator(s0: BullyState, fx: Fx): BullyState {
  fx.push(
    { kind: 'cancel-timer', name: TIMER_OK },
    { kind: 'cancel-timer', name: TIMER_COORDINATOR },
  );
  // COORDINATOR goes to lower ids only: the higher ones are down, or they would have answered.
  for (const to of s0.lower)
    fx.push({ kind: 'send', to, message: { type: 'COORDINATOR', term: s0.term } });
  const s: BullyState = {
    ...s0,
    role: 'coordinator',
    coordinator: s0.self,
    coordinatorTerm: s0.term,
  };
  return withDetector(s, fx, lead(s.fdSetup));
}

function accept(s0: BullyState, x: ProcessId, term: number, fx: Fx): BullyState {
  fx.push(
    { kind: 'cancel-timer', name: TIMER_OK },
    { kind: 'cancel-timer', name: TIMER_COORDINATOR },
  );
  const s: BullyState = { ...s0, role: 'follower', coordinator: x, coordinatorTerm: term };
  return withDetector(s, fx, follow(s.fdSetup, x));
}

function onMessage(s: BullyState, from: ProcessId, m: BullyMessage, fx: Fx): BullyState {
  if (isDetectorMessage(m)) {
    const d = detectorMessage<BullyMessage>(s.fdSetup, s.fd, from, m);
    const next = withDetector(s, fx, d);
    return d.observed.kind === 'leader-seen' ? onLeaderSeen(next, d.observed.id, fx) : next;
  }
  const s1 = seen(s, m.term);
  switch (m.type) {
    case 'ELECTION':
      if (from > s.self) return s; // ELECTION only ever goes up; ignore a malformed one
      fx.push({
        kind: 'send',
        to: from,
        message: { type: 'OK', election: m.election, term: s1.term },
      });
      return onElection(s1, from, m.term, fx);
    case 'OK':
      if (from < s.self) return s;
      // Late: its timeout fired before it came, so this process declared itself (see the header).
      if (m.election === s.elections && s.role === 'coordinator') return slower(s1);
      if (s.role !== 'electing' || m.election !== s.elections) return s1;
      fx.push(
        { kind: 'cancel-timer', name: TIMER_OK },
        { kind: 'set-timer', name: TIMER_COORDINATOR, after: s.coordinatorTimeout },
      );
      return { ...s1, role: 'waiting' };
    case 'COORDINATOR': {
      if (from < s.self) return holding(s1) ? s1 : startElection(s1, fx);
      const term = m.term ?? s1.term;
      // A lower declaration of an election whose higher winner is believed already: its OK was late.
      const stale =
        m.term !== undefined &&
        s.coordinator !== null &&
        from < s.coordinator &&
        m.term <= s.coordinatorTerm;
      return from > s.self && !stale ? accept(s1, from, term, fx) : s1;
    }
  }
}

/** ELECTION from a lower id, answered OK already: hold an election "unless it is already holding one" (and the header's rules). */
function onElection(s: BullyState, from: ProcessId, term: number | undefined, fx: Fx): BullyState {
  if (holding(s)) return s;
  if (s.role === 'coordinator') {
    fx.push({ kind: 'send', to: from, message: { type: 'COORDINATOR', term: s.term } });
    return s;
  }
  if (vouched(s) || (term !== undefined && term <= s.heldTerm)) return s;
  return startElection(s, fx, term);
}

/** Someone other than our coordinator acts as leader (003: "Other machines have to decide which one to believe. The one with the highest ID"). */
function onLeaderSeen(s: BullyState, x: ProcessId, fx: Fx): BullyState {
  if (holding(s) || x === s.coordinator) return s;
  if (s.role === 'coordinator' && x < s.self) {
    fx.push({ kind: 'send', to: x, message: { type: 'COORDINATOR', term: s.term } });
    return s;
  }
  // A higher rival, or one above the coordinator we follow: let an election sort it out.
  if (s.coordinator === null || x > s.coordinator) return startElection(s, fx);
  return s; // below our coordinator: our coordinator bullies it when their heartbeats or polls meet
}

function onTimer(s: BullyState, name: string, fx: Fx): BullyState {
  if (isDetectorTimer(name)) {
    const d = detectorTimer<BullyMessage>(s.fdSetup, s.fd, name);
    const next = withDetector(s, fx, d);
    return d.observed.kind === 'suspect' && !holding(next) ? startElection(next, fx) : next;
  }
  if (name === TIMER_OK && s.role === 'electing') return becomeCoordinator(s, fx);
  if (name === TIMER_COORDINATOR && s.role === 'waiting') return startElection(s, fx);
  return s;
}

function init(config: AlgorithmConfig): Out {
  const { self, ids, timing } = config;
  const mode = config.detector;
  const higher = ids.filter((id) => id > self);
  const { okTimeout, coordinatorTimeout } = bullyTimeouts(timing, config.options);
  const base: BullyState = {
    self,
    higher,
    lower: ids.filter((id) => id < self),
    okTimeout,
    coordinatorTimeout,
    baseOkTimeout: okTimeout,
    fdSetup: { mode, timing, peers: ids.filter((id) => id !== self), probes: higher },
    role: 'follower',
    coordinator: null,
    elections: 0,
    term: 0,
    heldTerm: 0,
    coordinatorTerm: 0,
    fd: DETECTOR_OFF,
  };
  const fx: Fx = [];
  const c = config.initialCoordinator;
  if (c === undefined || c === null) return { state: startElection(base, fx), effects: fx };
  if (c === self) {
    // Steady start: the coordinator already known to all, so no COORDINATOR broadcast.
    const s: BullyState = { ...base, role: 'coordinator', coordinator: self };
    return { state: withDetector(s, fx, lead(s.fdSetup)), effects: fx };
  }
  const s: BullyState = { ...base, coordinator: c };
  return { state: withDetector(s, fx, follow(s.fdSetup, c)), effects: fx };
}

function step(s: BullyState, event: AlgorithmEvent<BullyMessage>): Out {
  const fx: Fx = [];
  let next: BullyState;
  if (event.kind === 'elect')
    next = startElection(s, fx); // the instructor or an outside detector: always
  else if (event.kind === 'timer') next = onTimer(s, event.name, fx);
  else next = onMessage(s, event.from, event.message, fx);
  return { state: next, effects: fx };
}

function report(s: BullyState): Report {
  return {
    role: s.role,
    coordinator: s.coordinator,
    electing: holding(s),
    detail: { elections: s.elections },
  };
}

export const bully: Algorithm<BullyState, BullyMessage> = defineAlgorithm<BullyState, BullyMessage>(
  {
    name: 'bully',
    messages: BULLY_SCHEMAS,
    init,
    step,
    report,
  },
);
