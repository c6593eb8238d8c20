// Raft's leader election (§5.2): your module. Fill in the TODOs; docs/STUDENT_MODULES.md says
// what the host gives you and what the bots expect on the wire:
//   REQUEST_VOTE { type: 'REQUEST_VOTE', term }     VOTE { type: 'VOTE', term, granted }
//   HEARTBEAT    { type: 'HEARTBEAT', term }         HEARTBEAT_REPLY { type: 'HEARTBEAT_REPLY', term }
// Raft runs its own failure detection (election timeouts). With the lab's detector 'none',
// followers set no election timer and a new leader sends one round of HEARTBEAT.

/**
 * @typedef {number} ProcessId
 * @typedef {{ transmission: number, processing: number, heartbeatInterval: number, heartbeatTimeout: number }} Timing
 * @typedef {{ self: ProcessId, ids: ProcessId[], ring: ProcessId[], timing: Timing, detector: 'heartbeat' | 'poll' | 'none', initialCoordinator?: ProcessId | null, options?: Record<string, unknown> }} Config
 * @typedef {{ type: string } & Record<string, unknown>} Message
 * @typedef {{ kind: 'message', from: ProcessId, message: Message } | { kind: 'timer', name: string } | { kind: 'elect' }} Event
 * @typedef {{ kind: 'send', to: ProcessId, message: Message } | { kind: 'set-timer', name: string, after: number } | { kind: 'cancel-timer', name: string }} Effect
 * @typedef {{ now: number, random: () => number }} Context
 * @typedef {{ role: string, coordinator: ProcessId | null, electing: boolean, term?: number }} Report
 */

/**
 * @typedef {object} State
 * @property {ProcessId} self
 * @property {ProcessId[]} ids
 * @property {boolean} detect        false when the lab's detector is 'none'
 * @property {number} timeoutMin     election timeouts are drawn from [timeoutMin, timeoutMax]
 * @property {number} timeoutMax
 * @property {number} beat           heartbeat period
 * @property {'follower' | 'candidate' | 'leader'} role
 * @property {number} term
 * @property {ProcessId | null} votedFor
 * @property {ProcessId | null} leader
 * @property {ProcessId[]} votes     granted to me in this term (me included)
 * @property {boolean} quiet         after a fresh start: no vote for one maximum timeout
 */

/** @param {unknown} v @param {number} fallback */
const num = (v, fallback) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback);
/** @param {number} n */
const majority = (n) => Math.floor(n / 2) + 1;

/** @param {Config} config @param {Context} ctx @returns {{ state: State, effects: Effect[] }} */
function init(config, ctx) {
  const o = config.options ?? {};
  const timeoutMin = num(o.electionTimeoutMin, config.timing.heartbeatTimeout);
  /** @type {State} */
  const base = {
    self: config.self,
    ids: config.ids,
    detect: config.detector !== 'none',
    timeoutMin,
    timeoutMax: Math.max(timeoutMin, num(o.electionTimeoutMax, 2 * config.timing.heartbeatTimeout)),
    beat: num(o.heartbeatInterval, config.timing.heartbeatInterval),
    role: 'follower',
    term: 0,
    votedFor: null,
    leader: null,
    votes: [],
    quiet: false,
  };
  const c = config.initialCoordinator;
  if (c !== undefined && c !== null) {
    // A steady start: everyone is in term 1 and voted for the agreed leader.
    const s = { ...base, term: 1, votedFor: c, leader: c };
    if (c === config.self) return becomeLeader(s);
    return { state: s, effects: armElection(s, ctx) };
  }
  // A fresh start or a restart (the state is lost, and so is the vote cast before): stay quiet for
  // one maximum election timeout, so no vote is cast twice in a term.
  const s = { ...base, quiet: true };
  return {
    state: s,
    effects: [
      { kind: 'set-timer', name: 'quiet', after: s.timeoutMax },
      ...armElection(s, ctx, s.timeoutMax),
    ],
  };
}

/** Followers wait for a leader only when the lab detects failures; candidates always. @param {State} s @param {Context} ctx @returns {Effect[]} */
function armElection(s, ctx, extra = 0) {
  if (!s.detect && s.role === 'follower') return [];
  return [
    {
      kind: 'set-timer',
      name: 'election',
      after: extra + s.timeoutMin + ctx.random() * (s.timeoutMax - s.timeoutMin),
    },
  ];
}

/** @param {State} s @param {Message} message @returns {Effect[]} */
const broadcast = (s, message) =>
  s.ids
    .filter((id) => id !== s.self)
    .map((to) => ({ kind: /** @type {const} */ ('send'), to, message }));

/** @param {State} s @returns {Effect[]} */
function heartbeats(s) {
  const beat = broadcast(s, { type: 'HEARTBEAT', term: s.term });
  return s.detect ? [...beat, { kind: 'set-timer', name: 'heartbeat', after: s.beat }] : beat;
}

/** @param {State} s @returns {{ state: State, effects: Effect[] }} */
function becomeLeader(s) {
  const next = { ...s, role: /** @type {const} */ ('leader'), leader: s.self };
  return {
    state: next,
    effects: [{ kind: 'cancel-timer', name: 'election' }, ...heartbeats(next)],
  };
}

/** §5.2: a new term, a vote for myself, a request to everyone else. @param {State} s @param {Context} ctx @returns {{ state: State, effects: Effect[] }} */
function campaign(s, ctx) {
  /** @type {State} */
  const next = {
    ...s,
    role: 'candidate',
    term: s.term + 1,
    votedFor: s.self,
    leader: null,
    votes: [s.self],
  };
  if (majority(s.ids.length) <= 1) return becomeLeader(next);
  return {
    state: next,
    effects: [
      { kind: 'cancel-timer', name: 'heartbeat' },
      ...broadcast(next, { type: 'REQUEST_VOTE', term: next.term }),
      ...armElection(next, ctx),
    ],
  };
}

/** @param {State} s @param {Event} event @param {Context} ctx @returns {{ state: State, effects: Effect[] }} */
function step(s, event, ctx) {
  if (event.kind === 'elect') return campaign(s, ctx);
  if (event.kind === 'timer') {
    if (event.name === 'quiet') return { state: { ...s, quiet: false }, effects: [] };
    if (event.name === 'heartbeat' && s.role === 'leader')
      return { state: s, effects: heartbeats(s) };
    if (event.name === 'election' && s.role !== 'leader') return campaign(s, ctx);
    return { state: s, effects: [] };
  }
  const { from, message: m } = event;
  const term = /** @type {number} */ (m.term);
  /** @type {Effect[]} */
  const fx = [];
  let rearm = false;
  if (term > s.term) {
    // §5.1: a higher term makes anyone a follower of that term.
    if (s.role === 'leader') fx.push({ kind: 'cancel-timer', name: 'heartbeat' });
    if (s.role === 'candidate' && !s.detect) fx.push({ kind: 'cancel-timer', name: 'election' });
    rearm = s.role === 'leader';
    s = { ...s, role: 'follower', term, votedFor: null, leader: null, votes: [] };
  }
  switch (m.type) {
    case 'REQUEST_VOTE':
      // TODO: grant at most one vote per term, first come first served (not while quiet);
      //   answer VOTE { term, granted } either way; a granted vote restarts the election timer.
      break;
    case 'HEARTBEAT':
      // TODO: an older term: tell the stale leader (HEARTBEAT_REPLY). Else follow its sender.
      break;
    case 'VOTE':
      // TODO: a candidate counts granted votes of its term; a majority makes it leader (becomeLeader).
      break;
  }
  if (rearm && s.role !== 'leader') fx.push(...armElection(s, ctx));
  return { state: s, effects: fx };
}

/** @param {State} s @returns {Report} */
function report(s) {
  return { role: s.role, coordinator: s.leader, electing: s.role === 'candidate', term: s.term };
}

export default {
  name: 'raft',
  messageTypes: ['REQUEST_VOTE', 'VOTE', 'HEARTBEAT', 'HEARTBEAT_REPLY'],
  init,
  step,
  report,
};
