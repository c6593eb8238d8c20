// The emergent election (R. J. Anthony, ICAC 2004; seed 003) as a student module: a complete example.
// Four roles: master, slave, candidate, idle. Only the small slave pool elects, so an election
// costs k(k-1) CANDIDATE messages for a pool of k whatever the number of idles:
// - the master beats (MASTER_HEARTBEAT to everyone); slaves beat too (SLAVE_HEARTBEAT), and every
//   process counts the pool from those; an idle promotes itself when it sees fewer than poolMin
//   slaves, a slave demotes itself (SLAVE_LEAVE) above poolMax, each after its own trigger delay;
// - a slave that hears no master for masterTimeout (or gets `elect`) becomes a candidate: CANDIDATE
//   to the pool it knows; a slave hearing one joins; after candidateWaitPeriods heartbeat periods
//   the highest candidate is master and the others its slaves; a master heartbeat during the wait
//   means the old master lives: ABORT to the candidates told.
// Emergent has its own heartbeats, so the host runs no detector for it; with the lab's detector
// 'none', slaves do not watch the master (only `elect` starts an election).

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
 * @typedef {object} Options
 * @property {number} poolMin @property {number} poolMax @property {number} initialPool
 * @property {number} wait          candidateWaitPeriods × heartbeatInterval
 * @property {number} beat          master heartbeat period
 * @property {number} masterTimeout @property {number} slaveBeat @property {number} slaveTimeout
 * @property {number} triggerDelay  @property {number} triggerStep
 */

/**
 * @typedef {object} State
 * @property {ProcessId} self
 * @property {ProcessId[]} ids
 * @property {boolean} watch            false when the lab's detector is 'none'
 * @property {Options} o
 * @property {'master' | 'slave' | 'candidate' | 'idle'} role
 * @property {ProcessId | null} master
 * @property {ProcessId[]} slaves       other pool members heard within slaveTimeout, ascending
 * @property {ProcessId[]} candidates   this election's candidates heard (me included)
 * @property {ProcessId[]} told         whom I sent CANDIDATE in this election
 * @property {'promote' | 'demote' | null} trigger
 */

/** @param {unknown} v @param {number} fallback */
const num = (v, fallback) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback);
/** @param {ProcessId[]} list @param {ProcessId} id */
const insert = (list, id) => (list.includes(id) ? list : [...list, id].sort((a, b) => a - b));
/** @param {State} s @param {Message} message @returns {Effect[]} */
const broadcast = (s, message) =>
  s.ids
    .filter((to) => to !== s.self)
    .map((to) => ({ kind: /** @type {const} */ ('send'), to, message }));
/** @param {State} s */
const poolSize = (s) => s.slaves.length + (s.role === 'slave' || s.role === 'candidate' ? 1 : 0);
/** @typedef {{ state: State, effects: Effect[] }} Out */
/** @param {Out} first @param {(s: State) => Out} next @returns {Out} */
const andThen = (first, next) => {
  const second = next(first.state);
  return { state: second.state, effects: [...first.effects, ...second.effects] };
};

/** @param {Config} config @returns {Out} */
function init(config) {
  const t = config.timing;
  const opt = config.options ?? {};
  const poolMin = num(opt.poolMin, 3);
  const poolMax = num(opt.poolMax, Math.max(5, poolMin + 1));
  const beat = num(opt.heartbeatInterval, t.heartbeatInterval);
  /** @type {Options} */
  const o = {
    poolMin,
    poolMax,
    initialPool: num(opt.initialPool, Math.round((poolMin + poolMax) / 2)),
    wait: num(opt.candidateWaitPeriods, 3) * beat,
    beat,
    masterTimeout: num(opt.masterTimeout, t.heartbeatTimeout),
    slaveBeat: num(opt.slaveHeartbeatInterval, t.heartbeatInterval),
    slaveTimeout: num(opt.slaveTimeout, t.heartbeatTimeout),
    triggerDelay: num(opt.triggerDelay, t.heartbeatInterval),
    triggerStep: num(opt.triggerStep, 2 * t.transmission + t.processing),
  };
  /** @type {State} */
  const base = {
    self: config.self,
    ids: config.ids,
    watch: config.detector !== 'none',
    o,
    role: 'idle',
    master: null,
    slaves: [],
    candidates: [],
    told: [],
    trigger: null,
  };
  const c = config.initialCoordinator;
  if (c === undefined || c === null || !config.ids.includes(c)) return reconsider(base); // everyone idle: the pool forms, then elects
  // A steady start: the pool is the initialPool highest ids below the master, the same everywhere.
  const pool = config.ids
    .filter((id) => id !== c)
    .sort((a, b) => b - a)
    .slice(0, o.initialPool);
  const role = c === config.self ? 'master' : pool.includes(config.self) ? 'slave' : 'idle';
  /** @type {State} */
  const s = {
    ...base,
    role,
    master: c,
    slaves: pool.filter((id) => id !== config.self).sort((a, b) => a - b),
  };
  /** @type {Effect[]} */
  const fx = s.slaves.map((id) => ({
    kind: /** @type {const} */ ('set-timer'),
    name: `expire:${id}`,
    after: o.slaveTimeout,
  }));
  if (role === 'master') fx.push({ kind: 'set-timer', name: 'master-heartbeat', after: o.beat });
  if (role === 'slave')
    fx.push({ kind: 'set-timer', name: 'slave-heartbeat', after: o.slaveBeat }, ...watchMaster(s));
  const re = reconsider(s);
  return { state: re.state, effects: [...fx, ...re.effects] };
}

/** @param {State} s @returns {Effect[]} */
const watchMaster = (s) =>
  s.watch ? [{ kind: 'set-timer', name: 'master-watch', after: s.o.masterTimeout }] : [];

/** Arm or disarm the pool trigger for my role and the pool's size. @param {State} s @returns {Out} */
function reconsider(s) {
  const size = poolSize(s);
  const want =
    s.role === 'idle' && size < s.o.poolMin
      ? 'promote'
      : s.role === 'slave' && size > s.o.poolMax
        ? 'demote'
        : null;
  if (want === s.trigger) return { state: s, effects: [] };
  /** @type {Effect[]} */
  const fx = [];
  if (s.trigger) fx.push({ kind: 'cancel-timer', name: s.trigger });
  // Each process waits its own delay, so one moves at a time: idles by descending id, slaves by ascending.
  if (want === 'promote')
    fx.push({
      kind: 'set-timer',
      name: 'promote',
      after:
        s.o.triggerDelay +
        s.ids.filter((id) => id > s.self && id !== s.master && !s.slaves.includes(id)).length *
          s.o.triggerStep,
    });
  if (want === 'demote')
    fx.push({
      kind: 'set-timer',
      name: 'demote',
      after: s.o.triggerDelay + s.slaves.filter((id) => id < s.self).length * s.o.triggerStep,
    });
  return { state: { ...s, trigger: want }, effects: fx };
}

/** @param {State} s @param {ProcessId} id @returns {Out} */
function heardSlave(s, id) {
  if (id === s.self) return { state: s, effects: [] };
  return {
    state: { ...s, slaves: insert(s.slaves, id) },
    effects: [{ kind: 'set-timer', name: `expire:${id}`, after: s.o.slaveTimeout }],
  };
}

/** @param {State} s @param {ProcessId} id @param {boolean} expired @returns {Out} */
function lostSlave(s, id, expired = false) {
  if (!s.slaves.includes(id)) return { state: s, effects: [] };
  return {
    state: { ...s, slaves: s.slaves.filter((x) => x !== id) },
    effects: expired ? [] : [{ kind: 'cancel-timer', name: `expire:${id}` }],
  };
}

/** @param {State} s @param {ProcessId | null} master @returns {Out} */
function becomeSlave(s, master) {
  /** @type {State} */
  const next = { ...s, role: 'slave', master, candidates: [], told: [], trigger: null };
  /** @type {Effect[]} */
  const fx = [];
  if (s.trigger) fx.push({ kind: 'cancel-timer', name: s.trigger });
  if (s.role === 'idle' || s.role === 'master')
    fx.push(...broadcast(next, { type: 'SLAVE_HEARTBEAT' }), {
      kind: 'set-timer',
      name: 'slave-heartbeat',
      after: s.o.slaveBeat,
    });
  if (s.role === 'master') fx.push({ kind: 'cancel-timer', name: 'master-heartbeat' });
  if (s.role === 'candidate') fx.push({ kind: 'cancel-timer', name: 'candidate-wait' });
  fx.push(...watchMaster(next));
  const re = reconsider(next);
  return { state: re.state, effects: [...fx, ...re.effects] };
}

/** @param {State} s @returns {Out} */
function becomeIdle(s) {
  /** @type {State} */
  const next = { ...s, role: 'idle', trigger: null };
  const re = reconsider(next);
  return {
    state: re.state,
    effects: [
      { kind: 'cancel-timer', name: 'slave-heartbeat' },
      { kind: 'cancel-timer', name: 'master-watch' },
      ...broadcast(next, { type: 'SLAVE_LEAVE' }),
      ...re.effects,
    ],
  };
}

/** A slave stops believing in the master and asks the rest of the pool to elect. @param {State} s @returns {Out} */
function startCandidacy(s) {
  /** @type {Effect[]} */
  const fx = [{ kind: 'cancel-timer', name: 'master-watch' }];
  if (s.trigger) fx.push({ kind: 'cancel-timer', name: s.trigger });
  for (const to of s.slaves) fx.push({ kind: 'send', to, message: { type: 'CANDIDATE' } });
  fx.push({ kind: 'set-timer', name: 'candidate-wait', after: s.o.wait });
  return {
    state: {
      ...s,
      role: 'candidate',
      master: null,
      candidates: [s.self],
      told: s.slaves,
      trigger: null,
    },
    effects: fx,
  };
}

/** @param {State} s @returns {Out} */
function becomeMaster(s) {
  /** @type {State} */
  const next = { ...s, role: 'master', master: s.self, candidates: [], told: [], trigger: null };
  /** @type {Effect[]} */
  const fx = [
    { kind: 'cancel-timer', name: 'candidate-wait' },
    { kind: 'cancel-timer', name: 'slave-heartbeat' },
    { kind: 'cancel-timer', name: 'master-watch' },
  ];
  if (s.trigger) fx.push({ kind: 'cancel-timer', name: s.trigger });
  fx.push(...broadcast(next, { type: 'MASTER_HEARTBEAT' }), {
    kind: 'set-timer',
    name: 'master-heartbeat',
    after: s.o.beat,
  });
  return { state: next, effects: fx };
}

/** @param {State} s0 @param {ProcessId} from @returns {Out} */
function onCandidate(s0, from) {
  if (s0.role === 'idle') return { state: s0, effects: [] }; // idles take no part
  if (s0.role === 'master')
    return {
      state: s0,
      effects: [{ kind: 'send', to: from, message: { type: 'MASTER_HEARTBEAT' } }],
    }; // I am alive
  return andThen(heardSlave(s0, from), (s1) =>
    andThen(s1.role === 'slave' ? startCandidacy(s1) : { state: s1, effects: [] }, (s) => {
      const candidates = insert(s.candidates, from);
      if (s.told.includes(from)) return { state: { ...s, candidates }, effects: [] };
      // Answer a candidate I had not told, so both always hear each other.
      return {
        state: { ...s, candidates, told: insert(s.told, from) },
        effects: [{ kind: 'send', to: from, message: { type: 'CANDIDATE' } }],
      };
    }),
  );
}

/** @param {State} s0 @param {ProcessId} from @returns {Out} */
function onMasterHeartbeat(s0, from) {
  return andThen(lostSlave(s0, from), (s) => {
    switch (s.role) {
      case 'master':
        return from > s.self ? becomeSlave(s, from) : { state: s, effects: [] }; // two masters: the higher keeps it
      case 'candidate': {
        if (s.candidates.includes(from)) return becomeSlave(s, from); // the winner took over first
        // The old master lives: call the election off for every candidate I told.
        /** @type {Effect[]} */
        const abort = s.told.map((to) => ({
          kind: /** @type {const} */ ('send'),
          to,
          message: { type: 'ABORT', master: from },
        }));
        const out = becomeSlave(s, from);
        return { state: out.state, effects: [...abort, ...out.effects] };
      }
      case 'slave':
        return becomeSlave(s, from);
      default:
        return reconsider({ ...s, master: from });
    }
  });
}

/** @param {State} s @param {Event} event @returns {Out} */
function step(s, event) {
  if (event.kind === 'elect')
    return s.role === 'slave' ? startCandidacy(s) : { state: s, effects: [] }; // only slaves elect
  if (event.kind === 'timer') {
    const name = event.name;
    if (name.startsWith('expire:'))
      return andThen(lostSlave(s, Number(name.slice('expire:'.length)), true), reconsider);
    switch (name) {
      case 'master-heartbeat':
        return s.role === 'master'
          ? {
              state: s,
              effects: [
                ...broadcast(s, { type: 'MASTER_HEARTBEAT' }),
                { kind: 'set-timer', name, after: s.o.beat },
              ],
            }
          : { state: s, effects: [] };
      case 'slave-heartbeat':
        return s.role === 'slave' || s.role === 'candidate'
          ? {
              state: s,
              effects: [
                ...broadcast(s, { type: 'SLAVE_HEARTBEAT' }),
                { kind: 'set-timer', name, after: s.o.slaveBeat },
              ],
            }
          : { state: s, effects: [] };
      case 'master-watch':
        return s.role === 'slave' ? startCandidacy(s) : { state: s, effects: [] };
      case 'candidate-wait': {
        if (s.role !== 'candidate') return { state: s, effects: [] };
        const winner = Math.max(...s.candidates);
        return winner === s.self ? becomeMaster(s) : becomeSlave(s, winner);
      }
      case 'promote':
      case 'demote': {
        if (s.trigger !== name) return { state: s, effects: [] };
        const s1 = { ...s, trigger: null };
        if (name === 'promote' && s1.role === 'idle' && poolSize(s1) < s1.o.poolMin)
          return becomeSlave(s1, s1.master);
        if (name === 'demote' && s1.role === 'slave' && poolSize(s1) > s1.o.poolMax)
          return becomeIdle(s1);
        return reconsider(s1);
      }
      default:
        return { state: s, effects: [] };
    }
  }
  const { from, message: m } = event;
  switch (m.type) {
    case 'MASTER_HEARTBEAT':
      return onMasterHeartbeat(s, from);
    case 'SLAVE_HEARTBEAT':
      return andThen(heardSlave(s, from), reconsider);
    case 'SLAVE_LEAVE':
      return andThen(lostSlave(s, from), reconsider);
    case 'CANDIDATE':
      return onCandidate(s, from);
    case 'ABORT': {
      const master = /** @type {ProcessId} */ (m.master);
      if (s.role !== 'candidate' || master === s.self || !s.ids.includes(master))
        return { state: s, effects: [] };
      return becomeSlave(s, master);
    }
    default:
      return { state: s, effects: [] };
  }
}

/** @param {State} s @returns {Report} */
function report(s) {
  return { role: s.role, coordinator: s.master, electing: s.role === 'candidate' };
}

export default {
  name: 'emergent',
  messageTypes: ['MASTER_HEARTBEAT', 'SLAVE_HEARTBEAT', 'SLAVE_LEAVE', 'CANDIDATE', 'ABORT'],
  init,
  step,
  report,
};
