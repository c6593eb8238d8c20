// The dashboard's one-line algorithm state, from real simulated runs: the emergent algorithm's
// roles and slave pool (003: a master, k slaves standing by, the rest idle), Raft's leader and
// term (Ongaro & Ousterhout §5.2), and a Bully lab's coordinator.
import { describe, expect, it } from 'vitest';
import { ALGORITHMS } from '@shared/algorithms/registry.ts';
import { emergentOptions } from '@shared/algorithms/emergent-state.ts';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import { simulate } from '@shared/sim/simulator.ts';
import { algorithmGlance, LIST_IDS } from '../../client/src/utils/algorithm-glance.ts';

const procsOf = (r: ReturnType<typeof simulate>, ids: number[]) =>
  ids.map((id) => ({
    id,
    status: r.live.includes(id) ? 'up' : 'crashed',
    report: r.reports[id] ?? null,
  }));
const count = (g: ReturnType<typeof algorithmGlance>, role: string) =>
  g.roles.find((r) => r.role === role)?.count;
const fact = (g: ReturnType<typeof algorithmGlance>, label: string) =>
  g.facts.find((f) => f.label === label)?.value;

describe('algorithm at a glance', () => {
  it('emergent, 40 processes at a steady start: one master, the initial pool of slaves, the rest idle, and the pool size the master reports', () => {
    const ids = Array.from({ length: 40 }, (_, i) => i);
    const r = simulate({ algorithm: ALGORITHMS.emergent, ids, until: 5000, seed: 3 });
    const g = algorithmGlance('emergent', procsOf(r, ids));
    const k = emergentOptions(undefined, DEFAULT_TIMING).options.initialPool;
    expect(g.roles.map((x) => x.role)).toEqual(['master', 'candidate', 'slave', 'idle']);
    expect(count(g, 'master')).toBe(1);
    expect(count(g, 'candidate')).toBe(0);
    expect(count(g, 'slave')).toBe(k);
    expect(count(g, 'idle')).toBe(40 - 1 - k);
    expect(fact(g, 'pool size')).toBe(String(r.reports[39]!.detail!['poolSize']));
    expect(fact(g, 'master')).toBe('39');
    // Few holders are listed by id; many are only counted.
    expect(g.roles.find((x) => x.role === 'master')!.ids).toEqual([39]);
    expect(g.roles.find((x) => x.role === 'idle')!.ids).toEqual(
      40 - 1 - k > LIST_IDS ? [] : expect.any(Array),
    );
  });

  it('emergent, the master crashed: a new master out of the pool, and the pool size it reports', () => {
    const ids = Array.from({ length: 12 }, (_, i) => i);
    const r = simulate({
      algorithm: ALGORITHMS.emergent,
      ids,
      crashes: [{ id: 11, at: 1000 }],
      until: 20_000,
      seed: 5,
    });
    const g = algorithmGlance('emergent', procsOf(r, ids));
    const masters = r.live.filter((id) => r.reports[id]!.role === 'master');
    expect(masters).toHaveLength(1);
    expect(fact(g, 'master')).toBe(String(masters[0]));
    expect(fact(g, 'pool size')).toBe(String(r.reports[masters[0]!]!.detail!['poolSize']));
  });

  it("raft after its leader crashed: the new leader's term, one leader, the rest followers", () => {
    const ids = [0, 1, 2, 3, 4];
    const r = simulate({
      algorithm: ALGORITHMS.raft,
      ids,
      crashes: [{ id: 4, at: 2000 }],
      until: 15_000,
      seed: 2,
    });
    const g = algorithmGlance('raft', procsOf(r, ids));
    const leader = r.live.find((id) => r.reports[id]!.role === 'leader')!;
    expect(count(g, 'leader')).toBe(1);
    expect(count(g, 'follower')).toBe(3);
    expect(fact(g, 'term')).toBe(String(r.reports[leader]!.term));
    expect(fact(g, 'leader')).toBe(`${leader} (term ${r.reports[leader]!.term})`);
  });

  it('raft terms that differ show their spread (a follower that has not heard of the new term)', () => {
    const g = algorithmGlance('raft', [
      {
        id: 0,
        status: 'up',
        report: { role: 'follower', coordinator: 2, electing: false, term: 4 },
      },
      {
        id: 1,
        status: 'up',
        report: { role: 'candidate', coordinator: null, electing: true, term: 6 },
      },
      { id: 2, status: 'crashed', report: null },
    ]);
    expect(fact(g, 'term')).toBe('6');
    expect(fact(g, 'terms in use')).toBe('4–6');
    expect(fact(g, 'leader')).toBe('none');
  });

  it('bully: roles only (coordinator, electing, waiting, follower), crashed processes not counted', () => {
    const ids = [0, 1, 2, 3, 4, 5];
    const r = simulate({
      algorithm: ALGORITHMS.bully,
      ids,
      crashes: [{ id: 5, at: 0 }],
      elections: [{ id: 1, at: 0 }],
      detector: 'none',
      until: 10_000,
    });
    const g = algorithmGlance('bully', procsOf(r, ids));
    expect(g.roles.map((x) => [x.role, x.count])).toEqual([
      ['coordinator', 1],
      ['electing', 0],
      ['waiting', 0],
      ['follower', 4],
    ]);
    expect(g.facts).toEqual([]);
  });
});
