// The Emergent Election Algorithm (R. J. Anthony, ICAC 2004; seed 003): four states, Master,
// Slave, Candidate and Idle. Only the small slave pool elects, so an election costs the same
// whatever the size of the idle pool, and the pool keeps itself between two limits as processes
// come and go. This module starts processes and routes events; emergent-pool.ts keeps the pool,
// emergent-election.ts runs the election, emergent-state.ts defines the state and options.
import { defineAlgorithm } from './define.ts';
import { EMERGENT_SCHEMAS } from './emergent-messages.ts';
import {
  type AlgorithmConfig,
  type AlgorithmEvent,
  type Report,
  type StepContext,
} from './algorithm.ts';
import {
  heardSlave,
  lostSlave,
  onTrigger,
  reconsider,
  andThen,
  watchMaster,
} from './emergent-pool.ts';
import {
  onAbort,
  onCandidate,
  onCandidateWait,
  onMasterHeartbeat,
  startCandidacy,
} from './emergent-election.ts';
import {
  broadcast,
  emergentOptions,
  EXPIRE_PREFIX,
  poolSize,
  TIMERS,
  type Eff,
  type EmergentMessage,
  type EmergentState,
  type Out,
} from './emergent-state.ts';

export { EMERGENT_ELECTION_TYPES, emergentOptions, type EmergentState } from './emergent-state.ts';

/** The steady-start pool: the `initialPool` highest ids below the master, the same at every process. */
export function initialSlaves(ids: readonly number[], master: number, size: number): number[] {
  return ids
    .filter((id) => id !== master)
    .sort((a, b) => b - a)
    .slice(0, size)
    .sort((a, b) => a - b);
}

function init(config: AlgorithmConfig, _ctx: StepContext): Out {
  const opts = emergentOptions(config.options, config.timing).options;
  const base: EmergentState = {
    self: config.self,
    ids: config.ids,
    detector: config.detector,
    opts,
    role: 'idle',
    master: null,
    slaves: [],
    candidates: [],
    told: [],
    trigger: null,
  };
  const c = config.initialCoordinator;
  if (c === undefined || c === null || !config.ids.includes(c)) {
    // Everyone starts idle (a restart too): the pool forms by promotion, then elects a master.
    return reconsider(base);
  }
  const pool = initialSlaves(config.ids, c, opts.initialPool);
  const role = c === config.self ? 'master' : pool.includes(config.self) ? 'slave' : 'idle';
  const s: EmergentState = {
    ...base,
    role,
    master: c,
    slaves: pool.filter((id) => id !== config.self),
  };
  // Pool members count as heard at start; their first heartbeats arrive well within slaveTimeout.
  const effects: Eff[] = s.slaves.map((id) => ({
    kind: 'set-timer',
    name: EXPIRE_PREFIX + id,
    after: opts.slaveTimeout,
  }));
  if (role === 'master')
    effects.push({
      kind: 'set-timer',
      name: TIMERS.masterHeartbeat,
      after: opts.heartbeatInterval,
    });
  if (role === 'slave') {
    effects.push({
      kind: 'set-timer',
      name: TIMERS.slaveHeartbeat,
      after: opts.slaveHeartbeatInterval,
    });
    effects.push(...watchMaster(s));
  }
  const re = reconsider(s);
  return { state: re.state, effects: [...effects, ...re.effects] };
}

function onMessage(s: EmergentState, from: number, m: EmergentMessage): Out {
  if (from === s.self) return { state: s, effects: [] };
  switch (m.type) {
    case 'MASTER_HEARTBEAT':
      return onMasterHeartbeat(s, from);
    case 'SLAVE_HEARTBEAT':
      return andThen(heardSlave(s, from), reconsider);
    case 'SLAVE_LEAVE':
      return andThen(lostSlave(s, from), reconsider);
    case 'CANDIDATE':
      return onCandidate(s, from);
    case 'ABORT':
      return onAbort(s, m.master);
    default:
      return { state: s, effects: [] };
  }
}

function onTimer(s: EmergentState, name: string): Out {
  if (name.startsWith(EXPIRE_PREFIX)) {
    const id = Number(name.slice(EXPIRE_PREFIX.length));
    return andThen(lostSlave(s, id, true), reconsider);
  }
  switch (name) {
    case TIMERS.masterHeartbeat:
      if (s.role !== 'master') return { state: s, effects: [] };
      return {
        state: s,
        effects: [
          ...broadcast(s, { type: 'MASTER_HEARTBEAT' }),
          { kind: 'set-timer', name, after: s.opts.heartbeatInterval },
        ],
      };
    case TIMERS.slaveHeartbeat:
      if (s.role !== 'slave' && s.role !== 'candidate') return { state: s, effects: [] };
      return {
        state: s,
        effects: [
          ...broadcast(s, { type: 'SLAVE_HEARTBEAT' }),
          { kind: 'set-timer', name, after: s.opts.slaveHeartbeatInterval },
        ],
      };
    case TIMERS.masterWatch:
      return s.role === 'slave' ? startCandidacy(s) : { state: s, effects: [] };
    case TIMERS.candidateWait:
      return onCandidateWait(s);
    case TIMERS.promote:
      return onTrigger(s, 'promote');
    case TIMERS.demote:
      return onTrigger(s, 'demote');
    default:
      return { state: s, effects: [] };
  }
}

function step(s: EmergentState, event: AlgorithmEvent<EmergentMessage>, _ctx: StepContext): Out {
  switch (event.kind) {
    case 'message':
      return onMessage(s, event.from, event.message);
    case 'timer':
      return onTimer(s, event.name);
    case 'elect':
      // Only slaves elect (003, "Operation i"); for anyone else the request means nothing.
      return s.role === 'slave' ? startCandidacy(s) : { state: s, effects: [] };
  }
}

function emergentReport(s: EmergentState): Report {
  return {
    role: s.role,
    coordinator: s.master,
    electing: s.role === 'candidate',
    detail: { poolSize: poolSize(s) },
  };
}

export const emergent = defineAlgorithm<EmergentState, EmergentMessage>({
  name: 'emergent',
  messages: EMERGENT_SCHEMAS,
  // ABORT names the master a candidate heard: one of the lab's ids.
  accepts: (s, m) => m.type !== 'ABORT' || s.ids.includes(m.master),
  init,
  step,
  report: emergentReport,
});
