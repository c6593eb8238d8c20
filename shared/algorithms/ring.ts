// The ring algorithm (002, "A Ring Algorithm"), a pure state machine.
//
// "P thinks the coordinator has crashed; builds an ELECTION message which contains its own ID
// number. Sends to first live successor. Each process adds its own number and forwards to next.
// OK to have two elections at once. When the message returns to p, it sees its own process ID
// in the list and knows that the circuit is complete. P circulates a COORDINATOR message with
// the new high number." Hops are acknowledged and dead successors skipped (ring-forwarding.ts).
//
// Termination guards, for an initiator that dies mid-election:
// - ELECTION ends at the first process that finds its own id in the list. That is the initiator
//   when it is alive; otherwise the next process round, which then circulates the result.
// - COORDINATOR ends at the process that started it (`origin`), and any process passes a given
//   election's COORDINATOR on at most once, so it stops one hop after a dead origin.
//
// Late ACKs and duplicates (beyond 002, which assumes every hop is acknowledged within UB): an
// ACK that arrives after UB makes the sender skip a successor that did get the message, so two
// copies of one election travel on; a relay may also deliver a message twice. Unchecked, every
// copy is forwarded and every late ACK downstream forks it again: exponential growth. So:
// - each process passes a given election's ELECTION on at most once (the election is `eid`);
//   later copies are only acknowledged. Its COORDINATOR is passed on at most once per result.
// - two copies can both come back, to different processes in the list, one list missing an id
//   the other has: two COORDINATORs of one election. The higher result wins: a process that
//   passed on a lower one takes the higher and passes it on too (at most once per result).
// - a process whose id was left out of the list (a copy that skipped it won the race) learns
//   of it from the COORDINATOR: a winner below itself. 002's rule "the process with the highest
//   ID number will be the new coordinator" is then broken, so it passes the COORDINATOR on (the
//   others close that election) and holds a new election, unless one of its own is under way.
import { defineAlgorithm, type Counted } from './define.ts';
import { RING_SCHEMAS } from './ring-messages.ts';
import {
  type Algorithm,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type Effect,
  type ProcessId,
  type Report,
  type StepContext,
} from './algorithm.ts';
import {
  detectorMessage,
  detectorTimer,
  isDetectorMessage,
  isDetectorTimer,
  type DetectorMessage,
  type DetectorSetup,
  type DetectorState,
  DETECTOR_OFF,
} from './failure-detector.ts';
import {
  ackTimeout,
  createForwarder,
  forgetDown,
  forward,
  isAckTimer,
  liveSuccessor,
  onRing,
  receiveAck,
  receiveHop,
  revive,
  type AckMessage,
  type Forwarder,
  type ForwardStep,
  type Unsent,
} from './ring-forwarding.ts';
import {
  detectorSetup,
  observationCallsElection,
  pauseDetector,
  settleGrace,
  watchCoordinator,
  watchdogDelay,
  WATCHDOG_TIMER,
} from './ring-detection.ts';

type ElectionMessage = { type: 'ELECTION'; seq: number; eid: string; list: ProcessId[] };
type CoordinatorMessage = {
  type: 'COORDINATOR';
  seq: number;
  eid: string;
  coordinator: ProcessId;
  origin: ProcessId;
};
type Hop = ElectionMessage | CoordinatorMessage;
export type RingMessage = Hop | AckMessage | DetectorMessage;

export interface RingState extends Counted {
  self: ProcessId;
  setup: DetectorSetup;
  watchdog: number;
  /** Extra wait for the coordinator's first heartbeat after an election (ring-detection.ts). */
  grace: number;
  coordinator: ProcessId | null;
  /** Elections (ids) this process joined whose COORDINATOR it has not seen yet. */
  open: string[];
  /** Elections whose COORDINATOR it already passed on, with the result (the guard; only the last few kept). */
  done: { eid: string; coordinator: ProcessId }[];
  /** Elections whose ELECTION it already passed on or started (forwarded at most once; last few kept). */
  passed: string[];
  /** The ids collected by the last ELECTION it saw. */
  activeList: ProcessId[];
  fwd: Forwarder<Hop>;
  detector: DetectorState;
  /** The coordinator the detector was last set to watch; null while an election pauses it. */
  watched: ProcessId | null;
}

type Out = { state: RingState; effects: Effect<RingMessage>[] };
const DONE_KEPT = 32;
/** Enough for every process of a large lab to hold an election at once, and then some. */
const PASSED_KEPT = 128;

function init(config: AlgorithmConfig, ctx: StepContext): Out {
  const state: RingState = {
    self: config.self,
    setup: detectorSetup(config),
    watchdog: watchdogDelay(config),
    grace: settleGrace(config),
    coordinator: null,
    open: [],
    done: [],
    passed: [],
    activeList: [],
    fwd: createForwarder<Hop>(config.ring, config.self, config.timing),
    detector: DETECTOR_OFF,
    watched: null,
  };
  // 002: "Elections may be needed when the system is initialized"; a restarted process holds one.
  if (config.initialCoordinator === undefined || config.initialCoordinator === null)
    return startElection(state, ctx);
  return settle({ ...state, coordinator: config.initialCoordinator }, [], 0);
}

function step(s: RingState, event: AlgorithmEvent<RingMessage>, ctx: StepContext): Out {
  switch (event.kind) {
    case 'elect':
      return startElection(s, ctx);
    case 'timer':
      if (isAckTimer(event.name)) return afterForward(s, ackTimeout(s.fwd, event.name), []);
      if (isDetectorTimer(event.name)) {
        const d = detectorTimer<RingMessage>(s.setup, s.detector, event.name);
        const next = { ...s, detector: d.state };
        if (observationCallsElection(d.observed, s.coordinator, electing(s)))
          return withEffects(startElection(next, ctx), d.effects);
        return { state: next, effects: d.effects };
      }
      // The watchdog: an election here never ended (a message or its initiator was lost).
      if (event.name === WATCHDOG_TIMER && electing(s))
        return startElection({ ...s, open: [] }, ctx);
      return { state: s, effects: [] };
    case 'message':
      return onMessage(s, event.from, event.message, ctx);
  }
}

function onMessage(s: RingState, from: ProcessId, m: RingMessage, ctx: StepContext): Out {
  if (m.type === 'ACK') return afterForward(s, receiveAck(s.fwd, from, m.seq), []);
  if (isDetectorMessage(m)) {
    const d = detectorMessage<RingMessage>(s.setup, s.detector, from, m);
    const next = { ...s, detector: d.state, fwd: revive(s.fwd, [from]) };
    if (observationCallsElection(d.observed, s.coordinator, electing(s)))
      return withEffects(startElection(next, ctx), d.effects);
    return { state: next, effects: d.effects };
  }
  const acked = receiveHop(s.fwd, from, m.seq);
  const s1 = { ...s, fwd: acked.forwarder };
  const out = m.type === 'ELECTION' ? onElection(s1, m) : onCoordinator(s1, m, ctx);
  return withEffects(out, acked.effects);
}

/** 002: "builds an ELECTION message which contains its own ID number. Sends to first live successor." */
function startElection(s: RingState, ctx: StepContext): Out {
  const eid = `${s.self}-${Math.floor(ctx.random() * 1e9)}`;
  return join({ ...s, activeList: [s.self] }, { type: 'ELECTION', eid, list: [s.self] });
}

function onElection(s: RingState, m: ElectionMessage): Out {
  // A second copy of an election already over here (a resend after a lost ACK).
  if (s.done.some((d) => d.eid === m.eid)) return { state: s, effects: [] };
  const seen = { ...s, fwd: revive(s.fwd, m.list) };
  // 002: "When the message returns to p, it sees its own process ID in the list."
  if (m.list.includes(s.self)) return complete(seen, m.eid, m.list);
  // Passed on already: a copy made by a late ACK or a duplicating link. Forwarding it too would
  // fork the election again at every late ACK downstream.
  if (s.passed.includes(m.eid)) return { state: seen, effects: [] };
  // 002: "Each process adds its own number and forwards to next."
  const list = [...m.list, s.self];
  return join({ ...seen, activeList: list }, { type: 'ELECTION', eid: m.eid, list });
}

/**
 * Take part in an election and pass its ELECTION on. The first election of an episode (none
 * open here before) stops the detector, arms the watchdog once (later elections do not push it
 * back, or stale ones could keep this process electing forever) and retries skipped successors.
 */
function join(s0: RingState, election: Unsent<ElectionMessage>): Out {
  const s = { ...s0, passed: remember(s0.passed, election.eid, PASSED_KEPT) };
  const open = s.open.includes(election.eid) ? s.open : [...s.open, election.eid];
  if (electing(s)) return afterForward({ ...s, open }, forward(s.fwd, election), []);
  const paused = pauseDetector<RingMessage>(s.setup, s.detector);
  const fwd = forgetDown(s.fwd);
  const effects: Effect<RingMessage>[] = [
    ...paused.effects,
    { kind: 'set-timer', name: WATCHDOG_TIMER, after: s.watchdog },
  ];
  return afterForward(
    { ...s, open, fwd, detector: paused.detector, watched: null },
    forward(fwd, election),
    effects,
  );
}

/** 002: "P circulates a COORDINATOR message with the new high number." */
function complete(s: RingState, eid: string, list: ProcessId[]): Out {
  const winner = Math.max(...list);
  const next: RingState = {
    ...s,
    activeList: list,
    coordinator: winner,
    open: s.open.filter((e) => e !== eid),
    done: passedOn(s.done, eid, winner),
  };
  const sent = forward(next.fwd, { type: 'COORDINATOR', eid, coordinator: winner, origin: s.self });
  // Stranded: nobody else is up, so there is nobody to tell.
  return afterForward(next, { ...sent, stranded: [] }, []);
}

function onCoordinator(s: RingState, m: CoordinatorMessage, ctx: StepContext): Out {
  const closed = { ...s, open: s.open.filter((e) => e !== m.eid) };
  // Back at its origin: every live process has it. Already passed on: its origin died.
  // Passed on already (its origin died, or a copy), unless this one names a higher result.
  const before = s.done.find((d) => d.eid === m.eid);
  if (m.origin === s.self || (before && before.coordinator >= m.coordinator))
    return settle(closed, []);
  const next: RingState = {
    ...closed,
    coordinator: m.coordinator,
    done: passedOn(s.done, m.eid, m.coordinator),
  };
  const sent = forward(next.fwd, {
    type: 'COORDINATOR',
    eid: m.eid,
    coordinator: m.coordinator,
    origin: m.origin,
  });
  const passed = afterForward(next, { ...sent, stranded: [] }, []);
  // A winner below this live process: the list that completed had skipped it (see the header).
  if (m.coordinator >= s.self || holdsOwn(passed.state)) return passed;
  return withEffects(startElection(passed.state, ctx), passed.effects);
}

/** Apply a forwarder step; a stranded ELECTION means this process is alone: the circuit is complete. */
function afterForward(s: RingState, out: ForwardStep<Hop>, before: Effect<RingMessage>[]): Out {
  let state: RingState = { ...s, fwd: out.forwarder };
  let effects: Effect<RingMessage>[] = [...before, ...out.effects];
  for (const m of out.stranded) {
    if (m.type !== 'ELECTION') continue;
    const list = m.list.includes(s.self) ? m.list : [...m.list, s.self];
    const done = complete(state, m.eid, list);
    state = done.state;
    effects = [...effects, ...done.effects];
  }
  return settle(state, effects);
}

/** When no election is open any more, stop the watchdog and watch the coordinator. */
function settle(s: RingState, effects: Effect<RingMessage>[], grace = s.grace): Out {
  if (electing(s) || s.coordinator === null || s.watched === s.coordinator)
    return { state: s, effects };
  const w = watchCoordinator<RingMessage>(s.setup, s.self, s.coordinator, grace);
  const watching = { ...s, detector: w.detector, watched: s.coordinator };
  return {
    state: watching,
    effects: [...effects, { kind: 'cancel-timer', name: WATCHDOG_TIMER }, ...w.effects],
  };
}

function electing(s: RingState): boolean {
  return s.open.length > 0;
}

/** An election this process started is still open here. */
function holdsOwn(s: RingState): boolean {
  return s.open.some((e) => e.startsWith(`${s.self}-`));
}

function remember(seen: string[], eid: string, kept: number): string[] {
  return seen.includes(eid) ? seen : [...seen, eid].slice(-kept);
}

function passedOn(done: RingState['done'], eid: string, coordinator: ProcessId): RingState['done'] {
  return [...done.filter((d) => d.eid !== eid), { eid, coordinator }].slice(-DONE_KEPT);
}

function withEffects(out: Out, first: Effect<RingMessage>[]): Out {
  return first.length === 0 ? out : { state: out.state, effects: [...first, ...out.effects] };
}

function report(s: RingState): Report {
  const isElecting = electing(s);
  return {
    role: isElecting
      ? holdsOwn(s)
        ? 'initiator'
        : 'participant'
      : s.coordinator === s.self
        ? 'coordinator'
        : 'follower',
    coordinator: s.coordinator,
    electing: isElecting,
    activeList: s.activeList,
    successor: liveSuccessor(s.fwd),
  };
}

export const ring: Algorithm<RingState, RingMessage> = defineAlgorithm<RingState, RingMessage>({
  name: 'ring',
  messages: RING_SCHEMAS,
  // Ids in an ELECTION's list and a COORDINATOR must be on this ring.
  accepts: (s, m) =>
    m.type === 'ELECTION'
      ? m.list.every((id) => onRing(s.fwd, id))
      : m.type === 'COORDINATOR'
        ? onRing(s.fwd, m.coordinator) && onRing(s.fwd, m.origin)
        : true,
  init,
  step,
  report,
});
