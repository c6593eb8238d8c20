// Keeping the slave pool between its limits (seed 003, "Operation ii" and "iii"): every process
// tracks the pool from slave heartbeats; an idle promotes itself when it sees fewer than poolMin
// slaves, a slave demotes itself when it sees more than poolMax. Each process waits a different
// trigger delay before acting and checks again when it fires, so one process moves at a time
// instead of a wave of them.
import {
  broadcast,
  EXPIRE_PREFIX,
  insertSorted,
  poolSize,
  TIMERS,
  type Eff,
  type EmergentState,
  type Out,
} from './emergent-state.ts';
import type { ProcessId } from './algorithm.ts';

/**
 * Idles go in the order of descending id, skipping the pool and the master: every idle sees the
 * same pool, so the orders agree and no two idles share a delay. Each step is longer than a
 * transmission, so the first to promote is heard before the next one's trigger fires.
 */
export function promoteDelay(s: EmergentState): number {
  let rank = 0;
  for (const id of s.ids) if (id > s.self && id !== s.master && !s.slaves.includes(id)) rank++;
  return s.opts.triggerDelay + rank * s.opts.triggerStep;
}

/** Slaves know each other, so their order is compact: the lowest id leaves first. */
export function demoteDelay(s: EmergentState): number {
  let rank = 0;
  for (const id of s.slaves) if (id < s.self) rank++;
  return s.opts.triggerDelay + rank * s.opts.triggerStep;
}

/** Arms or disarms the pool trigger for the current role and pool size. */
export function reconsider(s: EmergentState): Out {
  const size = poolSize(s);
  const want =
    s.role === 'idle' && size < s.opts.poolMin
      ? 'promote'
      : s.role === 'slave' && size > s.opts.poolMax
        ? 'demote'
        : null;
  if (want === s.trigger) return { state: s, effects: [] };
  const effects: Eff[] = [];
  if (s.trigger) effects.push({ kind: 'cancel-timer', name: TIMERS[s.trigger] });
  if (want === 'promote')
    effects.push({ kind: 'set-timer', name: TIMERS.promote, after: promoteDelay(s) });
  if (want === 'demote')
    effects.push({ kind: 'set-timer', name: TIMERS.demote, after: demoteDelay(s) });
  return { state: { ...s, trigger: want }, effects };
}

/** A pool member was heard (slave heartbeat or candidacy): (re)start its expiry. */
export function heardSlave(s: EmergentState, id: ProcessId): Out {
  const expire: Eff = { kind: 'set-timer', name: EXPIRE_PREFIX + id, after: s.opts.slaveTimeout };
  if (id === s.self) return { state: s, effects: [] };
  const slaves = insertSorted(s.slaves, id);
  return { state: slaves === s.slaves ? s : { ...s, slaves }, effects: [expire] };
}

/** A pool member left, became master, or went silent (`expired`: its timer already fired). */
export function lostSlave(s: EmergentState, id: ProcessId, expired = false): Out {
  if (!s.slaves.includes(id)) return { state: s, effects: [] };
  const state = { ...s, slaves: s.slaves.filter((x) => x !== id) };
  return { state, effects: expired ? [] : [{ kind: 'cancel-timer', name: EXPIRE_PREFIX + id }] };
}

/** Joins the pool: announce at once, then beat, and watch the master. */
export function becomeSlave(s: EmergentState, master: ProcessId | null): Out {
  const state: EmergentState = {
    ...s,
    role: 'slave',
    master,
    candidates: [],
    told: [],
    trigger: null,
  };
  const effects: Eff[] = [];
  if (s.trigger) effects.push({ kind: 'cancel-timer', name: TIMERS[s.trigger] });
  if (s.role === 'idle' || s.role === 'master') {
    effects.push(...broadcast(state, { type: 'SLAVE_HEARTBEAT' }));
    effects.push({
      kind: 'set-timer',
      name: TIMERS.slaveHeartbeat,
      after: s.opts.slaveHeartbeatInterval,
    });
  }
  if (s.role === 'master') effects.push({ kind: 'cancel-timer', name: TIMERS.masterHeartbeat });
  if (s.role === 'candidate') effects.push({ kind: 'cancel-timer', name: TIMERS.candidateWait });
  effects.push(...watchMaster(state));
  const re = reconsider(state);
  return { state: re.state, effects: [...effects, ...re.effects] };
}

/** (Re)starts the slave's watch on the master; with detector 'none' only `elect` starts elections. */
export function watchMaster(s: EmergentState): Eff[] {
  if (s.detector === 'none') return [];
  return [{ kind: 'set-timer', name: TIMERS.masterWatch, after: s.opts.masterTimeout }];
}

/** Leaves the pool, telling everyone so that they recount now rather than after slaveTimeout. */
function becomeIdle(s: EmergentState): Out {
  const state: EmergentState = { ...s, role: 'idle', trigger: null };
  const effects: Eff[] = [
    { kind: 'cancel-timer', name: TIMERS.slaveHeartbeat },
    { kind: 'cancel-timer', name: TIMERS.masterWatch },
    ...broadcast(state, { type: 'SLAVE_LEAVE' }),
  ];
  const re = reconsider(state);
  return { state: re.state, effects: [...effects, ...re.effects] };
}

/** The promote or demote trigger fired: act only if the pool still needs it. */
export function onTrigger(s: EmergentState, which: 'promote' | 'demote'): Out {
  if (s.trigger !== which) return { state: s, effects: [] };
  const s1: EmergentState = { ...s, trigger: null };
  const size = poolSize(s1);
  if (which === 'promote' && s1.role === 'idle' && size < s1.opts.poolMin)
    return becomeSlave(s1, s1.master);
  if (which === 'demote' && s1.role === 'slave' && size > s1.opts.poolMax) return becomeIdle(s1);
  return reconsider(s1);
}

/** Chains step fragments: each sees the state the previous one left. (Not `then`: a module exporting `then` is a thenable.) */
export function andThen(first: Out, next: (s: EmergentState) => Out): Out {
  const second = next(first.state);
  return { state: second.state, effects: [...first.effects, ...second.effects] };
}
