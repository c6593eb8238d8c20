// The election inside the slave pool (seed 003, "Operation i"): when the master's heartbeats
// stop, only slaves enter the candidate state. Each candidate sends CANDIDATE to the pool
// members it knows (never to idles), and every slave that hears one joins. All candidates then
// wait a few master heartbeat periods; a master heartbeat in that window means the old master
// is alive after all (ABORT). When the wait ends, the highest candidate heard takes over as
// master and the rest return to being its slaves. The messages exchanged are k(k-1) for a pool
// of k, whatever the number of idles.
import type { ProcessId } from './algorithm.ts';
import { becomeSlave, heardSlave, lostSlave, reconsider, andThen } from './emergent-pool.ts';
import {
  broadcast,
  insertSorted,
  TIMERS,
  type Eff,
  type EmergentState,
  type Out,
} from './emergent-state.ts';

/** A slave stops believing in the master and asks the rest of the pool to elect. */
export function startCandidacy(s: EmergentState): Out {
  const told = s.slaves;
  const state: EmergentState = {
    ...s,
    role: 'candidate',
    master: null,
    candidates: [s.self],
    told,
    trigger: null,
  };
  const effects: Eff[] = [
    { kind: 'cancel-timer', name: TIMERS.masterWatch },
    ...(s.trigger ? [{ kind: 'cancel-timer', name: TIMERS[s.trigger] } as const] : []),
    ...told.map((to): Eff => ({ kind: 'send', to, message: { type: 'CANDIDATE' } })),
    {
      kind: 'set-timer',
      name: TIMERS.candidateWait,
      after: s.opts.candidateWaitPeriods * s.opts.heartbeatInterval,
    },
  ];
  return { state, effects };
}

export function onCandidate(s0: EmergentState, from: ProcessId): Out {
  if (s0.role === 'idle') return { state: s0, effects: [] }; // idles take no part
  if (s0.role === 'master') {
    // The candidate thinks the master is gone: a beacon straight back inhibits the election.
    return {
      state: s0,
      effects: [{ kind: 'send', to: from, message: { type: 'MASTER_HEARTBEAT' } }],
    };
  }
  // The sender is a pool member even if its slave heartbeat has not reached us yet.
  return andThen(heardSlave(s0, from), (s1) =>
    andThen(s1.role === 'slave' ? startCandidacy(s1) : { state: s1, effects: [] }, (s) => {
      const candidates = insertSorted(s.candidates, from);
      // Answer a candidate we had not told, so both always hear each other.
      if (s.told.includes(from)) return { state: { ...s, candidates }, effects: [] };
      return {
        state: { ...s, candidates, told: insertSorted(s.told, from) },
        effects: [{ kind: 'send', to: from, message: { type: 'CANDIDATE' } }],
      };
    }),
  );
}

/** The wait is over: the highest candidate heard becomes master, the others its slaves. */
export function onCandidateWait(s: EmergentState): Out {
  if (s.role !== 'candidate') return { state: s, effects: [] };
  const winner = Math.max(...s.candidates);
  if (winner !== s.self) return becomeSlave(s, winner);
  return becomeMaster(s);
}

function becomeMaster(s: EmergentState): Out {
  const state: EmergentState = {
    ...s,
    role: 'master',
    master: s.self,
    candidates: [],
    told: [],
    trigger: null,
  };
  const effects: Eff[] = [
    { kind: 'cancel-timer', name: TIMERS.candidateWait },
    { kind: 'cancel-timer', name: TIMERS.slaveHeartbeat },
    { kind: 'cancel-timer', name: TIMERS.masterWatch },
    ...(s.trigger ? [{ kind: 'cancel-timer', name: TIMERS[s.trigger] } as const] : []),
    ...broadcast(state, { type: 'MASTER_HEARTBEAT' }),
    { kind: 'set-timer', name: TIMERS.masterHeartbeat, after: s.opts.heartbeatInterval },
  ];
  return { state, effects };
}

export function onMasterHeartbeat(s0: EmergentState, from: ProcessId): Out {
  // A master is no longer a pool member.
  return andThen(lostSlave(s0, from), (s) => {
    switch (s.role) {
      case 'master':
        // Two masters (a healed partition, a lost CANDIDATE): the higher id keeps the role.
        return from > s.self ? becomeSlave(s, from) : { state: s, effects: [] };
      case 'candidate': {
        if (s.candidates.includes(from)) return becomeSlave(s, from); // the winner took over first
        // The old master is alive: call the election off for every candidate we told.
        const abort: Eff[] = s.told.map((to) => ({
          kind: 'send',
          to,
          message: { type: 'ABORT', master: from },
        }));
        const out = becomeSlave(s, from);
        return { state: out.state, effects: [...abort, ...out.effects] };
      }
      case 'slave':
        return becomeSlave(s, from);
      case 'idle':
        return reconsider(s.master === from ? s : { ...s, master: from });
    }
  });
}

export function onAbort(s: EmergentState, master: unknown): Out {
  if (
    s.role !== 'candidate' ||
    typeof master !== 'number' ||
    master === s.self ||
    !s.ids.includes(master)
  ) {
    return { state: s, effects: [] };
  }
  return becomeSlave(s, master);
}
