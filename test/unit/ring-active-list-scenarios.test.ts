// Active-list ring scenarios through the deterministic simulator: 001's worked example replayed
// event for event, message counts, and properties over many seeds.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, roundTripBound } from '@shared/algorithms/algorithm.ts';
import { ringActiveList } from '@shared/algorithms/ring-active-list.ts';
import { createRng } from '@shared/sim/rng.ts';
import { simulate, type SimulationSpec } from '@shared/sim/simulator.ts';
import {
  activeListsOf,
  describeMessage,
  hops,
  range,
  render,
  sendsOf,
  sendsToCrashed,
} from '../helpers/ring-trace.ts';
import { randomRingElection } from '../helpers/ring-properties.ts';

const T = 100;
const UB = roundTripBound({ ...DEFAULT_TIMING, transmission: T });
const HOPS = ['ELECT', 'ELECTED'];

/** 001: "four processes arranged in a ring: P1 -> P2 -> P3 -> P4 -> P1 ... P4 is coordinator.
 * Suppose P1 + P4 crash. Suppose P2 detects that coordinator P4 is not responding." */
const example001: SimulationSpec = {
  algorithm: ringActiveList,
  ids: [1, 2, 3, 4],
  ring: [1, 2, 3, 4],
  initialCoordinator: 4,
  detector: 'none',
  link: { delay: T },
  crashes: [
    { id: 1, at: 0 },
    { id: 4, at: 0 },
  ],
  elections: [{ id: 2, at: 0 }],
};

describe("ring-active-list: 001's four-process example", () => {
  const run = simulate(example001);
  const hopSends = sendsOf(run.trace).filter((e) => HOPS.includes(e.type));
  const says = (e: (typeof hopSends)[number]) => `${e.from}->${e.to} ${describeMessage(e.message)}`;

  it("ring-active-list: 001's example replays exactly as the whole message trace", async () => {
    await expect(render(run.trace)).toMatchFileSnapshot(
      '../scenarios/ring-active-list-001.trace.txt',
    );
  });

  it('ring-active-list: "P2 sets its active list to [ ]", then "[2]", then "P2 adds 3 to its active list [2,3]"', () => {
    expect(activeListsOf(run.trace, 2)).toEqual([[], [2], [2, 3]]);
  });

  it('ring-active-list: "P3 sets its active list to [2,3]" on the first message it sees', () => {
    expect(activeListsOf(run.trace, 3)).toEqual([[], [2, 3]]);
  });

  it('ring-active-list: the Elect and Elected messages go exactly as 001 tells it', () => {
    expect(hopSends.map(says)).toEqual([
      '2->3 Elect(2)', // "P2 sends Elect(2) message to P3"
      '3->4 Elect(3)', // "P3 sends Elect(3) towards P4 and then sends Elect(2) towards P4"
      '3->4 Elect(2)',
      '3->1 Elect(3)', // "The messages pass P4 + P1": P4 did not ACK within UB, nor did P1
      '3->1 Elect(2)',
      '3->2 Elect(3)', // "... and then reach P2"
      '3->2 Elect(2)',
      '2->3 Elect(3)', // "P2 adds 3 to its active list [2,3]; P2 forwards Elect(3) to P3"
      '2->3 Elected(3)', // "P2 receives the Elect(2) message; chooses P3 ... sends Elected(P3)"
      '3->2 Elected(3)', // "P3 receives the Elect(3) message; chooses P3 ... sends Elected(P3)"
    ]);
  });

  it('ring-active-list: each skip of a crashed process costs UB = 2T + M waiting for an ACK', () => {
    const at = (from: number, to: number) =>
      hopSends.filter((e) => e.type === 'ELECT' && e.from === from && e.to === to).map((e) => e.t);
    expect(at(3, 4)).toEqual([T, T]);
    expect(at(3, 1)).toEqual([T + UB, T + UB]);
    expect(at(3, 2)).toEqual([T + 2 * UB, T + 2 * UB]);
  });

  it('ring-active-list: P3 is elected and both live processes know it', () => {
    expect(run.coordinatorByNode).toEqual({ 2: 3, 3: 3 });
    expect(run.reports[3]).toMatchObject({
      role: 'coordinator',
      electing: false,
      activeList: [2, 3],
    });
    expect(run.reports[2]).toMatchObject({
      role: 'follower',
      electing: false,
      activeList: [2, 3],
      successor: 3,
    });
    // P3 learned that P4 and P1 are down: its successor is now P2.
    expect(run.reports[3]!.successor).toBe(2);
  });

  it('ring-active-list: "the last two messages can be processed in either order and the result will be the same"', () => {
    // Jitter on the 3->2 link and a fast 2->3 link let P3 apply rule (c) before or after P2 does.
    const orders = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) {
      const r = simulate({
        ...example001,
        link: { delay: T, jitter: T },
        links: { '2->3': { delay: 1, jitter: 0 } },
        seed,
      });
      const chose = r.trace.flatMap((e) =>
        e.kind === 'report' && e.report.detail?.['chosen'] !== undefined ? [e.node] : [],
      );
      orders.add(chose.join(','));
      expect(r.coordinatorByNode).toEqual({ 2: 3, 3: 3 });
      expect(r.reports[2]!.activeList).toEqual([2, 3]);
      expect(r.reports[3]!.activeList).toEqual([2, 3]);
    }
    expect(orders).toEqual(new Set(['2,3', '3,2']));
  });

  it("ring-active-list: 001's example costs m(m+1) = 6 hops for m = 2 live processes, plus 4 sends to crashed ones", () => {
    expect(hops(run.trace, ['ELECT'])).toBe(4);
    expect(hops(run.trace, ['ELECTED'])).toBe(2);
    expect(sendsToCrashed(run.trace, HOPS)).toBe(4);
    expect(run.messages.byType['ACK']).toBe(6);
  });
});

describe('ring-active-list: message counts', () => {
  // Every live process circulates its own Elect (rule (a) makes each one send Elect(i)), so with
  // m live processes there are m Elects of m hops each, then one Elected per process: m(m + 1).
  for (const n of [3, 4, 5, 8, 12]) {
    for (const initiator of [0, Math.floor((n - 1) / 2), n - 2]) {
      it(`ring-active-list: N=${n}, coordinator ${n - 1} crashed, ${initiator} detects: (N-1)N hops, one ACK each`, () => {
        const r = simulate({
          algorithm: ringActiveList,
          ids: range(n),
          detector: 'none',
          link: { delay: T },
          crashes: [{ id: n - 1, at: 0 }],
          elections: [{ id: initiator, at: 0 }],
        });
        const m = n - 1;
        expect(hops(r.trace, ['ELECT'])).toBe(m * m);
        expect(hops(r.trace, ['ELECTED'])).toBe(m);
        expect(r.messages.byType['ACK']).toBe(m * (m + 1));
        // Only the crashed process's predecessor (N-2) wastes sends on it: the Elects of the
        // processes from the initiator to N-2 travel together and all reach N-2 before its first
        // UB expires; every later hop skips the crashed process without a send.
        expect(sendsToCrashed(r.trace, HOPS)).toBe(n - 1 - initiator);
        expect(Object.values(r.coordinatorByNode).every((c) => c === n - 2)).toBe(true);
      });
    }
  }
});

describe('ring-active-list: concurrent detection', () => {
  it('ring-active-list: when every follower notices a silent coordinator at once, the elections merge: still m(m+1) hops', () => {
    // Heartbeat detection, no jitter: all m followers send Elect(i) together; each then treats
    // the others' Elects by rule (b), so it is one election, not m.
    for (const n of [4, 8]) {
      const r = simulate({
        algorithm: ringActiveList,
        ids: range(n),
        link: { delay: T },
        crashes: [{ id: n - 1, at: 1000 }],
        until: 15_000,
      });
      const m = n - 1;
      expect(r.trace.filter((e) => e.kind === 'timer' && e.name === 'fd:silence')).toHaveLength(m);
      expect(hops(r.trace, HOPS)).toBe(m * (m + 1));
      expect(new Set(Object.values(r.coordinatorByNode))).toEqual(new Set([n - 2]));
    }
  });
});

describe('ring-active-list: properties over many seeds', () => {
  it('ring-active-list: without loss every live process ends believing the highest live id', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { r, live } = randomRingElection(ringActiveList, seed, T);
      expect(r.truncated, `seed ${seed}`).toBe(false);
      for (const id of live)
        expect(r.reports[id], `seed ${seed}, process ${id}`).toMatchObject({
          coordinator: Math.max(...live),
          electing: false,
        });
    }
  });

  it('ring-active-list: with heartbeat detection a crashed coordinator is replaced by the highest live id', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const rnd = createRng(seed + 1000);
      const n = 3 + Math.floor(rnd() * 7);
      const crashed = [n - 1, ...range(n - 1).filter(() => rnd() < 0.2)];
      const live = range(n).filter((id) => !crashed.includes(id));
      const r = simulate({
        algorithm: ringActiveList,
        ids: range(n),
        seed,
        until: 20_000,
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

  it('ring-active-list: after 10% message loss stops, every live process agrees on the highest live id', () => {
    for (let seed = 1; seed <= 15; seed++) {
      const rnd = createRng(seed + 2000);
      const n = 3 + Math.floor(rnd() * 6);
      const crashed = range(n)
        .filter(() => rnd() < 0.3)
        .slice(0, n - 1);
      const live = range(n).filter((id) => !crashed.includes(id));
      const r = simulate({
        algorithm: ringActiveList,
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

  it('ring-active-list: a crashed process that recovers holds an election and, as highest, wins it', () => {
    const r = simulate({
      algorithm: ringActiveList,
      ids: range(6),
      detector: 'none',
      link: { delay: T },
      crashes: [{ id: 5, at: 0 }],
      elections: [{ id: 1, at: 0 }],
      recoveries: [{ id: 5, at: 5000 }],
    });
    const before = r.trace.filter((e) => e.kind === 'report' && e.t < 5000 && e.node === 0).at(-1);
    expect(before?.kind === 'report' && before.report.coordinator).toBe(4);
    for (const id of range(6))
      expect(r.reports[id], `process ${id}`).toMatchObject({ coordinator: 5, electing: false });
  });

  it("ring-active-list: a partition elects a coordinator on each side; once healed, the higher one's heartbeat brings everyone to it", () => {
    for (const detector of ['heartbeat', 'poll'] as const) {
      const r = simulate({
        algorithm: ringActiveList,
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

  it('ring-active-list: the same seed gives an identical trace', () => {
    const spec: SimulationSpec = {
      algorithm: ringActiveList,
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
