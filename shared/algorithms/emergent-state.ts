// The emergent election algorithm's state, messages and options (R. J. Anthony, ICAC 2004, as
// seed 003 describes it). Split from the step functions so the pool and election modules share
// one definition.
import type { Counted } from './define.ts';
import {
  roundTripBound,
  type DetectorMode,
  type Effect,
  type ProcessId,
  type Step,
  type Timing,
} from './algorithm.ts';

type EmergentRole = 'master' | 'slave' | 'candidate' | 'idle';

export type EmergentMessage =
  /** The master's beacon, to everyone: it inhibits elections (003, "Normal States"). */
  | { type: 'MASTER_HEARTBEAT' }
  /** A pool member's beacon, to everyone: idles count these (003, "Operation ii"). */
  | { type: 'SLAVE_HEARTBEAT' }
  /** A slave demoting itself to idle, to everyone, so the others recount at once. */
  | { type: 'SLAVE_LEAVE' }
  /** Election among the pool only: "I am a candidate" (the highest candidate wins). */
  | { type: 'CANDIDATE' }
  /** Election among the pool only: a candidate heard `master` after all; the election is off. */
  | { type: 'ABORT'; master: ProcessId };

/** The messages exchanged in the candidate state: the ones whose count must not grow with the idle pool. */
export const EMERGENT_ELECTION_TYPES = ['CANDIDATE', 'ABORT'] as const;

interface EmergentOptions {
  /** Idles promote while fewer than this many slaves are seen. Default 3. */
  poolMin: number;
  /** Slaves demote while more than this many are seen (self included). Must exceed poolMin. Default 5. */
  poolMax: number;
  /** Slaves at a steady start (the next highest ids below the master). Default round((poolMin + poolMax) / 2). */
  initialPool: number;
  /** Master heartbeat periods the candidates wait before the new master takes over. Default 3. */
  candidateWaitPeriods: number;
  /** Master heartbeat period, ms. Default timing.heartbeatInterval. */
  heartbeatInterval: number;
  /** A slave suspects the master after this long without its heartbeat, ms. Default timing.heartbeatTimeout. */
  masterTimeout: number;
  /** Slave heartbeat period, ms. Default timing.heartbeatInterval. */
  slaveHeartbeatInterval: number;
  /** A slave not heard from for this long is out of the pool, ms. Default timing.heartbeatTimeout. */
  slaveTimeout: number;
  /** Base delay before an idle promotes or a slave demotes, ms. Default timing.heartbeatInterval. */
  triggerDelay: number;
  /** Extra delay per process ahead in the trigger order, ms; above one transmission. Default 2T + M. */
  triggerStep: number;
}

export interface EmergentState extends Counted {
  self: ProcessId;
  ids: readonly ProcessId[];
  detector: DetectorMode;
  opts: EmergentOptions;
  role: EmergentRole;
  /** The master this process believes in (null while electing or before one is heard). */
  master: ProcessId | null;
  /** Other pool members (slaves and candidates) heard within slaveTimeout, ascending. */
  slaves: readonly ProcessId[];
  /** This election's candidates heard from, self included (candidate state only). */
  candidates: readonly ProcessId[];
  /** Ids this candidate has sent CANDIDATE to in this election. */
  told: readonly ProcessId[];
  /** The pool trigger armed now, if any: an idle waiting to promote or a slave waiting to demote. */
  trigger: 'promote' | 'demote' | null;
}

export type Eff = Effect<EmergentMessage>;
export type Out = Step<EmergentState, EmergentMessage>;

export const TIMERS = {
  masterHeartbeat: 'master-heartbeat',
  slaveHeartbeat: 'slave-heartbeat',
  masterWatch: 'master-watch',
  candidateWait: 'candidate-wait',
  promote: 'promote',
  demote: 'demote',
} as const;
/** One expiry timer per pool member this process has heard. */
export const EXPIRE_PREFIX = 'expire:';

/** Reads config.options; bad entries fall back to their defaults and are named in `problems`. */
export function emergentOptions(
  raw: Readonly<Record<string, unknown>> | undefined,
  timing: Timing,
): { options: EmergentOptions; problems: string[] } {
  const problems: string[] = [];
  const num = (key: string, fallback: number, min: number, integer = false): number => {
    const v = raw?.[key];
    if (v === undefined) return fallback;
    if (
      typeof v === 'number' &&
      Number.isFinite(v) &&
      v >= min &&
      (!integer || Number.isInteger(v))
    )
      return v;
    problems.push(`${key}: expected ${integer ? 'an integer' : 'a number'} >= ${min}`);
    return fallback;
  };
  let poolMin = num('poolMin', 3, 1, true);
  let poolMax = num('poolMax', Math.max(5, poolMin + 1), 2, true);
  if (poolMax <= poolMin) {
    // Equal limits would let one process flap between idle and slave (003, "Operation iii").
    problems.push('poolMax: must exceed poolMin');
    [poolMin, poolMax] = [3, 5];
  }
  let initialPool = num('initialPool', Math.round((poolMin + poolMax) / 2), 0, true);
  if (initialPool < poolMin || initialPool > poolMax) {
    problems.push('initialPool: must lie within [poolMin, poolMax]');
    initialPool = Math.round((poolMin + poolMax) / 2);
  }
  const options: EmergentOptions = {
    poolMin,
    poolMax,
    initialPool,
    candidateWaitPeriods: num('candidateWaitPeriods', 3, 1),
    heartbeatInterval: num('heartbeatInterval', timing.heartbeatInterval, 1),
    masterTimeout: num('masterTimeout', timing.heartbeatTimeout, 1),
    slaveHeartbeatInterval: num('slaveHeartbeatInterval', timing.heartbeatInterval, 1),
    slaveTimeout: num('slaveTimeout', timing.heartbeatTimeout, 1),
    triggerDelay: num('triggerDelay', timing.heartbeatInterval, 0),
    triggerStep: num('triggerStep', roundTripBound(timing), 0),
  };
  if (options.slaveTimeout <= options.slaveHeartbeatInterval)
    problems.push('slaveTimeout: should exceed slaveHeartbeatInterval');
  if (options.masterTimeout <= options.heartbeatInterval)
    problems.push('masterTimeout: should exceed heartbeatInterval');
  return { options, problems };
}

export function broadcast(s: EmergentState, message: EmergentMessage): Eff[] {
  const out: Eff[] = [];
  for (const to of s.ids) if (to !== s.self) out.push({ kind: 'send', to, message });
  return out;
}

function inPool(role: EmergentRole): boolean {
  return role === 'slave' || role === 'candidate';
}

/** Slaves this process sees, itself included when it is one. */
export function poolSize(s: EmergentState): number {
  return s.slaves.length + (inPool(s.role) ? 1 : 0);
}

export function insertSorted(list: readonly ProcessId[], id: ProcessId): readonly ProcessId[] {
  if (list.includes(id)) return list;
  return [...list, id].sort((a, b) => a - b);
}
