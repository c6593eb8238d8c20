// The active-list ring election (001, "Election In A Ring") as a student module: a complete example.
// Rules for process i (001): on detection, "sets its active list to [ ]", "sends Elect(i)", "sets
// active list to [i]"; on Elect(j): (a) the first message seen: list [i, j], send Elect(i) and
// Elect(j); (b) i != j: add j to the list and forward Elect(j); (c) i = j: the list is complete,
// choose the highest id x and send Elected(x) to the neighbour; on Elected(x): coordinator = x.
// Every Elect and Elected carries the election's epoch (a detection opens epoch + 1; leftovers
// of older epochs are dropped), and every hop is acknowledged (ACK with the hop's seq); no ACK
// within UB = 2T + M means the successor is down: skip it.
// The host runs the failure detector: when it suspects the coordinator you get { kind: 'elect' }.

/**
 * @typedef {number} ProcessId
 * @typedef {{ transmission: number, processing: number, heartbeatInterval: number, heartbeatTimeout: number }} Timing
 * @typedef {{ self: ProcessId, ids: ProcessId[], ring: ProcessId[], timing: Timing, detector: 'heartbeat' | 'poll' | 'none', initialCoordinator?: ProcessId | null, options?: Record<string, unknown> }} Config
 * @typedef {{ type: string } & Record<string, unknown>} Message
 * @typedef {{ kind: 'message', from: ProcessId, message: Message } | { kind: 'timer', name: string } | { kind: 'elect' }} Event
 * @typedef {{ kind: 'send', to: ProcessId, message: Message } | { kind: 'set-timer', name: string, after: number } | { kind: 'cancel-timer', name: string }} Effect
 * @typedef {{ now: number, random: () => number }} Context
 * @typedef {{ role: string, coordinator: ProcessId | null, electing: boolean, activeList?: ProcessId[], successor?: ProcessId | null }} Report
 * @typedef {{ type: 'ELECT', id: ProcessId, epoch: number } | { type: 'ELECTED', coordinator: ProcessId, epoch: number }} Hop
 */

/**
 * @typedef {object} State
 * @property {ProcessId} self
 * @property {ProcessId[]} successors  the ring after me, in order, wrapping
 * @property {number} ub               2T + M: the wait for an ACK
 * @property {number} watchdog         an election still open after this long lost a message: start again
 * @property {ProcessId | null} coordinator
 * @property {number} epoch            the election I take part in (or last took part in); 0: unknown
 * @property {boolean} participating   an Elect was sent or seen in this epoch and no Elected yet
 * @property {ProcessId[]} activeList  ascending
 * @property {boolean} told            Elected(x) already sent in this epoch (rule (c) once)
 * @property {ProcessId[]} down        successors that did not ACK in time (skipped until heard from)
 * @property {number} seq              the last hop number used
 * @property {{ seq: number, to: ProcessId, hop: Hop }[]} unacked  hops sent, awaiting their ACK
 */

/** @param {Config} config @returns {{ state: State, effects: Effect[] }} */
function init(config) {
  const i = config.ring.indexOf(config.self);
  const ub = 2 * config.timing.transmission + config.timing.processing;
  /** @type {State} */
  const s = {
    self: config.self,
    successors: [...config.ring.slice(i + 1), ...config.ring.slice(0, i)],
    ub,
    watchdog: 2 * config.ring.length * (ub + config.timing.transmission),
    coordinator: null,
    epoch: 0,
    participating: false,
    activeList: [],
    told: false,
    down: [],
    seq: 0,
    unacked: [],
  };
  const c = config.initialCoordinator;
  if (c === undefined || c === null) return detect(s, 0); // a fresh start: an election, epoch unknown
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

/** Nobody else is up: my own Elect is in effect back, and my Elected reaches only me. @param {State} s @param {Hop} hop @param {Effect[]} fx @returns {State} */
function alone(s, hop, fx) {
  if (hop.type === 'ELECTED')
    return settle({ ...s, coordinator: hop.coordinator, participating: false }, fx);
  if (hop.id === s.self && s.participating && !s.told)
    return settle(
      { ...s, coordinator: Math.max(...s.activeList), participating: false, told: true },
      fx,
    );
  return s;
}

/** The election is over here: stop the watchdog. @param {State} s @param {Effect[]} fx */
function settle(s, fx) {
  fx.push({ kind: 'cancel-timer', name: 'watchdog' });
  return s;
}

/** The first Elect sent or seen in `epoch`: a new election here. @param {State} s @param {number} epoch @param {ProcessId[]} list @param {Hop[]} hops */
function participate(s, epoch, list, hops) {
  /** @type {Effect[]} */
  const fx = [{ kind: 'set-timer', name: 'watchdog', after: s.watchdog }];
  /** @type {State} */
  let next = {
    ...s,
    epoch,
    participating: true,
    activeList: [...new Set(list)].sort((a, b) => a - b),
    told: false,
    down: [],
  };
  for (const hop of hops) next = forward(next, hop, fx);
  return { state: next, effects: fx };
}

/** 001: "P2 sets its active list to [ ]; P2 sends Elect(2) ...; P2 sets active list to [2]". @param {State} s @param {number} epoch */
function detect(s, epoch) {
  return participate(s, epoch, [s.self], [{ type: 'ELECT', id: s.self, epoch }]);
}

/** @param {State} s0 @param {ProcessId} j @param {number} e @param {ProcessId} from @returns {{ state: State, effects: Effect[] }} */
function onElect(s0, j, e, from) {
  // Elect(j) says j is up: a successor skipped as dead (it may have restarted) is tried again.
  const s = s0.down.includes(j) ? { ...s0, down: s0.down.filter((id) => id !== j) } : s0;
  const none = { state: s, effects: [] };
  if (e !== 0 && e > s.epoch) {
    // (a) the first message seen in this epoch: list [i, j]; send Elect(i) and Elect(j).
    if (j === s.self) return participate(s, e, [s.self], [{ type: 'ELECT', id: s.self, epoch: e }]);
    return participate(
      s,
      e,
      [s.self, j],
      [
        { type: 'ELECT', id: s.self, epoch: e },
        { type: 'ELECT', id: j, epoch: e },
      ],
    );
  }
  if (e === 0) {
    // A newcomer that does not know the epoch: an idle process holds a fresh election for it.
    if (!s.participating) return j === s.self ? none : detect(s, s.epoch + 1);
    if (j === s.self && s.epoch !== 0) return none;
    // j's own Elect, from j, after j took part in this election: j restarted with its state
    // lost; as a copy it would be dropped and j never told the result. Elect again, with j.
    if (s.epoch !== 0 && j !== s.self && from === j && s.activeList.includes(j))
      return detect(s, s.epoch + 1);
  } else if (e < s.epoch) {
    // A leftover of an older election, unless it is j's own, straight from j, and the election
    // decided here left j out: j restarted, was skipped as dead, and its watchdog's election
    // carries the only epoch it knows. Dropped, j would wait a watchdog per epoch behind.
    if (!s.participating && j !== s.self && from === j && !s.activeList.includes(j))
      return detect(s, s.epoch + 1);
    return none;
  }
  // j joins an election already decided here (it restarted and its watchdog reused this epoch):
  // rule (c) ran without it and nobody will tell it the result. Elect again, with j.
  else if (e === s.epoch && !s.participating && j !== s.self && !s.activeList.includes(j))
    return detect(s, s.epoch + 1);
  /** @type {Effect[]} */
  const fx = [];
  if (j !== s.self) {
    // (b) add j and forward Elect(j), once (a j already in the list was forwarded already).
    if (s.activeList.includes(j)) return none;
    const next = { ...s, activeList: [...s.activeList, j].sort((a, b) => a - b) };
    return { state: forward(next, { type: 'ELECT', id: j, epoch: s.epoch }, fx), effects: fx };
  }
  // (c) my own Elect is back: the list is complete; choose the highest and tell my neighbour, once.
  if (!s.participating || s.told) return none;
  const x = Math.max(...s.activeList);
  return {
    state: forward({ ...s, told: true }, { type: 'ELECTED', coordinator: x, epoch: s.epoch }, fx),
    effects: fx,
  };
}

/** 001: "If a process receives Elected(x) message, set coordinator to x." @param {State} s @param {ProcessId} x @param {number} e */
function onElected(s, x, e) {
  if (e < s.epoch) return { state: s, effects: [] };
  // A winner below me: the list that chose it missed me. The highest must win: elect again.
  if (x < s.self)
    return s.participating && e === s.epoch ? { state: s, effects: [] } : detect(s, e + 1);
  /** @type {Effect[]} */
  const fx = [];
  return {
    state: settle({ ...s, coordinator: x, epoch: e, participating: false }, fx),
    effects: fx,
  };
}

/** @param {State} s @param {Event} event @returns {{ state: State, effects: Effect[] }} */
function step(s, event) {
  /** @type {Effect[]} */
  const fx = [];
  if (event.kind === 'elect')
    return s.participating ? { state: s, effects: [] } : detect(s, s.epoch + 1);
  if (event.kind === 'timer') {
    if (event.name === 'watchdog')
      return s.participating ? detect(s, s.epoch + 1) : { state: s, effects: [] };
    return noAck(s, Number(event.name.slice('ack:'.length)));
  }
  const { from, message: m } = event;
  const revived = revive(s, from);
  if (m.type === 'ACK') return acked(revived, from, m.seq);
  // A hop: acknowledge it first.
  fx.push({ kind: 'send', to: from, message: { type: 'ACK', seq: m.seq } });
  const out =
    m.type === 'ELECT'
      ? onElect(revived, /** @type {ProcessId} */ (m.id), /** @type {number} */ (m.epoch), from)
      : m.type === 'ELECTED'
        ? onElected(
            revived,
            /** @type {ProcessId} */ (m.coordinator),
            /** @type {number} */ (m.epoch),
          )
        : { state: revived, effects: [] };
  return { state: out.state, effects: [...fx, ...out.effects] };
}

/** @param {State} s @returns {Report} */
function report(s) {
  return {
    role: s.participating ? 'participant' : s.coordinator === s.self ? 'coordinator' : 'follower',
    coordinator: s.coordinator,
    electing: s.participating,
    activeList: s.activeList,
    successor: liveSuccessor(s),
  };
}

export default {
  name: 'ring-active-list',
  messageTypes: ['ELECT', 'ELECTED', 'ACK'],
  init,
  step,
  report,
};
