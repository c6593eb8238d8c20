// Issue 28, item 6, "break it" challenges: the shipped challenge files validate and are neither
// broken already nor unbreakable; the relay's verifier accepts a real solution (found by the
// search in test/helpers/challenge-search.ts, not written here) and refuses a schedule over its
// budget, one that does not reproduce the target, and one run on a changed set-up. The targets
// are the documents': two coordinators at once (003, "What happens if two machines decide they
// are co-ordinators?") and a ring whose election never completes (002).
import { describe, expect, it } from 'vitest';
import {
  parseChallenge,
  totalFaults,
  type Challenge,
  type Schedule,
} from '@shared/challenges/challenge-schema.ts';
import {
  MAX_CHALLENGE_EVENTS,
  longestLeaderless,
  runChallenge,
  verifySubmission,
} from '@shared/challenges/challenge-verify.ts';
import { checkFrame } from '../../server/lab/frame-check.ts';
import { loadChallenges } from '../../server/lab/challenge-catalog.ts';
import { searchSolution } from '@shared/challenges/challenge-search.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';

const catalog = loadChallenges(new URL('../../challenges/', import.meta.url).pathname);
const byId = (id: string): Challenge =>
  structuredClone(catalog.challenges.find((c) => c.id === id)!);
/** Each challenge's search, run once for the file. */
const found = new Map<string, Schedule | null>();
const solution = (c: Challenge) => {
  if (!found.has(c.id)) found.set(c.id, searchSolution(c));
  return found.get(c.id)!;
};
const submit = (c: Challenge, schedule: Schedule, seed = 1) =>
  verifySubmission(c, { challenge: c.id, seed, setup: structuredClone(c.setup), schedule });

describe('the shipped challenges', () => {
  it('load with none refused: Bully split brain and the leaderless ring at least', () => {
    expect(catalog.refused).toEqual([]);
    expect(catalog.challenges.map((c) => c.id)).toEqual(
      expect.arrayContaining(['bully-split-brain', 'ring-leaderless']),
    );
  });

  it.each(catalog.challenges.map((c) => [c.id, c] as const))(
    '%s is not broken without faults, and a search finds a solution within its budget the relay accepts',
    (_id, c) => {
      expect(runChallenge(c, 1, {}).reached).toBe(false);
      const s = solution(c);
      expect(s).not.toBeNull();
      expect(submit(c, s!)).toMatchObject({ accepted: true, faults: totalFaults(s!) });
    },
  );
});

describe('verifySubmission refuses a faked success', () => {
  const c = byId('bully-split-brain');
  const found = solution(c)!;

  it('over budget: a third directed link rule, or a crash of a protected id (the top two)', () => {
    const links = [0, 1, 2].map((from) => ({ at: 0, from, to: 3, loss: 1 }));
    const v = submit(c, { ...found, links: [...(found.links ?? []), ...links].slice(0, 3) });
    expect(v).toMatchObject({ accepted: false, reason: 'over-budget' });
    expect(v.accepted || v.message).toMatch(/3 links \(at most 2\)/);
    const crash = submit(c, { ...found, crash: [{ id: 5, at: 100 }] });
    expect(crash).toMatchObject({ accepted: false, reason: 'over-budget' });
    expect(crash.accepted || crash.message).toMatch(/crash of 5, which this challenge protects/);
  });

  it('not reproduced: a schedule within budget whose run reaches no target (a claimed success the relay does not see)', () => {
    const v = submit(c, { elect: [{ id: 0, at: 1000 }] });
    expect(v).toMatchObject({ accepted: false, reason: 'not-reproduced' });
    expect(v.accepted || v.message).toMatch(/No two processes acted as coordinator/);
  });

  it('a changed set-up: her run on longer timeouts or other ids is not the challenge', () => {
    const timing = verifySubmission(c, {
      challenge: c.id,
      seed: 1,
      setup: { ...c.setup, timing: { heartbeatTimeout: 200 } },
      schedule: found,
    });
    expect(timing).toMatchObject({ accepted: false, reason: 'setup-changed' });
    expect(timing.accepted || timing.message).toMatch(/in timing/);
    const ids = verifySubmission(c, {
      challenge: c.id,
      seed: 1,
      setup: { ...c.setup, ids: [0, 1, 2, 3, 4, 5, 6] },
      schedule: found,
    });
    expect(ids).toMatchObject({ accepted: false, reason: 'setup-changed' });
    const other = verifySubmission(c, {
      challenge: 'ring-leaderless',
      seed: 1,
      setup: c.setup,
      schedule: found,
    });
    expect(other).toMatchObject({ accepted: false, reason: 'wrong-challenge' });
  });

  it('the same set-up with its keys in another order is the same set-up', () => {
    const reordered = Object.fromEntries(Object.entries(c.setup).reverse()) as Challenge['setup'];
    const v = verifySubmission(c, { challenge: c.id, seed: 1, setup: reordered, schedule: found });
    expect(v.accepted).toBe(true);
  });

  it('a run past the event bound is not judged (the relay spends a bounded time on any submission)', () => {
    const busy = byId('bully-split-brain');
    busy.setup = {
      ...busy.setup,
      ids: Array.from({ length: 64 }, (_, i) => i),
      coordinator: 63,
      timing: { heartbeatInterval: 1, heartbeatTimeout: 5 },
      until: 600_000,
    };
    const t0 = performance.now();
    const v = submit(busy, {});
    expect(v).toMatchObject({ accepted: false, reason: 'run-too-long' });
    expect(v.accepted || v.message).toContain(`over ${MAX_CHALLENGE_EVENTS} events`);
    // Loose on purpose (a loaded 2-core machine): the bound is on events, this only catches a runaway.
    expect(performance.now() - t0).toBeLessThan(15_000);
  });

  it('a schedule naming a process the set-up lacks is refused', () => {
    const v = submit(c, { crash: [{ id: 9, at: 100 }] });
    expect(v).toMatchObject({ accepted: false, reason: 'unknown-process' });
  });
});

describe('the leaderless target', () => {
  const report = (t: number, node: number, role: string): TraceEvent =>
    ({
      seq: t,
      t,
      kind: 'report',
      node,
      report: { role, coordinator: null, electing: role !== 'coordinator' },
    }) as TraceEvent;

  it('measures the longest stretch with no live process acting as coordinator, a crash ending a leader', () => {
    const trace: TraceEvent[] = [
      report(0, 5, 'coordinator'),
      { seq: 1, t: 1000, kind: 'crash', node: 5 } as TraceEvent,
      report(4000, 4, 'coordinator'),
      report(5000, 4, 'participant'),
    ];
    expect(longestLeaderless(trace, 20_000, 10_000)).toEqual({
      longest: 15_000,
      since: 5000,
      reachedAt: 15_000,
    });
    expect(longestLeaderless(trace, 12_000, 10_000).reachedAt).toBeNull();
  });

  it('the ring without a coordinator for 10 s: a solution found by search is accepted, the empty schedule is not', () => {
    const ring = byId('ring-leaderless');
    const run = runChallenge(ring, 1, solution(ring)!);
    expect(run.reached).toBe(true);
    expect(run.at).toBeGreaterThanOrEqual(10_000);
    expect(submit(ring, {})).toMatchObject({ accepted: false, reason: 'not-reproduced' });
  });
});

describe('challenge files and the submit frame (schema)', () => {
  it('a challenge file with a wrong field is refused with the field named', () => {
    const bad = { ...byId('bully-split-brain'), budget: { links: -1 } };
    const r = parseChallenge(bad);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors.join('\n')).toMatch(/budget\.links/);
    const stranger = byId('bully-split-brain');
    stranger.budget.protect = [9];
    expect(parseChallenge(stranger)).toEqual({
      ok: false,
      errors: ['budget.protect.0: 9 is not among setup.ids'],
    });
  });

  it('the submit frame is checked at the edge: the fields of a bad one are named', () => {
    const c = byId('bully-split-brain');
    const good = {
      type: 'submit',
      lab: 'class',
      name: 'Ada',
      submission: { challenge: c.id, seed: 1, setup: c.setup, schedule: {} },
    };
    expect(checkFrame(good).ok).toBe(true);
    const bad = checkFrame({
      ...good,
      submission: { ...good.submission, seed: -1, schedule: { crash: 'all' } },
    });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error.details?.join('\n')).toMatch(
      /submission\.seed[\s\S]*submission\.schedule\.crash/,
    );
    expect(checkFrame({ ...good, name: '' }).ok).toBe(false);
  });
});
