// How the ring algorithms notice that an election is due, on top of shared/algorithms/failure-detector.ts.
//
// 001: "any process Pi sends a message to the current coordinator; if no response in T time
// units, Pi initiates an election" (the 'poll' detector); 'heartbeat' is the coordinator
// announcing itself instead; 'none' leaves it to `elect` events. Both ring algorithms also keep
// one election watchdog: an election this process takes part in that has not ended after two
// full circulations can only have lost a message (or its initiator), so it starts a new one.
import {
  roundTripBound,
  type AlgorithmConfig,
  type Effect,
  type Message,
  type ProcessId,
} from './algorithm.ts';
import {
  DETECTOR_OFF,
  follow,
  lead,
  stopDetector,
  type DetectorSetup,
  type DetectorState,
  type Observation,
} from './failure-detector.ts';

export const WATCHDOG_TIMER = 'election-watchdog';

export function detectorSetup(config: AlgorithmConfig): DetectorSetup {
  const others = config.ids.filter((id) => id !== config.self);
  return {
    mode: config.detector,
    timing: config.timing,
    peers: others,
    // A poll-mode leader probes the ids above it: a PONG from one reveals a higher rival leader.
    probes: others.filter((id) => id > config.self),
  };
}

/**
 * Two circulations (the election message, then the result), each at most one hop per ring
 * member, where a hop costs at most UB waiting on a down successor plus T to reach the next.
 */
export function watchdogDelay(config: AlgorithmConfig): number {
  const fromOptions = config.options?.['electionWatchdog'];
  if (typeof fromOptions === 'number' && fromOptions > 0) return fromOptions;
  const hop = roundTripBound(config.timing) + config.timing.transmission;
  return 2 * Math.max(config.ring.length, 1) * hop;
}

/**
 * How much longer a follower waits for the first heartbeat (or PONG) after an election: one
 * circulation, each hop at worst UB plus T. The result reaches the ring's processes one after
 * another, the coordinator perhaps a whole circulation after this one (002's COORDINATOR goes
 * round; 001's Elected(x) follows each process's own Elect round). Without it, with
 * |ring| · T above heartbeatTimeout, the first to learn the result time out on a coordinator
 * that does not know yet that it leads, and elect again, round after round.
 */
export function settleGrace(config: AlgorithmConfig): number {
  return (
    Math.max(config.ring.length, 1) * (roundTripBound(config.timing) + config.timing.transmission)
  );
}

/** Watch the coordinator just learned: lead when it is this process, follow it otherwise (`grace`: see settleGrace). */
export function watchCoordinator<M extends Message>(
  setup: DetectorSetup,
  self: ProcessId,
  coordinator: ProcessId | null,
  grace = 0,
): { detector: DetectorState; effects: Effect<M>[] } {
  if (coordinator === null) return { detector: DETECTOR_OFF, effects: [] };
  const out = coordinator === self ? lead<M>(setup) : follow<M>(setup, coordinator, grace);
  return { detector: out.state, effects: out.effects };
}

/** An election is under way here: stop suspecting anyone until it ends. */
export function pauseDetector<M extends Message>(
  setup: DetectorSetup,
  detector: DetectorState,
): { detector: DetectorState; effects: Effect<M>[] } {
  const out = stopDetector<M>(setup, detector);
  return { detector: out.state, effects: out.effects };
}

/**
 * Does what the detector saw call for an election? A silent coordinator does; so does a live
 * leader above the one this process believes in (views diverged, e.g. across a healed
 * partition). A lower rival is left alone: it hears the higher leader itself and elects.
 */
export function observationCallsElection(
  observed: Observation,
  coordinator: ProcessId | null,
  electing: boolean,
): boolean {
  if (electing) return false;
  if (observed.kind === 'suspect') return true;
  if (observed.kind === 'leader-seen') return coordinator === null || observed.id > coordinator;
  return false;
}
