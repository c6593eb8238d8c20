// The active-list ring election (001, "Election In A Ring"), a pure state machine.
//
// "Active list: its info on all active processes, including itself." The rules, as 001 gives
// them for process i:
// - on detection: "Pi sets its active list to [ ]", "sends Elect(i)", "sets active list to [i]";
// - on Elect(j): (a) "this is the first message sent or seen: initialize its active list to
//   [i,j]; send Elect(i) + send Elect(j)"; (b) "if (i != j), add [j] to active list + forward
//   Elect(j) message to the next process"; (c) "otherwise (i = j), so process i has complete set
//   of active processes in its active list => choose highest process ID + send Elected(x)
//   message to neighbor";
// - on Elected(x): "set coordinator to x".
// Rule (b)'s text says "add i", but i is already in the list and the worked example adds j
// ("P2 adds 3 to its active list [2,3]"), so j is added. The list is kept ascending: 001 shows
// P3's list as [2,3] where rule (a)'s [i,j] would read [3,2]; it is a set.
//
// Elected(x) is not forwarded. By rule (a) every live process circulates its own Elect, gets it
// back and applies (c), so each sends one Elected(x) to its live successor and each receives
// exactly one from its live predecessor, as in 001's example (P2 and P3 each send one). That
// is enough for every live process to learn x, and the circulation stops by itself.
import { withReports, type Algorithm, type AlgorithmConfig, type AlgorithmEvent, type Effect, type ProcessId, type Report } from './algorithm.ts';
import { detectorMessage, detectorTimer, isDetectorMessage, isDetectorTimer, DETECTOR_OFF, type DetectorMessage, type DetectorSetup, type DetectorState } from './failure-detector.ts';
import { ackTimeout, createForwarder, forgetDown, forward, isAckTimer, liveSuccessor, receiveAck, receiveHop, revive, type AckMessage, type Forwarder, type ForwardStep, type Unsent } from './ring-forwarding.ts';
import { detectorSetup, observationCallsElection, pauseDetector, watchCoordinator, watchdogDelay, WATCHDOG_TIMER } from './ring-detection.ts';

export type ElectMessage = { type: 'ELECT'; seq: number; id: ProcessId };
export type ElectedMessage = { type: 'ELECTED'; seq: number; coordinator: ProcessId };
type Hop = ElectMessage | ElectedMessage;
export type ActiveListMessage = Hop | AckMessage | DetectorMessage;

export interface ActiveListState {
  self: ProcessId;
  setup: DetectorSetup;
  watchdog: number;
  coordinator: ProcessId | null;
  /** An Elect has been sent or seen in the current election (rule (a) has happened). */
  participating: boolean;
  activeList: ProcessId[];
  /** The x rule (c) chose, until Elected(x) arrives. */
  chosen: ProcessId | null;
  fwd: Forwarder<Hop>;
  detector: DetectorState;
  /** The coordinator the detector was last set to watch; null while an election pauses it. */
  watched: ProcessId | null;
}

type Out = { state: ActiveListState; effects: Effect<ActiveListMessage>[] };

function init(config: AlgorithmConfig): Out {
  const state: ActiveListState = {
    self: config.self,
    setup: detectorSetup(config),
    watchdog: watchdogDelay(config),
    coordinator: null,
    participating: false,
    activeList: [],
    chosen: null,
    fwd: createForwarder<Hop>(config.ring, config.self, config.timing),
    detector: DETECTOR_OFF,
    watched: null,
  };
  // A process that starts without a coordinator (first start or restart) holds an election.
  if (config.initialCoordinator === undefined || config.initialCoordinator === null) return detect(state);
  return settle({ ...state, coordinator: config.initialCoordinator }, []);
}

function step(s: ActiveListState, event: AlgorithmEvent<ActiveListMessage>): Out {
  switch (event.kind) {
    case 'elect':
      return detect(s);
    case 'timer': {
      if (isAckTimer(event.name)) return afterForward(s, ackTimeout(s.fwd, event.name), []);
      if (isDetectorTimer(event.name)) {
        const d = detectorTimer<ActiveListMessage>(s.setup, s.detector, event.name);
        const next = { ...s, detector: d.state };
        if (observationCallsElection(d.observed, s.coordinator, s.participating)) return prepend(detect(next), d.effects);
        return { state: next, effects: d.effects };
      }
      // The watchdog: this election never ended (a message was lost): start over.
      if (event.name === WATCHDOG_TIMER && s.participating) return detect({ ...s, participating: false });
      return { state: s, effects: [] };
    }
    case 'message': {
      const { from, message: m } = event;
      if (m.type === 'ACK') return afterForward(s, receiveAck(s.fwd, from, m.seq), []);
      if (isDetectorMessage(m)) {
        const d = detectorMessage<ActiveListMessage>(s.setup, s.detector, from, m);
        const next = { ...s, detector: d.state, fwd: revive(s.fwd, [from]) };
        if (observationCallsElection(d.observed, s.coordinator, s.participating)) return prepend(detect(next), d.effects);
        return { state: next, effects: d.effects };
      }
      const acked = receiveHop(s.fwd, from, m.seq);
      const s1 = { ...s, fwd: acked.forwarder };
      return prepend(m.type === 'ELECT' ? onElect(s1, m.id) : onElected(s1, m.coordinator), acked.effects);
    }
  }
}

/** 001: "P2 sets its active list to [ ]; P2 sends Elect(2) ...; P2 sets active list to [2]". */
function detect(s: ActiveListState): Out {
  // An Elect of ours is already going round; a second would only duplicate it.
  if (s.participating) return { state: s, effects: [] };
  return participate({ ...s, activeList: [], chosen: null }, [s.self], [{ type: 'ELECT', id: s.self }]);
}

function onElect(s: ActiveListState, j: ProcessId): Out {
  const seen = { ...s, fwd: revive(s.fwd, [j]) };
  if (!seen.participating) {
    // Our own Elect from an election that is already over here: nothing left to do.
    if (j === s.self) return { state: seen, effects: [] };
    // (a) "initialize its active list to [i,j]; send Elect(i) + send Elect(j)".
    return participate(seen, [s.self, j], [{ type: 'ELECT', id: s.self }, { type: 'ELECT', id: j }]);
  }
  if (j !== s.self) {
    // (b) "add [j] to active list + forward Elect(j) message to the next process".
    const next = { ...seen, activeList: addId(seen.activeList, j) };
    return afterForward(next, forward(next.fwd, { type: 'ELECT', id: j }), []);
  }
  // (c) "process i has complete set of active processes ... choose highest process ID + send
  // Elected(x) message to neighbor".
  const x = Math.max(...seen.activeList);
  const next = { ...seen, chosen: x };
  return afterForward(next, forward(next.fwd, { type: 'ELECTED', coordinator: x }), []);
}

/** 001: "If a process receives "Elected(x)" message, set coordinator to x." */
function onElected(s: ActiveListState, x: ProcessId): Out {
  return settle({ ...s, coordinator: x, participating: false, chosen: null }, []);
}

/** The first Elect sent or seen: a new election episode here. */
function participate(s: ActiveListState, list: ProcessId[], sends: Unsent<Hop>[]): Out {
  const paused = pauseDetector<ActiveListMessage>(s.setup, s.detector);
  const next: ActiveListState = {
    ...s,
    participating: true,
    activeList: [...new Set(list)].sort((a, b) => a - b),
    fwd: forgetDown(s.fwd),
    detector: paused.detector,
    watched: null,
  };
  const effects: Effect<ActiveListMessage>[] = [...paused.effects, { kind: 'set-timer', name: WATCHDOG_TIMER, after: s.watchdog }];
  return afterForward(next, forward(next.fwd, ...sends), effects);
}

/**
 * Apply a forwarder step. Stranded means no other process answers: this one is alone, so its
 * own Elect has in effect come back (rule (c)) and its Elected(x) reaches only itself.
 */
function afterForward(s: ActiveListState, out: ForwardStep<Hop>, before: Effect<ActiveListMessage>[]): Out {
  let state: ActiveListState = { ...s, fwd: out.forwarder };
  let effects: Effect<ActiveListMessage>[] = [...before, ...out.effects];
  for (const m of out.stranded) {
    const local = m.type === 'ELECTED' ? onElected(state, m.coordinator) : m.id === s.self && state.participating ? onElect(state, m.id) : null;
    if (!local) continue; // someone else's Elect with nobody left to carry it to
    state = local.state;
    effects = [...effects, ...local.effects];
  }
  return settle(state, effects);
}

/** Outside an election, stop the watchdog and watch the coordinator. */
function settle(s: ActiveListState, effects: Effect<ActiveListMessage>[]): Out {
  if (s.participating || s.coordinator === null || s.watched === s.coordinator) return { state: s, effects };
  const w = watchCoordinator<ActiveListMessage>(s.setup, s.self, s.coordinator);
  const watching = { ...s, detector: w.detector, watched: s.coordinator };
  return { state: watching, effects: [...effects, { kind: 'cancel-timer', name: WATCHDOG_TIMER }, ...w.effects] };
}

function addId(list: ProcessId[], id: ProcessId): ProcessId[] {
  return list.includes(id) ? list : [...list, id].sort((a, b) => a - b);
}

function prepend(out: Out, first: Effect<ActiveListMessage>[]): Out {
  return first.length === 0 ? out : { state: out.state, effects: [...first, ...out.effects] };
}

function report(s: ActiveListState): Report {
  return {
    role: s.participating ? 'participant' : s.coordinator === s.self ? 'coordinator' : 'follower',
    coordinator: s.coordinator,
    electing: s.participating,
    activeList: s.activeList,
    successor: liveSuccessor(s.fwd),
    ...(s.chosen === null ? {} : { detail: { chosen: s.chosen } }),
  };
}

export const ringActiveList: Algorithm<ActiveListState, ActiveListMessage> = withReports<ActiveListState, ActiveListMessage>({
  name: 'ring-active-list',
  messageTypes: ['ELECT', 'ELECTED', 'ACK', 'HEARTBEAT', 'PING', 'PONG'],
  init,
  step,
  report,
});
