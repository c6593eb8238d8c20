// Bully (000, Figure 6-20; 002; 003): your module. Fill in the TODOs; docs/STUDENT_MODULES.md
// says what the host gives you and what the bots expect on the wire:
//   ELECTION { type: 'ELECTION', election }   to every higher id; `election` numbers your elections
//   OK       { type: 'OK', election }         the answer to an ELECTION from a lower id (echo its number)
//   COORDINATOR { type: 'COORDINATOR' }       the winner tells every lower id
// The host runs the failure detector: when it suspects your coordinator you get { kind: 'elect' }.
// Your report's role 'coordinator' means "I lead". Time: ctx.now and timers, never a clock.

/**
 * @typedef {number} ProcessId
 * @typedef {{ transmission: number, processing: number, heartbeatInterval: number, heartbeatTimeout: number }} Timing
 * @typedef {{ self: ProcessId, ids: ProcessId[], ring: ProcessId[], timing: Timing, detector: 'heartbeat' | 'poll' | 'none', initialCoordinator?: ProcessId | null, options?: Record<string, unknown> }} Config
 * @typedef {{ type: string } & Record<string, unknown>} Message
 * @typedef {{ kind: 'message', from: ProcessId, message: Message } | { kind: 'timer', name: string } | { kind: 'elect' }} Event
 * @typedef {{ kind: 'send', to: ProcessId, message: Message } | { kind: 'set-timer', name: string, after: number } | { kind: 'cancel-timer', name: string }} Effect
 * @typedef {{ now: number, random: () => number }} Context
 * @typedef {{ role: string, coordinator: ProcessId | null, electing: boolean }} Report
 */

/**
 * @typedef {object} State
 * @property {ProcessId} self
 * @property {ProcessId[]} higher
 * @property {ProcessId[]} lower
 * @property {number} okWait          UB = 2T + M
 * @property {number} coordinatorWait how long to wait for COORDINATOR after an OK
 * @property {'follower' | 'coordinator' | 'electing' | 'waiting'} role
 * @property {ProcessId | null} coordinator
 * @property {number} election        my elections so far
 */

/** @param {Config} config @returns {{ state: State, effects: Effect[] }} */
function init(config) {
  const { self, ids, timing } = config;
  const ub = 2 * timing.transmission + timing.processing;
  /** @type {State} */
  const state = {
    self,
    higher: ids.filter((id) => id > self),
    lower: ids.filter((id) => id < self),
    okWait: ub,
    // Every live higher process has my ELECTION within T + M and the highest of them declares
    // within another UB; its COORDINATOR lands T + M later: 2 UB + T + M after my send.
    coordinatorWait: 2 * ub + timing.transmission + timing.processing,
    role: 'follower',
    coordinator: null,
    election: 0,
  };
  const c = config.initialCoordinator;
  if (c === undefined || c === null) return startElection(state); // 003: an election on start
  return {
    state: { ...state, coordinator: c, role: c === self ? 'coordinator' : 'follower' },
    effects: [],
  };
}

/** Hold an election. @param {State} s @returns {{ state: State, effects: Effect[] }} */
function startElection(s) {
  const election = s.election + 1;
  // TODO: with no higher id, win at once (tell every lower id: COORDINATOR).
  // TODO: else send ELECTION { election } to every higher id and wait okWait for an OK
  //       (a timer: { kind: 'set-timer', name: 'ok', after: s.okWait }).
  return { state: { ...s, election, role: 'electing', coordinator: null }, effects: [] };
}

/** @param {State} s @param {Event} event @param {Context} ctx @returns {{ state: State, effects: Effect[] }} */
function step(s, event, ctx) {
  if (event.kind === 'elect') return startElection(s);
  if (event.kind === 'timer') {
    // TODO: 'ok' fired while electing: nobody higher answered, so I win.
    // TODO: 'coordinator' fired while waiting: the winner never said so; elect again.
    return { state: s, effects: [] };
  }
  const { from, message } = event;
  switch (message.type) {
    case 'ELECTION':
      // TODO: from a lower id: answer OK { election: message.election }, and hold an election
      //       "unless it is already holding one".
      return { state: s, effects: [] };
    case 'OK':
      // TODO: an OK for my current election: someone higher takes over; wait for COORDINATOR.
      return { state: s, effects: [] };
    case 'COORDINATOR':
      // TODO: from a higher id: believe it. From a lower id: hold a new election (000).
      return { state: s, effects: [] };
    default:
      return { state: s, effects: [] };
  }
}

/** Electing or waiting for the winner: "holding" an election. @param {State} s */
const holding = (s) => s.role === 'electing' || s.role === 'waiting';

/** @param {State} s @returns {Report} */
function report(s) {
  return { role: s.role, coordinator: s.coordinator, electing: holding(s) };
}

export default {
  name: 'bully',
  messageTypes: ['ELECTION', 'OK', 'COORDINATOR'],
  init,
  step,
  report,
};
