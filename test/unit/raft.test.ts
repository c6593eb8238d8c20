// Unit tests of raft's step function. Rules cited from Ongaro & Ousterhout, "In Search of an
// Understandable Consensus Algorithm" (2014): §5.1 terms, §5.2 leader election, Figure 2.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  type AlgorithmConfig,
  type Effect,
  type StepContext,
} from '@shared/algorithms/algorithm.ts';
import {
  majority,
  raft,
  raftOptions,
  type RaftMessage,
  type RaftState,
} from '@shared/algorithms/raft.ts';

const ids = [0, 1, 2, 3, 4];
const ctx = (r = 0.5): StepContext => ({ now: 0, random: () => r });
const config = (self: number, extra: Partial<AlgorithmConfig> = {}): AlgorithmConfig => ({
  self,
  ids,
  ring: ids,
  timing: DEFAULT_TIMING,
  detector: 'heartbeat',
  ...extra,
});

type Eff = Effect<RaftMessage>;
const sends = (effects: Eff[], type?: string) =>
  effects.filter(
    (e): e is Extract<Eff, { kind: 'send' }> =>
      e.kind === 'send' && (!type || e.message.type === type),
  );
const granted = (e: { message: RaftMessage }) =>
  e.message.type === 'VOTE' ? e.message.granted : undefined;
const timer = (effects: Eff[], name: string) =>
  effects.find(
    (e): e is Extract<Eff, { kind: 'set-timer' }> => e.kind === 'set-timer' && e.name === name,
  );

/** A follower of leader 4 in term 1 (a steady start). */
const follower = (self: number) => raft.init(config(self, { initialCoordinator: 4 }), ctx()).state;

function run(s: RaftState, events: Parameters<typeof raft.step>[1][], r = 0.5) {
  const effects: Eff[] = [];
  for (const e of events) {
    const out = raft.step(s, e, ctx(r));
    s = out.state;
    effects.push(...out.effects);
  }
  return { state: s, effects };
}

describe('raft step', () => {
  it('raft: a steady start puts everyone in term 1 following the given leader, which heartbeats at once', () => {
    const leader = raft.init(config(4, { initialCoordinator: 4 }), ctx());
    expect(raft.report(leader.state)).toMatchObject({
      role: 'leader',
      coordinator: 4,
      term: 1,
      electing: false,
    });
    expect(sends(leader.effects, 'HEARTBEAT').map((e) => e.to)).toEqual([0, 1, 2, 3]);
    const f = raft.init(config(1, { initialCoordinator: 4 }), ctx());
    expect(raft.report(f.state)).toMatchObject({ role: 'follower', coordinator: 4, term: 1 });
    expect(timer(f.effects, 'election')).toBeDefined();
  });

  it('raft: on election timeout a follower increments its term, votes for itself and asks every other id (§5.2)', () => {
    const { state, effects } = run(follower(1), [{ kind: 'timer', name: 'election' }]);
    expect(raft.report(state)).toMatchObject({
      role: 'candidate',
      term: 2,
      electing: true,
      coordinator: null,
    });
    expect(state.votedFor).toBe(1);
    expect(sends(effects, 'REQUEST_VOTE').map((e) => [e.to, e.message.term])).toEqual([
      [0, 2],
      [2, 2],
      [3, 2],
      [4, 2],
    ]);
    expect(timer(effects, 'election')).toBeDefined(); // a split vote times out into a new term
  });

  it('raft: election timeouts are drawn from ctx.random within [min, max] (§5.2 randomized timeouts)', () => {
    const opts = { electionTimeoutMin: 1000, electionTimeoutMax: 3000 };
    const afters = [0, 0.25, 0.999].map(
      (r) =>
        timer(
          raft.init(config(1, { initialCoordinator: 4, options: opts }), ctx(r)).effects,
          'election',
        )!.after,
    );
    expect(afters[0]).toBe(1000);
    expect(afters[1]).toBeGreaterThan(afters[0]!);
    expect(afters[2]).toBeGreaterThan(afters[1]!);
    expect(afters[2]).toBeLessThan(3000);
  });

  it('raft: a process grants at most one vote per term, first come first served (§5.2)', () => {
    const s = follower(0);
    const { effects, state } = run(s, [
      { kind: 'message', from: 1, message: { type: 'REQUEST_VOTE', term: 2 } },
      { kind: 'message', from: 2, message: { type: 'REQUEST_VOTE', term: 2 } },
      { kind: 'message', from: 1, message: { type: 'REQUEST_VOTE', term: 2 } },
    ]);
    expect(sends(effects, 'VOTE').map((e) => [e.to, granted(e)])).toEqual([
      [1, true],
      [2, false],
      [1, true],
    ]);
    expect(state.votedFor).toBe(1);
    // A new term frees the vote again.
    const later = run(state, [
      { kind: 'message', from: 2, message: { type: 'REQUEST_VOTE', term: 3 } },
    ]);
    expect(sends(later.effects, 'VOTE')[0]!.message).toEqual({
      type: 'VOTE',
      term: 3,
      granted: true,
    });
  });

  it('raft: granting a vote restarts the election timer (Figure 2, followers)', () => {
    const { effects } = run(follower(0), [
      { kind: 'message', from: 1, message: { type: 'REQUEST_VOTE', term: 2 } },
    ]);
    expect(timer(effects, 'election')).toBeDefined();
  });

  it('raft: a candidate becomes leader on votes from a majority of the known ids, not before (§5.2)', () => {
    expect(majority(5)).toBe(3);
    expect(majority(8)).toBe(5);
    const c = run(follower(1), [{ kind: 'timer', name: 'election' }]).state;
    const one = run(c, [
      { kind: 'message', from: 0, message: { type: 'VOTE', term: 2, granted: true } },
    ]);
    expect(one.state.role).toBe('candidate');
    const dup = run(one.state, [
      { kind: 'message', from: 0, message: { type: 'VOTE', term: 2, granted: true } },
    ]);
    expect(dup.state.role).toBe('candidate'); // the same voter twice is one vote
    const refused = run(dup.state, [
      { kind: 'message', from: 2, message: { type: 'VOTE', term: 2, granted: false } },
    ]);
    expect(refused.state.role).toBe('candidate');
    const won = run(refused.state, [
      { kind: 'message', from: 3, message: { type: 'VOTE', term: 2, granted: true } },
    ]);
    expect(raft.report(won.state)).toMatchObject({
      role: 'leader',
      coordinator: 1,
      term: 2,
      electing: false,
    });
    expect(sends(won.effects, 'HEARTBEAT').map((e) => e.to)).toEqual([0, 2, 3, 4]);
    expect(timer(won.effects, 'heartbeat')!.after).toBe(DEFAULT_TIMING.heartbeatInterval);
  });

  it('raft: votes from an older term do not count (§5.1 stale terms)', () => {
    let s = run(follower(1), [
      { kind: 'timer', name: 'election' },
      { kind: 'timer', name: 'election' },
    ]).state;
    expect(s.term).toBe(3);
    s = run(s, [
      { kind: 'message', from: 0, message: { type: 'VOTE', term: 2, granted: true } },
      { kind: 'message', from: 2, message: { type: 'VOTE', term: 2, granted: true } },
    ]).state;
    expect(s.role).toBe('candidate');
  });

  it('raft: a candidate hearing a heartbeat of its own term returns to follower and accepts that leader (§5.2)', () => {
    const c = run(follower(1), [{ kind: 'timer', name: 'election' }]).state;
    const { state } = run(c, [
      { kind: 'message', from: 3, message: { type: 'HEARTBEAT', term: 2 } },
    ]);
    expect(raft.report(state)).toMatchObject({
      role: 'follower',
      coordinator: 3,
      term: 2,
      electing: false,
    });
  });

  it('raft: a leader or candidate that sees a higher term steps down to follower (§5.1)', () => {
    const leader = raft.init(config(4, { initialCoordinator: 4 }), ctx()).state;
    const { state, effects } = run(leader, [
      { kind: 'message', from: 2, message: { type: 'REQUEST_VOTE', term: 5 } },
    ]);
    expect(raft.report(state)).toMatchObject({ role: 'follower', term: 5, coordinator: null });
    expect(effects).toContainEqual({ kind: 'cancel-timer', name: 'heartbeat' });
    expect(sends(effects, 'VOTE')[0]!.message).toEqual({ type: 'VOTE', term: 5, granted: true });
    expect(timer(effects, 'election')).toBeDefined();
    const stale = run(leader, [
      { kind: 'message', from: 0, message: { type: 'HEARTBEAT_REPLY', term: 3 } },
    ]);
    expect(raft.report(stale.state)).toMatchObject({ role: 'follower', term: 3 });
  });

  it('raft: requests and heartbeats of an older term are rejected with the current term (§5.1)', () => {
    const s = run(follower(0), [
      { kind: 'message', from: 2, message: { type: 'HEARTBEAT', term: 4 } },
    ]).state;
    const { state, effects } = run(s, [
      { kind: 'message', from: 1, message: { type: 'REQUEST_VOTE', term: 3 } },
      { kind: 'message', from: 4, message: { type: 'HEARTBEAT', term: 1 } },
    ]);
    expect(sends(effects).map((e) => [e.to, e.message])).toEqual([
      [1, { type: 'VOTE', term: 4, granted: false }],
      [4, { type: 'HEARTBEAT_REPLY', term: 4 }],
    ]);
    expect(state.leader).toBe(2);
  });

  it('raft: the elect event starts a campaign now, in a new term', () => {
    const { state } = run(follower(2), [{ kind: 'elect' }]);
    expect(raft.report(state)).toMatchObject({ role: 'candidate', term: 2 });
  });

  it('raft: a freshly started process grants no vote until its quiet period ends (state lost in a crash)', () => {
    const fresh = raft.init(config(0), ctx());
    expect(timer(fresh.effects, 'quiet')!.after).toBe(2 * DEFAULT_TIMING.heartbeatTimeout);
    // Its first campaign comes only after the quiet period.
    expect(timer(fresh.effects, 'election')!.after).toBeGreaterThanOrEqual(
      2 * DEFAULT_TIMING.heartbeatTimeout,
    );
    const ask = { kind: 'message', from: 1, message: { type: 'REQUEST_VOTE', term: 1 } } as const;
    expect(granted(sends(run(fresh.state, [ask]).effects, 'VOTE')[0]!)).toBe(false);
    const after = run(fresh.state, [{ kind: 'timer', name: 'quiet' }, ask]);
    expect(granted(sends(after.effects, 'VOTE')[0]!)).toBe(true);
  });

  it('raft: with detector none followers keep no election timer and the winner announces itself once', () => {
    const f = raft.init(config(1, { initialCoordinator: 4, detector: 'none' }), ctx());
    expect(timer(f.effects, 'election')).toBeUndefined();
    const c = run(f.state, [{ kind: 'elect' }]);
    expect(timer(c.effects, 'election')).toBeDefined(); // a candidate still retries a split vote
    const won = run(
      c.state,
      [0, 2].map(
        (from) =>
          ({ kind: 'message', from, message: { type: 'VOTE', term: 2, granted: true } }) as const,
      ),
    );
    expect(won.state.role).toBe('leader');
    expect(sends(won.effects, 'HEARTBEAT')).toHaveLength(4);
    expect(timer(won.effects, 'heartbeat')).toBeUndefined();
  });

  it('raft: messages from unknown ids are ignored', () => {
    const s = follower(0);
    expect(
      raft.step(s, { kind: 'message', from: 99, message: { type: 'REQUEST_VOTE', term: 9 } }, ctx())
        .state,
    ).toBe(s);
  });

  it('raft: options default to [heartbeatTimeout, 2 heartbeatTimeout] and bad values fall back with a problem named', () => {
    expect(raftOptions(undefined, DEFAULT_TIMING)).toEqual({
      options: {
        electionTimeoutMin: 1500,
        electionTimeoutMax: 3000,
        heartbeatInterval: 500,
        restartQuietPeriod: 3000,
      },
      problems: [],
    });
    const bad = raftOptions(
      { electionTimeoutMin: 2000, electionTimeoutMax: 1000, heartbeatInterval: 'x' },
      DEFAULT_TIMING,
    );
    expect(bad.options.electionTimeoutMin).toBe(1500);
    expect(bad.options.electionTimeoutMax).toBe(3000);
    expect(bad.options.heartbeatInterval).toBe(500);
    expect(bad.problems).toHaveLength(2);
  });
});
