// Ring algorithm scenarios through the deterministic simulator: 002's two concurrent elections
// replayed event for event, 002's message count, initiators that die, and properties over seeds.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, roundTripBound } from '@shared/algorithms/algorithm.ts';
import { ring } from '@shared/algorithms/ring.ts';
import { createRng } from '@shared/sim/rng.ts';
import { simulate, type SimulationSpec } from '@shared/sim/simulator.ts';
import {
  activeListsOf,
  hops,
  range,
  render,
  sendsOf,
  sendsToCrashed,
} from '../helpers/ring-trace.ts';
import { randomRingElection } from '../helpers/ring-properties.ts';

const T = 100;
const UB = roundTripBound({ ...DEFAULT_TIMING, transmission: T });
const HOPS = ['ELECTION', 'COORDINATOR'];

/** 002: "Here, both 2 and 5 elect 6: [5,6,0,1,2,3,4] [2,3,4,5,6,0,1]" (ring 0..7, 7 has crashed). */
const example002: SimulationSpec = {
  algorithm: ring,
  ids: range(8),
  initialCoordinator: 7,
  detector: 'none',
  link: { delay: T },
  crashes: [{ id: 7, at: 0 }],
  elections: [
    { id: 5, at: 0 },
    { id: 2, at: 0 },
  ],
};

/** The coordinator (highest id) crashed; `initiator` notices (detector 'none': the documents' replay mode). */
function crashOfHighest(n: number, initiator: number, extra: Partial<SimulationSpec> = {}) {
  return simulate({
    algorithm: ring,
    ids: range(n),
    detector: 'none',
    link: { delay: T },
    crashes: [{ id: n - 1, at: 0 }],
    elections: [{ id: initiator, at: 0 }],
    ...extra,
  });
}

const believers = (r: ReturnType<typeof simulate>) => new Set(Object.values(r.coordinatorByNode));

describe("ring: 002's two concurrent elections", () => {
  const run = simulate(example002);
  const sends = sendsOf(run.trace);
  /** The ELECTION lists that came back to the process that started them. */
  const returned = sends
    .filter((e) => e.type === 'ELECTION' && (e.message.list as number[])[0] === e.to)
    .map((e) => e.message.list as number[]);

  it("ring: 002's example replays exactly as the whole message trace", async () => {
    await expect(render(run.trace)).toMatchFileSnapshot('../scenarios/ring-002.trace.txt');
  });

  it('ring: the circulated lists are [5,6,0,1,2,3,4] and [2,3,4,5,6,0,1]', () => {
    expect(returned).toEqual([
      [2, 3, 4, 5, 6, 0, 1],
      [5, 6, 0, 1, 2, 3, 4],
    ]);
  });

  it('ring: "when the message returns to p, it sees its own process ID in the list": each initiator reports its complete list', () => {
    expect(run.reports[5]!.activeList).toEqual([5, 6, 0, 1, 2, 3, 4]);
    expect(run.reports[2]!.activeList).toEqual([2, 3, 4, 5, 6, 0, 1]);
  });

  it('ring: "both 2 and 5 elect 6": each circulates COORDINATOR 6 and every live process ends believing 6', () => {
    const coordinators = sends.filter((e) => e.type === 'COORDINATOR');
    expect(new Set(coordinators.map((e) => e.message.origin))).toEqual(new Set([2, 5]));
    expect(coordinators.every((e) => e.message.coordinator === 6)).toBe(true);
    expect(run.coordinatorByNode).toEqual({ 0: 6, 1: 6, 2: 6, 3: 6, 4: 6, 5: 6, 6: 6 });
    expect(Object.values(run.reports).every((r) => !r.electing)).toBe(true);
    expect(run.reports[6]!.role).toBe('coordinator');
  });

  it('ring: each election makes one circuit of ELECTION and one of COORDINATOR, ending at its initiator', () => {
    // Two elections over 7 live processes: 2 x (7 + 7) hops.
    expect(hops(run.trace, ['ELECTION'])).toBe(14);
    expect(hops(run.trace, ['COORDINATOR'])).toBe(14);
    expect(run.truncated).toBe(false);
  });

  it('ring: 6 skips crashed 7 after UB once, and sends straight to 0 afterwards (its successor is now 0)', () => {
    expect(sends.filter((e) => e.from === 6 && e.to === 7).map((e) => e.t)).toEqual([T]);
    expect(sends.find((e) => e.from === 6 && e.to === 0)!.t).toBe(T + UB);
    expect(run.reports[6]!.successor).toBe(0);
    expect(activeListsOf(run.trace, 6).slice(1, 2)).toEqual([[5, 6]]);
  });
});

describe('ring: message count (002: "2 (n-1) messages always")', () => {
  // n processes, the coordinator among them crashed: n - 1 live ones. ELECTION makes n - 1 hops
  // round the live ring and COORDINATOR another n - 1: 2(n - 1) messages between live processes.
  // Not counted in the 2(n-1): one ACK per hop (another 2(n-1)) and the one send to the
  // crashed coordinator, after which its predecessor skips it.
  for (const n of [3, 4, 5, 8, 12, 16]) {
    for (const initiator of [0, Math.floor((n - 1) / 2), n - 2]) {
      it(`ring: N=${n}, coordinator ${n - 1} crashed, ${initiator} starts: 2(N-1) = ${2 * (n - 1)} hops`, () => {
        const r = crashOfHighest(n, initiator);
        expect(hops(r.trace, HOPS)).toBe(2 * (n - 1));
        expect(hops(r.trace, ['ELECTION'])).toBe(n - 1);
        expect(hops(r.trace, ['COORDINATOR'])).toBe(n - 1);
        expect(sendsToCrashed(r.trace, HOPS)).toBe(1);
        expect(r.messages.byType['ACK']).toBe(2 * (n - 1));
        expect(r.messages.total).toBe(4 * (n - 1) + 1);
        expect(believers(r)).toEqual(new Set([n - 2]));
      });
    }
  }

  it('ring: when every follower notices a silent coordinator at once, m elections run side by side: 2m² hops', () => {
    // Heartbeat detection, no jitter: all m = n - 1 followers time out together and each starts
    // its own election (002: "OK to have two elections at once"); each costs 2m hops.
    for (const n of [4, 8]) {
      const r = simulate({
        algorithm: ring,
        ids: range(n),
        link: { delay: T },
        crashes: [{ id: n - 1, at: 1000 }],
        until: 15_000,
      });
      const m = n - 1;
      expect(
        new Set(
          sendsOf(r.trace)
            .filter((e) => e.type === 'ELECTION')
            .map((e) => e.message.eid),
        ).size,
      ).toBe(m);
      expect(hops(r.trace, HOPS)).toBe(2 * m * m);
      expect(believers(r)).toEqual(new Set([n - 2]));
    }
  });

  it('ring: with k crashed processes in a row, 2(n-k) hops and one wasted send per crashed process', () => {
    const r = simulate({
      algorithm: ring,
      ids: range(10),
      detector: 'none',
      link: { delay: T },
      crashes: [
        { id: 9, at: 0 },
        { id: 0, at: 0 },
        { id: 1, at: 0 },
      ],
      elections: [{ id: 4, at: 0 }],
    });
    expect(hops(r.trace, HOPS)).toBe(2 * (10 - 3));
    expect(sendsToCrashed(r.trace, HOPS)).toBe(3);
    expect(believers(r)).toEqual(new Set([8]));
  });

  it('ring: everyone knows the result after 2(n-1) - 1 hops of T plus one UB to skip the crashed coordinator', () => {
    // The last COORDINATOR hop, back to the initiator, tells it nothing new.
    const r = crashOfHighest(8, 0);
    expect(r.electionTime).toBe((2 * 7 - 1) * T + UB);
  });
});

describe('ring: failures during the election', () => {
  it('ring: an initiator that dies before its ELECTION returns: the next process to see its own id completes it', () => {
    // 5 starts; it dies at 150 ms, while its ELECTION is on the way round.
    const r = simulate({
      ...example002,
      elections: [{ id: 5, at: 0 }],
      crashes: [
        { id: 7, at: 0 },
        { id: 5, at: 150 },
      ],
    });
    expect(r.truncated).toBe(false);
    expect(r.coordinatorByNode).toEqual({ 0: 6, 1: 6, 2: 6, 3: 6, 4: 6, 6: 6 });
    const origins = sendsOf(r.trace)
      .filter((e) => e.type === 'COORDINATOR')
      .map((e) => e.message.origin);
    expect(new Set(origins)).toEqual(new Set([6]));
  });

  it('ring: an initiator that dies after sending COORDINATOR: it stops one hop later and never circulates forever', () => {
    const r = simulate({
      ...example002,
      elections: [{ id: 5, at: 0 }],
      crashes: [
        { id: 7, at: 0 },
        { id: 5, at: 950 },
      ],
    });
    expect(r.truncated).toBe(false);
    expect(r.coordinatorByNode).toEqual({ 0: 6, 1: 6, 2: 6, 3: 6, 4: 6, 6: 6 });
    // 5 -> 6 -> 0 -> 1 -> 2 -> 3 -> 4, 4 -> 5 (dead, skipped after UB), 4 -> 6, where 6 has passed
    // this COORDINATOR on already and drops it: 7 deliveries, one more than a normal circuit.
    expect(hops(r.trace, ['COORDINATOR'])).toBe(7);
    expect(
      sendsOf(r.trace)
        .filter((e) => e.type === 'COORDINATOR' && e.to === 6)
        .map((e) => e.from),
    ).toEqual([5, 4]);
  });

  it('ring: a crashed coordinator that recovers holds an election and, as highest, wins it', () => {
    const r = crashOfHighest(6, 1, { recoveries: [{ id: 5, at: 5000 }] });
    const before = r.trace.filter((e) => e.kind === 'report' && e.t < 5000 && e.node === 0).at(-1);
    expect(before?.kind === 'report' && before.report.coordinator).toBe(4);
    expect(r.coordinatorByNode).toEqual({ 0: 5, 1: 5, 2: 5, 3: 5, 4: 5, 5: 5 });
  });
});

describe('ring: properties over many seeds', () => {
  it('ring: without loss every live process ends believing the highest live id', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { r, live } = randomRingElection(ring, seed, T);
      expect(r.truncated, `seed ${seed}`).toBe(false);
      for (const id of live)
        expect(r.reports[id], `seed ${seed}, process ${id}`).toMatchObject({
          coordinator: Math.max(...live),
          electing: false,
        });
    }
  });

  it('ring: with heartbeat or poll detection a crashed coordinator is replaced by the highest live id', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const rnd = createRng(seed + 1000);
      const n = 3 + Math.floor(rnd() * 7);
      const crashed = [n - 1, ...range(n - 1).filter(() => rnd() < 0.2)];
      const live = range(n).filter((id) => !crashed.includes(id));
      const r = simulate({
        algorithm: ring,
        ids: range(n),
        seed,
        until: 20_000,
        detector: seed % 2 ? 'heartbeat' : 'poll',
        link: { delay: T, jitter: Math.floor(rnd() * T) },
        crashes: crashed.map((id) => ({ id, at: 1000 + Math.floor(rnd() * 2000) })),
      });
      for (const id of live)
        expect(r.reports[id], `seed ${seed}, process ${id}`).toMatchObject({
          coordinator: Math.max(...live),
          electing: false,
        });
    }
  });

  it('ring: after 10% message loss stops, every live process agrees on the highest live id', () => {
    for (let seed = 1; seed <= 15; seed++) {
      const rnd = createRng(seed + 2000);
      const n = 3 + Math.floor(rnd() * 6);
      const crashed = range(n)
        .filter(() => rnd() < 0.3)
        .slice(0, n - 1);
      const live = range(n).filter((id) => !crashed.includes(id));
      const r = simulate({
        algorithm: ring,
        ids: range(n),
        seed,
        until: 60_000,
        maxEvents: 500_000,
        link: { delay: T, jitter: Math.floor(rnd() * T), drop: 0.1 },
        dropUntil: 8000,
        crashes: crashed.map((id) => ({ id, at: 1000 + Math.floor(rnd() * 2000) })),
      });
      for (const id of live)
        expect(r.reports[id], `seed ${seed}, process ${id}`).toMatchObject({
          coordinator: Math.max(...live),
          electing: false,
        });
    }
  });

  it('ring: everyone starting at once (no initial coordinator) agrees on the highest id', () => {
    const r = simulate({
      algorithm: ring,
      ids: range(6),
      initialCoordinator: null,
      detector: 'none',
      link: { delay: T, jitter: 30 },
      seed: 5,
    });
    expect(r.coordinatorByNode).toEqual({ 0: 5, 1: 5, 2: 5, 3: 5, 4: 5, 5: 5 });
  });

  it("ring: a partition elects a coordinator on each side; once healed, the higher one's heartbeat brings everyone to it", () => {
    for (const detector of ['heartbeat', 'poll'] as const) {
      const r = simulate({
        algorithm: ring,
        ids: range(6),
        detector,
        link: { delay: T, jitter: 50 },
        seed: 1,
        until: 30_000,
        partitions: [
          {
            at: 1000,
            groups: [
              [0, 1, 2],
              [3, 4, 5],
            ],
          },
          { at: 8000, groups: null },
        ],
      });
      const split: Record<number, number | null> = {};
      for (const e of r.trace)
        if (e.kind === 'report' && e.t < 8000) split[e.node] = e.report.coordinator;
      expect(split, detector).toEqual({ 0: 2, 1: 2, 2: 2, 3: 5, 4: 5, 5: 5 });
      expect(r.coordinatorByNode, detector).toEqual({ 0: 5, 1: 5, 2: 5, 3: 5, 4: 5, 5: 5 });
    }
  });

  it('ring: the same seed gives an identical trace', () => {
    const spec: SimulationSpec = {
      algorithm: ring,
      ids: range(7),
      link: { delay: T, jitter: 60, drop: 0.05 },
      until: 15_000,
      crashes: [
        { id: 6, at: 1000 },
        { id: 2, at: 1200 },
      ],
    };
    const a = simulate({ ...spec, seed: 42 });
    expect(simulate({ ...spec, seed: 42 }).trace).toEqual(a.trace);
    expect(simulate({ ...spec, seed: 43 }).trace).not.toEqual(a.trace);
  });
});
