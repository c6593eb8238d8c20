// A coordinator failure detector any election algorithm can embed: heartbeats or polls.
//
// Pure, like the algorithms: it returns effects (sends, timers) and tells its host what it
// observed. The host algorithm decides what an observation means (start an election, bully a
// rival...). Timer names are prefixed `fd:` so they never clash with the host's own timers.
//
// - 'heartbeat': the leader sends HEARTBEAT to every peer each interval; a follower that hears
//   none from its leader for heartbeatTimeout suspects it (003: "Co-ordinator sends a short
//   message to all machines regularly (heartbeat). A machine which notices that the message is
//   absent then starts an election.").
// - 'poll': each follower PINGs its leader each interval and suspects it if no PONG arrives within
//   UB = 2T + M (000: "Processes are set to poll the leader every 3 seconds"; UB from 000/002).
//   A leader also PINGs the `probes` its host names (for highest-id algorithms: the ids above it,
//   which it believes down); a PONG from one reveals a rival leader, e.g. after message loss left
//   two processes each believing it leads (003: "What happens if two machines decide they are
//   co-ordinators?"). Under heartbeats the rival is seen by its HEARTBEAT instead.
// - 'none': no traffic, no timers; elections start only from outside (`elect` events).
import {
  roundTripBound,
  type DetectorMode,
  type Effect,
  type Message,
  type ProcessId,
  type Timing,
} from './algorithm.ts';

export type DetectorMessage = { type: 'HEARTBEAT' } | { type: 'PING' } | { type: 'PONG' };

const DETECTOR_MESSAGE_TYPES = ['HEARTBEAT', 'PING', 'PONG'] as const;

export interface DetectorSetup {
  mode: DetectorMode;
  timing: Timing;
  /** Everyone a leader heartbeats: all other known ids. */
  peers: readonly ProcessId[];
  /** Whom a leader polls in 'poll' mode to find rival leaders (may be empty). */
  probes: readonly ProcessId[];
}

export interface DetectorState {
  role: 'off' | 'lead' | 'follow';
  /** The leader being watched while following. */
  leader: ProcessId | null;
  /** A PING to the leader is unanswered (poll mode). */
  awaiting: boolean;
}

/** What the detector saw, for the host to act on. */
export type Observation =
  | { kind: 'none' }
  /** The followed leader fell silent: time for an election. */
  | { kind: 'suspect'; leader: ProcessId }
  /** A process other than the followed leader acts as leader (its HEARTBEAT or PONG). */
  | { kind: 'leader-seen'; id: ProcessId };

export interface DetectorStep<M extends Message> {
  state: DetectorState;
  effects: Effect<M>[];
  observed: Observation;
}

export const TIMER_BEAT = 'fd:beat';
export const TIMER_SILENCE = 'fd:silence';
export const TIMER_POLL = 'fd:poll';
export const TIMER_PONG = 'fd:pong';
const TIMERS = [TIMER_BEAT, TIMER_SILENCE, TIMER_POLL, TIMER_PONG];

export const DETECTOR_OFF: DetectorState = { role: 'off', leader: null, awaiting: false };
const NOTHING: Observation = { kind: 'none' };

export function isDetectorTimer(name: string): boolean {
  return name.startsWith('fd:');
}

export function isDetectorMessage(message: { type: string }): message is DetectorMessage {
  return (DETECTOR_MESSAGE_TYPES as readonly string[]).includes(message.type);
}

/** Stop watching (an election is under way): cancel every detector timer. */
export function stopDetector<M extends Message>(
  setup: DetectorSetup,
  state: DetectorState,
): DetectorStep<M> {
  if (setup.mode === 'none' || state.role === 'off')
    return { state, effects: [], observed: NOTHING };
  return {
    state: DETECTOR_OFF,
    effects: TIMERS.map((name) => ({ kind: 'cancel-timer', name })),
    observed: NOTHING,
  };
}

/** This process now leads: heartbeat its peers, or poll its probes for rivals. */
export function lead<M extends Message>(setup: DetectorSetup): DetectorStep<M> {
  const state: DetectorState = { role: 'lead', leader: null, awaiting: false };
  const effects: Effect<M>[] = [cancel(TIMER_SILENCE), cancel(TIMER_PONG)];
  if (setup.mode === 'heartbeat')
    effects.push(cancel(TIMER_POLL), arm(TIMER_BEAT, setup.timing.heartbeatInterval));
  else if (setup.mode === 'poll') {
    effects.push(cancel(TIMER_BEAT));
    effects.push(
      setup.probes.length > 0
        ? arm(TIMER_POLL, setup.timing.heartbeatInterval)
        : cancel(TIMER_POLL),
    );
  } else return { state: DETECTOR_OFF, effects: [], observed: NOTHING };
  return { state, effects, observed: NOTHING };
}

/**
 * This process now follows `leader`: expect its heartbeats, or start polling it. `grace` (ms)
 * lengthens the first wait only: for a host whose leader may learn that it leads later than
 * this process learns it (a ring election's result reaches the processes one after another).
 */
export function follow<M extends Message>(
  setup: DetectorSetup,
  leader: ProcessId,
  grace = 0,
): DetectorStep<M> {
  const state: DetectorState = { role: 'follow', leader, awaiting: false };
  const effects: Effect<M>[] = [cancel(TIMER_BEAT), cancel(TIMER_PONG)];
  if (setup.mode === 'heartbeat')
    effects.push(cancel(TIMER_POLL), arm(TIMER_SILENCE, setup.timing.heartbeatTimeout + grace));
  else if (setup.mode === 'poll')
    effects.push(cancel(TIMER_SILENCE), arm(TIMER_POLL, setup.timing.heartbeatInterval + grace));
  else return { state: DETECTOR_OFF, effects: [], observed: NOTHING };
  return { state, effects, observed: NOTHING };
}

export function detectorTimer<M extends Message>(
  setup: DetectorSetup,
  state: DetectorState,
  name: string,
): DetectorStep<M> {
  const { timing } = setup;
  if (state.role === 'lead' && name === TIMER_BEAT && setup.mode === 'heartbeat') {
    const effects: Effect<M>[] = setup.peers.map((to) => send<M>(to, { type: 'HEARTBEAT' }));
    return {
      state,
      effects: [...effects, arm(TIMER_BEAT, timing.heartbeatInterval)],
      observed: NOTHING,
    };
  }
  if (state.role === 'lead' && name === TIMER_POLL && setup.mode === 'poll') {
    const effects: Effect<M>[] = setup.probes.map((to) => send<M>(to, { type: 'PING' }));
    return {
      state,
      effects: [...effects, arm(TIMER_POLL, timing.heartbeatInterval)],
      observed: NOTHING,
    };
  }
  if (state.role !== 'follow' || state.leader === null)
    return { state, effects: [], observed: NOTHING };
  if (name === TIMER_SILENCE && setup.mode === 'heartbeat') {
    return {
      state: DETECTOR_OFF,
      effects: [],
      observed: { kind: 'suspect', leader: state.leader },
    };
  }
  if (name === TIMER_POLL && setup.mode === 'poll') {
    const again = arm<M>(TIMER_POLL, timing.heartbeatInterval);
    // One PING outstanding at a time: its own UB timer decides, a later poll does not reset it.
    if (state.awaiting) return { state, effects: [again], observed: NOTHING };
    return {
      state: { ...state, awaiting: true },
      effects: [
        send<M>(state.leader, { type: 'PING' }),
        arm(TIMER_PONG, roundTripBound(timing)),
        again,
      ],
      observed: NOTHING,
    };
  }
  if (name === TIMER_PONG && setup.mode === 'poll' && state.awaiting) {
    return {
      state: DETECTOR_OFF,
      effects: [cancel(TIMER_POLL)],
      observed: { kind: 'suspect', leader: state.leader },
    };
  }
  return { state, effects: [], observed: NOTHING };
}

export function detectorMessage<M extends Message>(
  setup: DetectorSetup,
  state: DetectorState,
  from: ProcessId,
  message: DetectorMessage,
): DetectorStep<M> {
  switch (message.type) {
    case 'HEARTBEAT':
      if (state.role === 'follow' && from === state.leader) {
        return {
          state,
          effects: [arm(TIMER_SILENCE, setup.timing.heartbeatTimeout)],
          observed: NOTHING,
        };
      }
      return { state, effects: [], observed: { kind: 'leader-seen', id: from } };
    case 'PING':
      // Only a leader answers: a process that no longer leads lets the poller time out and elect.
      if (state.role !== 'lead') return { state, effects: [], observed: NOTHING };
      return { state, effects: [send<M>(from, { type: 'PONG' })], observed: NOTHING };
    case 'PONG':
      if (state.role === 'follow' && from === state.leader) {
        if (!state.awaiting) return { state, effects: [], observed: NOTHING };
        return {
          state: { ...state, awaiting: false },
          effects: [cancel(TIMER_PONG)],
          observed: NOTHING,
        };
      }
      if (state.role === 'lead' && setup.probes.includes(from)) {
        return { state, effects: [], observed: { kind: 'leader-seen', id: from } };
      }
      return { state, effects: [], observed: NOTHING };
  }
}

function arm<M extends Message>(name: string, after: number): Effect<M> {
  return { kind: 'set-timer', name, after };
}

function cancel<M extends Message>(name: string): Effect<M> {
  return { kind: 'cancel-timer', name };
}

function send<M extends Message>(to: ProcessId, message: DetectorMessage): Effect<M> {
  return { kind: 'send', to, message: message as M };
}
