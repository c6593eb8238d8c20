// Raft leader election through the simulator: crashes, partitions, loss and determinism.
// Rules from Ongaro & Ousterhout (2014) §5.2: at most one leader per term (Election Safety,
// Figure 3), a majority of the known ids is needed to win; seed 004's closing slide: Paxos-like
// protocols avoid split brain where bully and ring do not.
import { describe, expect, it } from 'vitest';
import type { Report } from '@shared/algorithms/algorithm.ts';
import { raft } from '@shared/algorithms/raft.ts';
import { createRng } from '@shared/sim/rng.ts';
import { simulate, type SimulationResult, type SimulationSpec } from '@shared/sim/simulator.ts';

const ids = [0, 1, 2, 3, 4, 5, 6, 7];
const base = { algorithm: raft, ids, seed: 1 } satisfies Partial<SimulationSpec>;

/** Every (term -> nodes that reported themselves leader in it) over the whole trace. */
function leadersByTerm(r: SimulationResult): Map<number, Set<number>> {
  const m = new Map<number, Set<number>>();
  for (const e of r.trace) {
    if (e.kind !== 'report' || e.report.role !== 'leader') continue;
    const term = e.report.term ?? -1;
    m.set(term, (m.get(term) ?? new Set()).add(e.node));
  }
  return m;
}

/** Leaders that arose (a report flipping to leader) within [from, to), with their terms. */
function newLeaders(
  r: SimulationResult,
  from: number,
  to: number,
): { node: number; term: number }[] {
  const role = new Map<number, string>();
  const out: { node: number; term: number }[] = [];
  for (const e of r.trace) {
    if (e.kind !== 'report') continue;
    if (e.report.role === 'leader' && role.get(e.node) !== 'leader' && e.t >= from && e.t < to)
      out.push({ node: e.node, term: e.report.term ?? -1 });
    role.set(e.node, e.report.role);
  }
  return out;
}

function expectAgreement(r: SimulationResult): number {
  const coords = new Set(Object.values(r.coordinatorByNode));
  expect(coords.size).toBe(1);
  const leader = [...coords][0]!;
  expect(leader).not.toBeNull();
  const leaders = Object.entries(r.reports).filter(
    ([, rep]: [string, Report]) => rep.role === 'leader',
  );
  expect(leaders.map(([id]) => Number(id))).toEqual([leader]);
  return leader!;
}

/** Virtual ms from `at` until every live process reports the final leader (and stays). */
function timeToAgree(r: SimulationResult, at: number): number {
  let last = at;
  for (const e of r.trace)
    if (e.kind === 'report' && e.t >= at && r.live.includes(e.node)) last = e.t;
  return last - at;
}

describe('raft through the simulator', () => {
  it('raft: after the leader crashes the others elect one new leader in a higher term and all agree (§5.2)', () => {
    const r = simulate({ ...base, crashes: [{ id: 7, at: 1000 }], until: 15_000 });
    const leader = expectAgreement(r);
    expect(leader).not.toBe(7);
    expect(r.reports[leader]!.term).toBeGreaterThan(1);
    for (const [, nodes] of leadersByTerm(r)) expect(nodes.size).toBe(1);
    // Detection takes one randomized election timeout in [1500, 3000] ms after the last heartbeat.
    const t = timeToAgree(r, 1000);
    expect(t).toBeGreaterThan(1000);
    expect(t).toBeLessThan(1000 + 2 * 3000);
  });

  it('raft: from a fresh start (no coordinator) exactly one leader emerges and all agree', () => {
    const r = simulate({ ...base, initialCoordinator: null, until: 20_000 });
    expectAgreement(r);
    for (const [, nodes] of leadersByTerm(r)) expect(nodes.size).toBe(1);
  });

  it('raft: a 4/4 split of 8 processes elects no new leader on either side, since 5 votes are needed (§5.2 majority)', () => {
    const r = simulate({
      ...base,
      partitions: [
        {
          at: 1000,
          groups: [
            [0, 1, 2, 3],
            [4, 5, 6, 7],
          ],
        },
        { at: 20_000, groups: null },
      ],
      until: 40_000,
    });
    expect(newLeaders(r, 1000, 20_000)).toEqual([]);
    // The cut-off side keeps campaigning in ever higher terms without winning.
    const minority = r.trace.filter(
      (e) => e.kind === 'report' && e.t < 20_000 && e.node <= 3 && e.report.role === 'candidate',
    );
    expect(minority.length).toBeGreaterThan(0);
    for (const [, nodes] of leadersByTerm(r)) expect(nodes.size).toBe(1);
    expectAgreement(r); // after the heal, one leader again
  });

  it('raft: a 5/3 split elects a leader only on the 5 side; the stale leader never shares its term (§5.2)', () => {
    const big = [0, 1, 2, 3, 4];
    const r = simulate({
      ...base,
      partitions: [
        { at: 1000, groups: [big, [5, 6, 7]] },
        { at: 20_000, groups: null },
      ],
      until: 40_000,
    });
    const during = newLeaders(r, 1000, 20_000);
    expect(during.length).toBeGreaterThan(0);
    for (const l of during) {
      expect(big).toContain(l.node);
      expect(l.term).toBeGreaterThan(1);
    }
    for (const [, nodes] of leadersByTerm(r)) expect(nodes.size).toBe(1);
    // On healing, the old leader 7 sees the higher term and follows the majority side's leader.
    expect(big).toContain(expectAgreement(r));
  });

  it('raft: under loss, jitter, partitions, crashes and restarts no term ever has two leaders (30 seeds)', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const g = createRng(seed * 7919);
      const pick = () => Math.floor(g() * ids.length);
      const crashes = [...Array(3)].map(() => ({ id: pick(), at: 1000 + g() * 15_000 }));
      const recoveries = crashes.map((c) => ({ id: c.id, at: c.at + 200 + g() * 3000 }));
      const partitions = [...Array(2)].flatMap(() => {
        const at = 1000 + g() * 15_000;
        const cut = 1 + Math.floor(g() * 7);
        const shuffled = [...ids].sort(() => g() - 0.5);
        return [
          { at, groups: [shuffled.slice(0, cut), shuffled.slice(cut)] },
          { at: at + g() * 4000, groups: null },
        ];
      });
      const r = simulate({
        ...base,
        seed,
        crashes,
        recoveries,
        partitions,
        link: { delay: 50, jitter: 150, drop: 0.1 },
        dropUntil: 22_000,
        until: 35_000,
      });
      for (const [term, nodes] of leadersByTerm(r))
        expect({ seed, term, leaders: nodes.size }).toEqual({ seed, term, leaders: 1 });
      // Faults stop at 22 s: by 35 s everyone follows one leader.
      expect(new Set(Object.values(r.coordinatorByNode)).size, `seed ${seed}`).toBe(1);
    }
  });

  it('raft: a process that restarts inside a term cannot vote twice in it thanks to the quiet period', () => {
    // 0 wins term 1 with votes from 1 and 2; its requests to 3 and 4 are slow. 2 crashes and
    // restarts having lost votedFor; then 4 campaigns in term 1 and asks everyone.
    const scenario = (restartQuietPeriod?: number) =>
      simulate({
        algorithm: raft,
        ids: [0, 1, 2, 3, 4],
        initialCoordinator: null,
        detector: 'none',
        options: { restartQuietPeriod: restartQuietPeriod ?? 3000 },
        links: { '0->3': { delay: 5000 }, '0->4': { delay: 5000 } },
        elections: [
          { id: 0, at: 3500 },
          { id: 4, at: 3700 },
        ],
        crashes: [{ id: 2, at: 3650 }],
        recoveries: [{ id: 2, at: 3660 }],
        until: 12_000,
      });
    const unsafe = leadersByTerm(scenario(0)).get(1);
    expect([...(unsafe ?? [])].sort()).toEqual([0, 4]); // the hazard is real without the guard
    expect(leadersByTerm(scenario()).get(1)).toEqual(new Set([0]));
  });

  it('raft: the same seed gives an identical trace, another seed a different one', () => {
    const spec = {
      ...base,
      initialCoordinator: null,
      link: { delay: 50, jitter: 100 },
      crashes: [{ id: 3, at: 6000 }],
      until: 12_000,
    };
    const a = simulate({ ...spec, seed: 11 });
    const b = simulate({ ...spec, seed: 11 });
    const c = simulate({ ...spec, seed: 12 });
    expect(b.trace).toEqual(a.trace);
    expect(c.trace).not.toEqual(a.trace);
  });
});
