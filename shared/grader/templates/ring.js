// The ring algorithm (002, "A Ring Algorithm"): your module. Fill in the TODOs; docs/STUDENT_MODULES.md
// says what the host gives you and what the bots expect on the wire:
//   ELECTION    { type: 'ELECTION', seq, eid, list }                 eid names the election; list: the ids so far
//   COORDINATOR { type: 'COORDINATOR', seq, eid, coordinator, origin }
//   ACK         { type: 'ACK', seq }                                  every hop is acknowledged (done for you below)
// The hop layer (forward, ACKs, skipping a successor that does not ACK within UB) is written for
// you. The host runs the failure detector: when it suspects your coordinator you get { kind: 'elect' }.

/**
 * @typedef {number} ProcessId
 * @typedef {{ transmission: number, processing: number, heartbeatInterval: number, heartbeatTimeout: number }} Timing
 * @typedef {{ self: ProcessId, ids: ProcessId[], ring: ProcessId[], timing: Timing, detector: 'heartbeat' | 'poll' | 'none', initialCoordinator?: ProcessId | null, options?: Record<string, unknown> }} Config
 * @typedef {{ type: string } & Record<string, unknown>} Message
 * @typedef {{ kind: 'message', from: ProcessId, message: Message } | { kind: 'timer', name: string } | { kind: 'elect' }} Event
 * @typedef {{ kind: 'send', to: ProcessId, message: Message } | { kind: 'set-timer', name: string, after: number } | { kind: 'cancel-timer', name: string }} Effect
 * @typedef {{ now: number, random: () => number }} Context
 * @typedef {{ role: string, coordinator: ProcessId | null, electing: boolean, activeList?: ProcessId[], successor?: ProcessId | null }} Report
 * @typedef {{ type: 'ELECTION', eid: string, list: ProcessId[] } | { type: 'COORDINATOR', eid: string, coordinator: ProcessId, origin: ProcessId }} Hop
 */

/**
 * @typedef {object} State
 * @property {ProcessId} self
 * @property {ProcessId[]} successors  the ring after me, in order, wrapping
 * @property {number} ub               2T + M: the wait for an ACK
 * @property {number} watchdog         an election still open after this long lost a message: start again
 * @property {ProcessId | null} coordinator
 * @property {ProcessId[]} down        successors that did not ACK in time (skipped until heard from)
 * @property {number} seq              the last hop number used
 * @property {{ seq: number, to: ProcessId, hop: Hop }[]} unacked  hops sent, awaiting their ACK
 * @property {string[]} open           elections I take part in whose COORDINATOR I have not seen
 * @property {string[]} seen           elections whose ELECTION I already passed on (or started)
 * @property {string[]} done           elections whose COORDINATOR I already passed on
 * @property {ProcessId[]} activeList  the list of the last ELECTION I saw
 */

/** @param {Config} config @param {Context} ctx @returns {{ state: State, effects: Effect[] }} */
function init(config, ctx) {
  const i = config.ring.indexOf(config.self);
  const ub = 2 * config.timing.transmission + config.timing.processing;
  /** @type {State} */
  const s = {
    self: config.self,
    successors: [...config.ring.slice(i + 1), ...config.ring.slice(0, i)],
    ub,
    watchdog: 2 * config.ring.length * (ub + config.timing.transmission),
    coordinator: null,
    down: [],
    seq: 0,
    unacked: [],
    open: [],
    seen: [],
    done: [],
    activeList: [],
  };
  const c = config.initialCoordinator;
  if (c === undefined || c === null) return startElection(s, ctx); // an election on start
  return { state: { ...s, coordinator: c }, effects: [] };
}

/** @param {State} s */
const liveSuccessor = (s) => s.successors.find((id) => !s.down.includes(id)) ?? null;

/** Send `hop` to the first live successor and wait UB for its ACK. @param {State} s @param {Hop} hop @param {Effect[]} fx @returns {State} */
function forward(s, hop, fx) {
  const to = liveSuccessor(s);
  if (to === null) return alone(s, hop, fx);
  const seq = s.seq + 1;
  fx.push(
    { kind: 'send', to, message: { ...hop, seq } },
    { kind: 'set-timer', name: `ack:${seq}`, after: s.ub },
  );
  return { ...s, seq, unacked: [...s.unacked, { seq, to, hop }] };
}

/** No ACK within UB for hop `seq`: that successor is down. Every hop waiting on it goes, in order, to the next. @param {State} s @param {number} seq @returns {{ state: State, effects: Effect[] }} */
function noAck(s, seq) {
  /** @type {Effect[]} */
  const fx = [];
  const late = s.unacked.find((u) => u.seq === seq);
  if (!late) return { state: s, effects: [] };
  const moved = s.unacked.filter((u) => u.to === late.to);
  for (const u of moved) if (u.seq !== seq) fx.push({ kind: 'cancel-timer', name: `ack:${u.seq}` });
  let next = {
    ...s,
    down: [...s.down, late.to],
    unacked: s.unacked.filter((u) => u.to !== late.to),
  };
  for (const u of moved) next = forward(next, u.hop, fx);
  return { state: next, effects: fx };
}

/** Anything from `from` shows it is up: it is no longer skipped. @param {State} s @param {ProcessId} from @returns {State} */
function revive(s, from) {
  return s.down.includes(from) ? { ...s, down: s.down.filter((id) => id !== from) } : s;
}

/** An ACK from `from` ends the wait of its hop. @param {State} s @param {ProcessId} from @param {unknown} seq @returns {{ state: State, effects: Effect[] }} */
function acked(s, from, seq) {
  const hop = s.unacked.find((u) => u.seq === seq && u.to === from);
  if (!hop) return { state: s, effects: [] };
  return {
    state: { ...s, unacked: s.unacked.filter((u) => u !== hop) },
    effects: [{ kind: 'cancel-timer', name: `ack:${hop.seq}` }],
  };
}

/** Nobody else is up: an ELECTION's circuit is complete here. @param {State} s @param {Hop} hop @param {Effect[]} fx */
function alone(s, hop, fx) {
  if (hop.type !== 'ELECTION') return { ...s, open: s.open.filter((e) => e !== hop.eid) };
  const list = hop.list.includes(s.self) ? hop.list : [...hop.list, s.self];
  return finish(
    {
      ...s,
      activeList: list,
      coordinator: Math.max(...list),
      open: s.open.filter((e) => e !== hop.eid),
    },
    fx,
  );
}

/** No election open any more: stop the watchdog. @param {State} s @param {Effect[]} fx */
function finish(s, fx) {
  if (s.open.length === 0) fx.push({ kind: 'cancel-timer', name: 'watchdog' });
  return s;
}

/** Take part in election `eid` (the first one of an episode forgets who was down and arms the watchdog). @param {State} s @param {string} eid @param {Effect[]} fx */
function join(s, eid, fx) {
  if (s.open.includes(eid)) return s;
  if (s.open.length === 0) {
    fx.push({ kind: 'set-timer', name: 'watchdog', after: s.watchdog });
    s = { ...s, down: [] };
  }
  return { ...s, open: [...s.open, eid], seen: [...s.seen, eid].slice(-64) };
}

/** @param {State} s @param {Context} ctx @returns {{ state: State, effects: Effect[] }} */
function startElection(s, ctx) {
  /** @type {Effect[]} */
  const fx = [];
  const eid = `${s.self}-${Math.floor(ctx.random() * 1e9)}`;
  const joined = join({ ...s, activeList: [s.self] }, eid, fx);
  return { state: forward(joined, { type: 'ELECTION', eid, list: [s.self] }, fx), effects: fx };
}

/** @param {State} s @param {Event} event @param {Context} ctx @returns {{ state: State, effects: Effect[] }} */
function step(s, event, ctx) {
  /** @type {Effect[]} */
  const fx = [];
  if (event.kind === 'elect') return startElection(s, ctx);
  if (event.kind === 'timer') {
    if (event.name === 'watchdog')
      return s.open.length > 0 ? startElection({ ...s, open: [] }, ctx) : { state: s, effects: [] };
    return noAck(s, Number(event.name.slice('ack:'.length)));
  }
  const { from, message: m } = event;
  const revived = revive(s, from);
  if (m.type === 'ACK') return acked(revived, from, m.seq);
  // A hop: acknowledge it first.
  fx.push({ kind: 'send', to: from, message: { type: 'ACK', seq: m.seq } });
  const eid = /** @type {string} */ (m.eid);
  if (m.type === 'ELECTION') {
    const list = /** @type {ProcessId[]} */ (m.list);
    void list;
    // TODO (002): "When the message returns to p, it sees its own process ID in the list and knows
    //   that the circuit is complete. P circulates a COORDINATOR message with the new high number."
    //   (Close the election here: open without eid; forward COORDINATOR { eid, coordinator, origin: me }.)
    // TODO: "Each process adds its own number and forwards to next." (join(), then forward();
    //   an election already passed on (seen) is not forwarded twice.)
    return { state: revived, effects: fx };
  }
  if (m.type === 'COORDINATOR') {
    // TODO: believe m.coordinator, close election m.eid, and pass the COORDINATOR on, unless it
    //   is back at its origin or was passed on already (done).
    return { state: revived, effects: fx };
  }
  return { state: revived, effects: fx };
}

/** @param {State} s @returns {Report} */
function report(s) {
  const electing = s.open.length > 0;
  const mine = s.open.some((e) => e.startsWith(`${s.self}-`));
  return {
    role: electing
      ? mine
        ? 'initiator'
        : 'participant'
      : s.coordinator === s.self
        ? 'coordinator'
        : 'follower',
    coordinator: s.coordinator,
    electing,
    activeList: s.activeList,
    successor: liveSuccessor(s),
  };
}

export default {
  name: 'ring',
  messageTypes: ['ELECTION', 'COORDINATOR', 'ACK'],
  init,
  step,
  report,
};
