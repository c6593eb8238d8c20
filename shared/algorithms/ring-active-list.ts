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
//
// Epochs (not in 001): every Elect and Elected carries the number of the election it belongs
// to. 001's rules have no notion of "which election", and under message loss (resends after a
// lost ACK, watchdog restarts) leftovers of a finished election reach idle processes, which
// rule (a) would take for a new one, round after round. So rules (a)-(c) apply within one
// epoch: a detection opens epoch + 1; an Elect of a newer epoch is "the first message seen"
// (rule (a)); leftovers of the current or an older epoch are dropped. Epoch 0 means "I do not
// know the epoch": a process that starts without a coordinator (first start or restart) uses it.
// An idle process that hears such an Elect holds a fresh election for the newcomer; one taking
// part in an election carries it into its own epoch (ring-active-list-rejoin.ts: when a process
// back up is let in, also by its watchdog's Elect of an older epoch). With reliable links every process is in
// the same epoch and the rules run exactly as 001 writes them.
//
// Late ACKs and duplicates (beyond 001): an ACK that arrives after UB makes the sender skip a
// successor that did get the Elect, and a relay may deliver a message twice, so copies of one
// Elect(j) reach a process. Rule (b) is about a j it learns of ("add [j] to active list"), so it
// forwards Elect(j) only when j was not in its active list yet: each Elect(j) then passes each
// process at most once per epoch, instead of every copy being forwarded and forked again at the
// next late ACK. Rule (c) sends Elected(x) once per epoch. A copy that skipped a process can
// also overtake that process's Elect, so a list can be incomplete when rule (c) applies; the
// late Elect(j) still goes round by rule (b) (also after the epoch is decided here, still once),
// and a process that already sent Elected(x) with x < j sends Elected(j) after it. A process
// told a winner below itself waits for that correction (its own Elect is still on the way),
// or for its watchdog; and one told it by an epoch it never took part in detects anew.
import { defineAlgorithm, type Counted } from './define.ts';
import { ACTIVE_LIST_SCHEMAS } from './ring-active-list-messages.ts';
import {
  type Algorithm,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type Effect,
  type ProcessId,
  type Report,
} from './algorithm.ts';
import {
  detectorMessage,
  detectorTimer,
  isDetectorMessage,
  isDetectorTimer,
  DETECTOR_OFF,
  type DetectorMessage,
  type DetectorSetup,
  type DetectorState,
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
import {
  missedByLastElection,
  restartedMidElection,
  startElectCopy,
  UNKNOWN_EPOCH,
} from './ring-active-list-rejoin.ts';

type ElectMessage = { type: 'ELECT'; seq: number; id: ProcessId; epoch: number };
type ElectedMessage = { type: 'ELECTED'; seq: number; coordinator: ProcessId; epoch: number };
type Hop = ElectMessage | ElectedMessage;
export type ActiveListMessage = Hop | AckMessage | DetectorMessage;

export interface ActiveListState extends Counted {
  self: ProcessId;
  setup: DetectorSetup;
  watchdog: number;
  /** Extra wait for the coordinator's first heartbeat after an election (ring-detection.ts). */
  grace: number;
  coordinator: ProcessId | null;
  /** The election this process takes part in, or last took part in. */
  epoch: number;
  /** An Elect has been sent or seen in this epoch's election and it has not ended here. */
  participating: boolean;
  activeList: ProcessId[];
  /** The x rule (c) chose, until Elected(x) arrives. */
  chosen: ProcessId | null;
  /** The x this process last sent in Elected(x) in this epoch (rule (c) or a correction). */
  told: ProcessId | null;
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
    grace: settleGrace(config),
    coordinator: null,
    epoch: UNKNOWN_EPOCH,
    participating: false,
    activeList: [],
    chosen: null,
    told: null,
    fwd: createForwarder<Hop>(config.ring, config.self, config.timing),
    detector: DETECTOR_OFF,
    watched: null,
  };
  // A process that starts without a coordinator (first start or restart) holds an election.
  if (config.initialCoordinator === undefined || config.initialCoordinator === null)
    return detect(state, UNKNOWN_EPOCH);
  return settle({ ...state, coordinator: config.initialCoordinator }, [], 0);
}

function step(s: ActiveListState, event: AlgorithmEvent<ActiveListMessage>): Out {
  switch (event.kind) {
    case 'elect':
      return s.participating ? { state: s, effects: [] } : detect(s, s.epoch + 1);
    case 'timer': {
      if (isAckTimer(event.name)) return afterForward(s, ackTimeout(s.fwd, event.name), []);
      if (isDetectorTimer(event.name)) {
        const d = detectorTimer<ActiveListMessage>(s.setup, s.detector, event.name);
        const next = { ...s, detector: d.state };
        if (observationCallsElection(d.observed, s.coordinator, s.participating))
          return prepend(detect(next, s.epoch + 1), d.effects);
        return { state: next, effects: d.effects };
      }
      // The watchdog: this election never ended (a message was lost): start a newer one.
      if (event.name === WATCHDOG_TIMER && s.participating) return detect(s, s.epoch + 1);
      return { state: s, effects: [] };
    }
    case 'message': {
      const { from, message: m } = event;
      if (m.type === 'ACK') return afterForward(s, receiveAck(s.fwd, from, m.seq), []);
      if (isDetectorMessage(m)) {
        const d = detectorMessage<ActiveListMessage>(s.setup, s.detector, from, m);
        const next = { ...s, detector: d.state, fwd: revive(s.fwd, [from]) };
        if (observationCallsElection(d.observed, s.coordinator, s.participating))
          return prepend(detect(next, s.epoch + 1), d.effects);
        return { state: next, effects: d.effects };
      }
      const acked = receiveHop(s.fwd, from, m.seq);
      const s1 = { ...s, fwd: acked.forwarder };
      return prepend(
        m.type === 'ELECT'
          ? onElect(s1, m.id, m.epoch, from)
          : onElected(s1, m.coordinator, m.epoch),
        acked.effects,
      );
    }
  }
}

/** 001: "P2 sets its active list to [ ]; P2 sends Elect(2) ...; P2 sets active list to [2]". */
function detect(s: ActiveListState, epoch: number): Out {
  return participate(
    { ...s, activeList: [], chosen: null },
    epoch,
    [s.self],
    [{ type: 'ELECT', id: s.self, epoch }],
  );
}

function onElect(s: ActiveListState, j: ProcessId, e: number, from: ProcessId): Out {
  const seen = { ...s, fwd: revive(s.fwd, [j]) };
  const drop = { state: seen, effects: [] };
  if (e !== UNKNOWN_EPOCH && e > s.epoch) {
    // (a) "this is the first message sent or seen: initialize its active list to [i,j]; send
    // Elect(i) + send Elect(j)" (a newer epoch replaces an older election still open here).
    if (j === s.self)
      return participate(seen, e, [s.self], [{ type: 'ELECT', id: s.self, epoch: e }]);
    return participate(
      seen,
      e,
      [s.self, j],
      [
        { type: 'ELECT', id: s.self, epoch: e },
        { type: 'ELECT', id: j, epoch: e },
      ],
    );
  }
  if (e === UNKNOWN_EPOCH) {
    // A newcomer's Elect: an idle process holds a fresh election that includes it; one taking
    // part in an election carries it along (rule (b) below) inside its own epoch.
    if (!s.participating && j !== s.self)
      return startElectCopy(s, j) ? drop : detect(seen, s.epoch + 1);
    if (j === s.self && s.epoch !== UNKNOWN_EPOCH) return drop;
    if (restartedMidElection(s, j, from)) return detect(seen, s.epoch + 1);
  } else if (e < s.epoch) {
    // A leftover of an older election, unless j was missed (see missedByLastElection).
    return missedByLastElection(s, j, from) ? detect(seen, s.epoch + 1) : drop;
  }
  if (j !== s.self) {
    // (b) "if (i != j), add [j] to active list + forward Elect(j) message to the next process".
    // A j already in the list was forwarded already: this is a copy (late ACK, duplicate).
    if (seen.activeList.includes(j)) return drop;
    const next = { ...seen, activeList: addId(seen.activeList, j) };
    const sends: Unsent<Hop>[] = [{ type: 'ELECT', id: j, epoch: s.epoch }];
    // It told its successor a lower winner already: the list was incomplete (see the header).
    if (next.told !== null && j > next.told)
      sends.push({ type: 'ELECTED', coordinator: j, epoch: s.epoch });
    return afterForward(
      next.told !== null && j > next.told ? { ...next, told: j } : next,
      forward(next.fwd, ...sends),
      [],
    );
  }
  // (c) "otherwise (i = j), so process i has complete set of active processes in its active
  // list => choose highest process ID + send Elected(x) message to neighbor". Once per epoch,
  // and also when Elected(x) came first (an Elect that skipped her went round ahead of hers):
  // 001's rule (c) has no such condition, and her successor hears Elected only from her.
  if (seen.told !== null || !seen.activeList.includes(s.self)) return drop;
  const settled = s.participating ? -1 : (s.coordinator ?? -1);
  const x = Math.max(settled, ...seen.activeList);
  const next = { ...seen, chosen: s.participating ? x : null, told: x };
  return afterForward(
    next,
    forward(next.fwd, { type: 'ELECTED', coordinator: x, epoch: s.epoch }),
    [],
  );
}

/** 001: "If a process receives "Elected(x)" message, set coordinator to x." (Not an older epoch's.) */
function onElected(s: ActiveListState, x: ProcessId, e: number): Out {
  const ignore = { state: s, effects: [] };
  if (e < s.epoch) return ignore;
  if (e === s.epoch && !s.participating && s.coordinator !== null && x <= s.coordinator)
    return ignore; // a stale copy
  if (x < s.self) {
    // A winner below this live process (see the header): wait for the correction if this
    // epoch's election is under way here, else this process was missed altogether.
    if (e === s.epoch && s.participating) return ignore;
    return detect(s, e + 1);
  }
  return settle({ ...s, coordinator: x, epoch: e, participating: false, chosen: null }, []);
}

/** The first Elect sent or seen in `epoch`: a new election episode here. */
function participate(
  s: ActiveListState,
  epoch: number,
  list: ProcessId[],
  sends: Unsent<Hop>[],
): Out {
  const paused = pauseDetector<ActiveListMessage>(s.setup, s.detector);
  const next: ActiveListState = {
    ...s,
    epoch,
    participating: true,
    activeList: [...new Set(list)].sort((a, b) => a - b),
    chosen: null,
    told: null,
    fwd: forgetDown(s.fwd),
    detector: paused.detector,
    watched: null,
  };
  const effects: Effect<ActiveListMessage>[] = [
    ...paused.effects,
    { kind: 'set-timer', name: WATCHDOG_TIMER, after: s.watchdog },
  ];
  return afterForward(next, forward(next.fwd, ...sends), effects);
}
/**
 * Apply a forwarder step. Stranded means no other process answers: this one is alone, so its
 * own Elect has in effect come back (rule (c)) and its Elected(x) reaches only itself.
 */
function afterForward(
  s: ActiveListState,
  out: ForwardStep<Hop>,
  before: Effect<ActiveListMessage>[],
): Out {
  let state: ActiveListState = { ...s, fwd: out.forwarder };
  let effects: Effect<ActiveListMessage>[] = [...before, ...out.effects];
  for (const m of out.stranded) {
    const local =
      m.type === 'ELECTED'
        ? onElected(state, m.coordinator, m.epoch)
        : m.id === s.self && state.participating
          ? onElect(state, m.id, m.epoch, s.self)
          : null;
    if (!local) continue; // someone else's Elect with nobody left to carry it to
    state = local.state;
    effects = [...effects, ...local.effects];
  }
  return settle(state, effects);
}

/** Outside an election, stop the watchdog and watch the coordinator. */
function settle(s: ActiveListState, effects: Effect<ActiveListMessage>[], grace = s.grace): Out {
  if (s.participating || s.coordinator === null || s.watched === s.coordinator)
    return { state: s, effects };
  const w = watchCoordinator<ActiveListMessage>(s.setup, s.self, s.coordinator, grace);
  const watching = { ...s, detector: w.detector, watched: s.coordinator };
  return {
    state: watching,
    effects: [...effects, { kind: 'cancel-timer', name: WATCHDOG_TIMER }, ...w.effects],
  };
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
    detail: s.chosen === null ? { epoch: s.epoch } : { epoch: s.epoch, chosen: s.chosen },
  };
}

export const ringActiveList: Algorithm<ActiveListState, ActiveListMessage> = defineAlgorithm<
  ActiveListState,
  ActiveListMessage
>({
  name: 'ring-active-list',
  messages: ACTIVE_LIST_SCHEMAS,
  // Elect(j) and Elected(x) name ids on this ring.
  accepts: (s, m) =>
    m.type === 'ELECT'
      ? onRing(s.fwd, m.id)
      : m.type === 'ELECTED'
        ? onRing(s.fwd, m.coordinator)
        : true,
  init,
  step,
  report,
});
