// Unit tests of the emergent election algorithm's step function. Rules from seed 003 (R. J.
// Anthony, ICAC 2004, "Emergent Election Algorithm": Normal States, Novel States, Operation i-iii).
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type Effect,
  type StepContext,
} from '@shared/algorithms/algorithm.ts';
import {
  emergent,
  emergentOptions,
  initialSlaves,
  type EmergentState,
} from '@shared/algorithms/emergent.ts';
import { demoteDelay, promoteDelay } from '@shared/algorithms/emergent-pool.ts';
import type { EmergentMessage } from '@shared/algorithms/emergent-state.ts';

// 12 processes: master 11, slaves 7..10 (initialPool 4 by default), idles 0..6.
const ids = [...Array(12).keys()];
const ctx: StepContext = { now: 0, random: () => 0.5 };
const config = (self: number, extra: Partial<AlgorithmConfig> = {}): AlgorithmConfig => ({
  self,
  ids,
  ring: ids,
  timing: DEFAULT_TIMING,
  detector: 'heartbeat',
  initialCoordinator: 11,
  ...extra,
});
const start = (self: number, extra: Partial<AlgorithmConfig> = {}) =>
  emergent.init(config(self, extra), ctx).state;

type Eff = Effect<EmergentMessage>;
type Ev = AlgorithmEvent<EmergentMessage>;
const msg = (from: number, type: EmergentMessage['type'], extra: object = {}): Ev => ({
  kind: 'message',
  from,
  message: { type, ...extra } as EmergentMessage,
});
const tick = (name: string): Ev => ({ kind: 'timer', name });
const sent = (effects: Eff[], type: string) =>
  effects
    .filter(
      (e): e is Extract<Eff, { kind: 'send' }> => e.kind === 'send' && e.message.type === type,
    )
    .map((e) => e.to);
const timer = (effects: Eff[], name: string) =>
  effects.find(
    (e): e is Extract<Eff, { kind: 'set-timer' }> => e.kind === 'set-timer' && e.name === name,
  );

function run(s: EmergentState, events: Ev[]) {
  const effects: Eff[] = [];
  for (const e of events) {
    const out = emergent.step(s, e, ctx);
    s = out.state;
    effects.push(...out.effects);
  }
  return { state: s, effects };
}

describe('emergent step', () => {
  it('emergent: a steady start makes the given process master, the next highest ids slaves, the rest idle', () => {
    expect(initialSlaves(ids, 11, 4)).toEqual([7, 8, 9, 10]);
    expect(emergent.report(start(11))).toMatchObject({
      role: 'master',
      coordinator: 11,
      electing: false,
      detail: { poolSize: 4 },
    });
    expect(emergent.report(start(8))).toMatchObject({
      role: 'slave',
      coordinator: 11,
      detail: { poolSize: 4 },
    });
    expect(emergent.report(start(3))).toMatchObject({
      role: 'idle',
      coordinator: 11,
      detail: { poolSize: 4 },
    });
  });

  it('emergent: the master beacons to everyone, idles included, and slaves beat to everyone (003, Normal States, Operation ii)', () => {
    const m = run(start(11), [tick('master-heartbeat')]);
    expect(sent(m.effects, 'MASTER_HEARTBEAT')).toEqual(ids.slice(0, 11));
    expect(timer(m.effects, 'master-heartbeat')!.after).toBe(DEFAULT_TIMING.heartbeatInterval);
    const s = run(start(9), [tick('slave-heartbeat')]);
    expect(sent(s.effects, 'SLAVE_HEARTBEAT')).toEqual(ids.filter((id) => id !== 9));
  });

  it('emergent: when the master falls silent only slaves become candidates, telling the pool and no idle (003, Operation i)', () => {
    const { state, effects } = run(start(8), [tick('master-watch')]);
    expect(emergent.report(state)).toMatchObject({
      role: 'candidate',
      electing: true,
      coordinator: null,
    });
    expect(sent(effects, 'CANDIDATE')).toEqual([7, 9, 10]);
    expect(timer(effects, 'candidate-wait')!.after).toBe(3 * DEFAULT_TIMING.heartbeatInterval);
    // An idle's watch means nothing: idles never elect, even when asked to.
    const idle = start(3);
    expect(
      run(idle, [tick('master-watch'), { kind: 'elect' }, msg(8, 'CANDIDATE')]).state.role,
    ).toBe('idle');
  });

  it('emergent: a slave hearing CANDIDATE joins the election and every candidate hears every other', () => {
    const { state, effects } = run(start(10), [msg(8, 'CANDIDATE')]);
    expect(state.role).toBe('candidate');
    expect(state.candidates).toEqual([8, 10]);
    expect(sent(effects, 'CANDIDATE')).toEqual([7, 8, 9]);
    // A candidate that had not told the sender (it was not in its pool view) answers it.
    const late = run(start(7), [tick('master-watch'), msg(5, 'CANDIDATE')]);
    expect(sent(late.effects, 'CANDIDATE')).toEqual([8, 9, 10, 5]);
    expect(late.state.candidates).toEqual([5, 7]);
  });

  it('emergent: after the wait the highest candidate becomes master and the others its slaves', () => {
    const events = [
      tick('master-watch'),
      msg(7, 'CANDIDATE'),
      msg(9, 'CANDIDATE'),
      tick('candidate-wait'),
    ];
    const winner = run(start(10), [
      tick('master-watch'),
      msg(7, 'CANDIDATE'),
      tick('candidate-wait'),
    ]);
    expect(emergent.report(winner.state)).toMatchObject({
      role: 'master',
      coordinator: 10,
      electing: false,
    });
    expect(sent(winner.effects, 'MASTER_HEARTBEAT')).toEqual(ids.filter((id) => id !== 10));
    expect(winner.effects).toContainEqual({ kind: 'cancel-timer', name: 'slave-heartbeat' });
    const waiting = run(start(8), events.slice(0, -1)).state;
    const loser = run(waiting, [tick('candidate-wait')]);
    expect(emergent.report(loser.state)).toMatchObject({
      role: 'slave',
      coordinator: 9,
      electing: false,
    });
    expect(timer(loser.effects, 'master-watch')).toBeDefined(); // it now watches the new master
  });

  it('emergent: a candidate that hears the old master calls the election off for the others (003: wait to check the old master is gone)', () => {
    const c = run(start(8), [tick('master-watch'), msg(9, 'CANDIDATE')]).state;
    const { state, effects } = run(c, [msg(11, 'MASTER_HEARTBEAT')]);
    expect(emergent.report(state)).toMatchObject({ role: 'slave', coordinator: 11 });
    expect(sent(effects, 'ABORT')).toEqual([7, 9, 10]);
    const other = run(start(9), [msg(8, 'CANDIDATE'), msg(8, 'ABORT', { master: 11 })]);
    expect(emergent.report(other.state)).toMatchObject({
      role: 'slave',
      coordinator: 11,
      electing: false,
    });
  });

  it('emergent: a candidate hearing the heartbeat of a fellow candidate accepts it as the new master', () => {
    const c = run(start(8), [tick('master-watch'), msg(10, 'CANDIDATE')]).state;
    const { state, effects } = run(c, [msg(10, 'MASTER_HEARTBEAT')]);
    expect(emergent.report(state)).toMatchObject({ role: 'slave', coordinator: 10 });
    expect(sent(effects, 'ABORT')).toEqual([]);
  });

  it('emergent: of two masters the lower id yields and becomes a slave', () => {
    const low = run(start(11, { initialCoordinator: 6 }), []).state;
    expect(low.role).toBe('slave');
    const m = start(10, { initialCoordinator: 10 });
    expect(run(m, [msg(4, 'MASTER_HEARTBEAT')]).state.role).toBe('master');
    const yielded = run(m, [msg(11, 'MASTER_HEARTBEAT')]);
    expect(emergent.report(yielded.state)).toMatchObject({ role: 'slave', coordinator: 11 });
    expect(sent(yielded.effects, 'SLAVE_HEARTBEAT')).toHaveLength(11);
  });

  it('emergent: an idle counting fewer than poolMin slaves promotes itself after its trigger delay (003, Operation ii)', () => {
    const opts = { options: { poolMin: 3, poolMax: 5 } };
    let s = start(5, opts);
    // Slaves 10 and 9 fall silent: 2 of 4 left, below poolMin = 3.
    const lose1 = run(s, [tick('expire:10')]);
    expect(lose1.state.trigger).toBeNull();
    const lose2 = run(lose1.state, [tick('expire:9')]);
    expect(emergent.report(lose2.state).detail).toEqual({ poolSize: 2 });
    expect(timer(lose2.effects, 'promote')).toBeDefined();
    const promoted = run(lose2.state, [tick('promote')]);
    expect(emergent.report(promoted.state)).toMatchObject({
      role: 'slave',
      coordinator: 11,
      detail: { poolSize: 3 },
    });
    expect(sent(promoted.effects, 'SLAVE_HEARTBEAT')).toHaveLength(11);
    // If another idle promoted first, the trigger finds the pool full again and does nothing.
    s = run(lose2.state, [msg(6, 'SLAVE_HEARTBEAT')]).state;
    expect(s.trigger).toBeNull();
    expect(run(s, [tick('promote')]).state.role).toBe('idle');
  });

  it('emergent: idles wait different trigger delays, so they promote one at a time (003, Operation iii: no waves)', () => {
    const short = (self: number) => run(start(self), [tick('expire:10'), tick('expire:9')]).state;
    const delays = [0, 1, 2, 3, 4, 5, 6].map((id) => promoteDelay(short(id)));
    expect(new Set(delays).size).toBe(delays.length);
    // Consecutive idles are more than one transmission apart: the earlier one is heard in time.
    const sorted = [...delays].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++)
      expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThan(DEFAULT_TIMING.transmission);
  });

  it('emergent: a slave seeing more than poolMax slaves demotes itself, the lowest id first, and says so (003, Operation ii)', () => {
    const s = (self: number) =>
      run(start(self), [msg(5, 'SLAVE_HEARTBEAT'), msg(6, 'SLAVE_HEARTBEAT')]);
    const seven = s(7);
    expect(emergent.report(seven.state).detail).toEqual({ poolSize: 6 });
    expect(timer(seven.effects, 'demote')).toBeDefined();
    expect(demoteDelay(s(8).state)).toBeGreaterThan(demoteDelay(seven.state));
    const left = run(seven.state, [tick('demote')]);
    expect(emergent.report(left.state)).toMatchObject({ role: 'idle', coordinator: 11 });
    expect(sent(left.effects, 'SLAVE_LEAVE')).toHaveLength(11);
    // Slave 8 hears the leave before its own trigger: 5 remain, no second demotion.
    const eight = run(s(8).state, [msg(7, 'SLAVE_LEAVE'), tick('demote')]);
    expect(eight.state.role).toBe('slave');
  });

  it('emergent: between poolMin and poolMax nobody moves, so the pool does not flap (003, Operation iii)', () => {
    const idleAt3 = run(start(2), [tick('expire:10')]);
    expect(idleAt3.state.trigger).toBeNull();
    const slaveAt5 = run(start(7), [msg(5, 'SLAVE_HEARTBEAT')]);
    expect(emergent.report(slaveAt5.state).detail).toEqual({ poolSize: 5 });
    expect(slaveAt5.state.trigger).toBeNull();
  });

  it('emergent: a pool member is forgotten when its heartbeats stop and when it becomes master', () => {
    const idle = start(1);
    expect(run(idle, [tick('expire:8')]).state.slaves).toEqual([7, 9, 10]);
    expect(run(idle, [msg(9, 'MASTER_HEARTBEAT')]).state).toMatchObject({
      slaves: [7, 8, 10],
      master: 9,
    });
  });

  it('emergent: a fresh start is idle with no master and arms its promotion at once', () => {
    const out = emergent.init(config(4, { initialCoordinator: null }), ctx);
    expect(emergent.report(out.state)).toMatchObject({
      role: 'idle',
      coordinator: null,
      detail: { poolSize: 0 },
    });
    expect(timer(out.effects, 'promote')).toBeDefined();
  });

  it('emergent: options default to a 3..5 pool and reject equal limits, which would flap', () => {
    const d = emergentOptions(undefined, DEFAULT_TIMING);
    expect(d.problems).toEqual([]);
    expect(d.options).toMatchObject({
      poolMin: 3,
      poolMax: 5,
      initialPool: 4,
      candidateWaitPeriods: 3,
      triggerStep: 210,
    });
    const bad = emergentOptions({ poolMin: 4, poolMax: 4 }, DEFAULT_TIMING);
    expect(bad.problems).toEqual(['poolMax: must exceed poolMin']);
    expect(bad.options).toMatchObject({ poolMin: 3, poolMax: 5 });
    expect(
      emergentOptions({ initialPool: 9, candidateWaitPeriods: 0 }, DEFAULT_TIMING).problems,
    ).toHaveLength(2);
  });
});
