// The Bully algorithm (000, Figure 6-20; 002; 003) as a student module: a complete example.
// The host runs the failure detector: when it suspects the coordinator you get { kind: 'elect' }.
// Messages must look like the bots' (docs/STUDENT_MODULES.md, "Bully"): ELECTION and OK carry
// the number of the election they belong to, so an OK answers the right one.

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
 * @property {ProcessId[]} higher   ids above mine
 * @property {ProcessId[]} lower    ids below mine
 * @property {number} okWait         UB = 2T + M: how long to wait for an OK
 * @property {number} coordinatorWait how long to wait for COORDINATOR after an OK
 * @property {'follower' | 'coordinator' | 'electing' | 'waiting'} role
 * @property {ProcessId | null} coordinator
 * @property {number} election       my elections so far (the current one's number)
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

/** @param {State} s @returns {{ state: State, effects: Effect[] }} */
function startElection(s) {
  const election = s.election + 1;
  /** @type {Effect[]} */
  const effects = [{ kind: 'cancel-timer', name: 'coordinator' }];
  if (s.higher.length === 0) return becomeCoordinator({ ...s, election }, effects);
  for (const to of s.higher)
    effects.push({ kind: 'send', to, message: { type: 'ELECTION', election } });
  effects.push({ kind: 'set-timer', name: 'ok', after: s.okWait });
  return { state: { ...s, election, role: 'electing', coordinator: null }, effects };
}

/** @param {State} s @param {Effect[]} effects */
function becomeCoordinator(s, effects = []) {
  effects.push({ kind: 'cancel-timer', name: 'ok' }, { kind: 'cancel-timer', name: 'coordinator' });
  for (const to of s.lower) effects.push({ kind: 'send', to, message: { type: 'COORDINATOR' } });
  return {
    state: { ...s, role: /** @type {const} */ ('coordinator'), coordinator: s.self },
    effects,
  };
}

/** @param {State} s */
const holding = (s) => s.role === 'electing' || s.role === 'waiting';

/** @param {State} s @param {Event} event @param {Context} ctx @returns {{ state: State, effects: Effect[] }} */
function step(s, event, ctx) {
  if (event.kind === 'elect') return startElection(s);
  if (event.kind === 'timer') {
    if (event.name === 'ok' && s.role === 'electing') return becomeCoordinator(s); // nobody higher answered
    if (event.name === 'coordinator' && s.role === 'waiting') return startElection(s); // the winner never said so
    return { state: s, effects: [] };
  }
  const { from, message } = event;
  switch (message.type) {
    case 'ELECTION': {
      if (from > s.self) return { state: s, effects: [] };
      /** @type {Effect} */
      const ok = { kind: 'send', to: from, message: { type: 'OK', election: message.election } };
      if (holding(s)) return { state: s, effects: [ok] }; // "unless it is already holding one"
      const out = startElection(s);
      return { state: out.state, effects: [ok, ...out.effects] };
    }
    case 'OK':
      if (s.role !== 'electing' || message.election !== s.election)
        return { state: s, effects: [] };
      return {
        state: { ...s, role: 'waiting' },
        effects: [
          { kind: 'cancel-timer', name: 'ok' },
          { kind: 'set-timer', name: 'coordinator', after: s.coordinatorWait },
        ],
      };
    case 'COORDINATOR':
      if (from > s.self) {
        return {
          state: { ...s, role: 'follower', coordinator: from },
          effects: [
            { kind: 'cancel-timer', name: 'ok' },
            { kind: 'cancel-timer', name: 'coordinator' },
          ],
        };
      }
      // 000: a victory message from a lower id starts a new election.
      return holding(s) ? { state: s, effects: [] } : startElection(s);
    default:
      return { state: s, effects: [] };
  }
}

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
