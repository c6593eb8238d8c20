// The emergent election algorithm through the simulator. Rules from seed 003 (R. J. Anthony,
// ICAC 2004): only slaves elect, "Candidate elections take the same length of time independent
// of the idle pool", "the system will appoint only one master", "the size of the slave pool
// remains approximately constant", different trigger conditions prevent waves (Operation i-iii).
import { describe, expect, it } from 'vitest';
import { emergent, EMERGENT_ELECTION_TYPES } from '@shared/algorithms/emergent.ts';
import { createRng } from '@shared/sim/rng.ts';
import { simulate, type SimulationResult } from '@shared/sim/simulator.ts';

const range = (n: number) => [...Array(n).keys()];

/** The true pool size (live slaves and candidates) after every report or crash, in trace order. */
function poolTimeline(r: SimulationResult): { t: number; size: number }[] {
  const role = new Map<number, string>();
  const out: { t: number; size: number }[] = [];
  for (const e of r.trace) {
    if (e.kind === 'report') role.set(e.node, e.report.role);
    else if (e.kind === 'crash') role.delete(e.node);
    else continue;
    let size = 0;
    for (const x of role.values()) if (x === 'slave' || x === 'candidate') size++;
    out.push({ t: e.t, size });
  }
  return out;
}

/** Longest stretch (ms) the pool spent below `min`, given the timeline. */
function longestBelow(timeline: { t: number; size: number }[], min: number, end: number): number {
  let since: number | null = null;
  let worst = 0;
  for (const p of timeline) {
    if (p.size < min) since ??= p.t;
    else if (since !== null) {
      worst = Math.max(worst, p.t - since);
      since = null;
    }
  }
  return since === null ? worst : Math.max(worst, end - since);
}

/** Nodes that reported the master role at or after `from`. */
function mastersSince(r: SimulationResult, from: number): Set<number> {
  return new Set(
    r.trace
      .filter((e) => e.kind === 'report' && e.t >= from && e.report.role === 'master')
      .map((e) => (e as { node: number }).node),
  );
}

function electionMessages(r: SimulationResult): number {
  return EMERGENT_ELECTION_TYPES.reduce((sum, t) => sum + (r.messages.byType[t] ?? 0), 0);
}

function expectOneMasterAgreed(r: SimulationResult): number {
  const masters = Object.entries(r.reports)
    .filter(([, rep]) => rep.role === 'master')
    .map(([id]) => Number(id));
  expect(masters).toHaveLength(1);
  expect(new Set(Object.values(r.coordinatorByNode))).toEqual(new Set(masters));
  return masters[0]!;
}

/** When every live process last changed its report after `from`: the time the system settled. */
function settledAfter(r: SimulationResult, from: number): number {
  let last = from;
  for (const e of r.trace) if (e.kind === 'report' && e.t >= from) last = e.t;
  return last - from;
}

describe('emergent through the simulator', () => {
  it('emergent: when the master crashes exactly one slave becomes master and everyone follows it (003, Operation i)', () => {
    const ids = range(15); // master 14, slaves 10..13, idles 0..9
    const r = simulate({
      algorithm: emergent,
      ids,
      crashes: [{ id: 14, at: 2000 }],
      until: 12_000,
      seed: 1,
    });
    const master = expectOneMasterAgreed(r);
    expect(mastersSince(r, 2000)).toEqual(new Set([master]));
    expect([10, 11, 12, 13]).toContain(master);
    // The highest candidate wins: with no losses that is the highest slave.
    expect(master).toBe(13);
    // Idles never enter the candidate state.
    const candidates = new Set(
      r.trace
        .filter((e) => e.kind === 'report' && e.report.role === 'candidate')
        .map((e) => (e as { node: number }).node),
    );
    for (const c of candidates) expect(c).toBeGreaterThanOrEqual(10);
  });

  it('emergent: election messages and election time do not grow with the idle pool: 10, 100, 500 idles (003)', () => {
    const results = [10, 100, 500].map((idles) => {
      const ids = range(idles + 5); // a master and initialPool = 4 slaves on top
      const crashAt = 2000;
      const r = simulate({
        algorithm: emergent,
        ids,
        crashes: [{ id: ids.length - 1, at: crashAt }],
        until: 9000,
        seed: 1,
      });
      expectOneMasterAgreed(r);
      return {
        idles,
        election: electionMessages(r),
        time: settledAfter(r, crashAt),
        total: r.messages.total,
      };
    });
    const k = 4; // each of the 4 candidates tells the other 3
    for (const x of results) expect(x.election).toBe(k * (k - 1));
    expect(new Set(results.map((x) => x.time)).size).toBe(1);
    // Heartbeats, by contrast, are sent to everyone and do grow ("fractionally more load").
    expect(results[2]!.total).toBeGreaterThan(10 * results[0]!.total);
  });

  it('emergent: when two slaves crash exactly one idle promotes, not a wave of them (003, Operation iii)', () => {
    const ids = range(105); // master 104, slaves 100..103, 100 idles
    const r = simulate({
      algorithm: emergent,
      ids,
      crashes: [
        { id: 101, at: 1000 },
        { id: 102, at: 1000 },
      ],
      until: 10_000,
      seed: 2,
    });
    const promoted = new Set(
      r.trace
        .filter((e) => e.kind === 'report' && e.node < 100 && e.report.role === 'slave')
        .map((e) => (e as { node: number }).node),
    );
    expect(promoted.size).toBe(1);
    expect(poolTimeline(r).at(-1)!.size).toBe(3);
  });

  it('emergent: under churn of master, slaves and idles the pool never exceeds poolMax and refills quickly (003, Operation ii)', () => {
    const ids = range(30);
    const opts = { poolMin: 3, poolMax: 5 };
    for (let seed = 1; seed <= 8; seed++) {
      const g = createRng(seed * 31);
      const crashes = range(8).map((k) => ({
        id: Math.floor(ids.length - g() * 12),
        at: 2000 + k * 3000 + g() * 1000,
      }));
      const recoveries = crashes.map((c) => ({ id: c.id, at: c.at + 1000 + g() * 4000 }));
      const end = 45_000;
      const r = simulate({
        algorithm: emergent,
        ids,
        options: opts,
        crashes,
        recoveries,
        link: { delay: 50, jitter: 50 },
        until: end,
        seed,
      });
      const timeline = poolTimeline(r);
      expect(Math.max(...timeline.map((p) => p.size)), `seed ${seed}`).toBeLessThanOrEqual(
        opts.poolMax,
      );
      // Below poolMin only until the silence is noticed (slaveTimeout) and a few idles' trigger delays pass.
      expect(
        longestBelow(
          timeline.filter((p) => p.t > 0),
          opts.poolMin,
          end,
        ),
        `seed ${seed}`,
      ).toBeLessThan(1500 + 500 + 8 * 210);
      const final = timeline.at(-1)!.size;
      expect(final).toBeGreaterThanOrEqual(opts.poolMin);
      expect(final).toBeLessThanOrEqual(opts.poolMax);
      expectOneMasterAgreed(r);
    }
  });

  it('emergent: with 15% loss, jitter and churn, once faults stop there is one master all follow and a pool within limits', () => {
    const ids = range(25);
    for (let seed = 1; seed <= 10; seed++) {
      const g = createRng(seed);
      const crashes = range(6).map((k) => ({
        id: Math.floor(ids.length - g() * 10),
        at: 2000 + k * 2500,
      }));
      const recoveries = crashes.map((c) => ({ id: c.id, at: c.at + 500 + g() * 3000 }));
      const link = { delay: 50, jitter: 100, drop: 0.15 };
      const r = simulate({
        algorithm: emergent,
        ids,
        crashes,
        recoveries,
        link,
        dropUntil: 20_000,
        until: 40_000,
        seed,
      });
      expectOneMasterAgreed(r);
      const size = poolTimeline(r).at(-1)!.size;
      expect(size, `seed ${seed}`).toBeGreaterThanOrEqual(3);
      expect(size, `seed ${seed}`).toBeLessThanOrEqual(5);
    }
  });

  it('emergent: from a fresh start the pool and then one master emerge', () => {
    const r = simulate({
      algorithm: emergent,
      ids: range(20),
      initialCoordinator: null,
      until: 15_000,
      seed: 3,
    });
    const master = expectOneMasterAgreed(r);
    expect(mastersSince(r, 0)).toEqual(new Set([master]));
    const size = poolTimeline(r).at(-1)!.size;
    expect(size).toBeGreaterThanOrEqual(3);
    expect(size).toBeLessThanOrEqual(5);
  });

  it('emergent: after a partition heals the higher master stays and the merged pool shrinks back to poolMax by demotion', () => {
    const ids = range(30);
    const heal = 15_000;
    const r = simulate({
      algorithm: emergent,
      ids,
      partitions: [
        { at: 1000, groups: [ids.slice(0, 15), ids.slice(15)] },
        { at: heal, groups: null },
      ],
      until: 30_000,
      seed: 1,
    });
    // The side without the master grew its own pool and master while cut off (no quorum here).
    expect(mastersSince(r, 1000).size).toBe(2);
    expect(expectOneMasterAgreed(r)).toBe(29);
    const after = poolTimeline(r).filter((p) => p.t >= heal);
    expect(Math.max(...after.map((p) => p.size))).toBeGreaterThan(5);
    expect(Math.min(...after.map((p) => p.size))).toBeGreaterThanOrEqual(3); // demotions stop at the limit, no undershoot
    expect(after.at(-1)!.size).toBe(5);
    expect(r.messages.byType.SLAVE_LEAVE).toBeGreaterThan(0);
  });

  it('emergent: a slave that cannot hear a live master starts elections that the others abort; no second master appears', () => {
    const ids = range(12); // master 11, slaves 7..10
    const r = simulate({
      algorithm: emergent,
      ids,
      links: { '11->9': { drop: 1 } },
      until: 12_000,
      seed: 4,
    });
    expect(mastersSince(r, 0)).toEqual(new Set([11]));
    expect(r.messages.byType.CANDIDATE).toBeGreaterThan(0);
    expect(r.messages.byType.ABORT).toBeGreaterThan(0);
    // Nobody ever follows another master; candidates believe none while the check lasts.
    const believed = new Set(
      r.trace.flatMap((e) => (e.kind === 'report' ? [e.report.coordinator] : [])),
    );
    expect([...believed].filter((c) => c !== null)).toEqual([11]);
    for (const id of range(7)) expect(r.coordinatorByNode[id]).toBe(11); // idles are never disturbed
  });

  it('emergent: the same seed gives an identical trace, another seed a different one', () => {
    const spec = {
      algorithm: emergent,
      ids: range(20),
      initialCoordinator: null,
      link: { delay: 40, jitter: 60 },
      crashes: [{ id: 19, at: 9000 }],
      until: 16_000,
    };
    const a = simulate({ ...spec, seed: 5 });
    const b = simulate({ ...spec, seed: 5 });
    const c = simulate({ ...spec, seed: 6 });
    expect(b.trace).toEqual(a.trace);
    expect(c.trace).not.toEqual(a.trace);
  });
});
