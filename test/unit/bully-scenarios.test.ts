// Bully scenarios through the deterministic simulator: the documents' worked example (000,
// Figure 6-20) replayed event for event, the message counts of 002/003, recovery and rivals.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, roundTripBound, type Algorithm } from '@shared/algorithms/algorithm.ts';
import { bully, type BullyMessage, type BullyState } from '@shared/algorithms/bully.ts';
import { simulate, type SimulationSpec } from '@shared/sim/simulator.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';

const T = 100; // link delay, so the simulator's T (transmission bound) is 100 ms
const UB = roundTripBound({ ...DEFAULT_TIMING, transmission: T });
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

type Send = Extract<TraceEvent, { kind: 'send' }>;
const sendsOf = (trace: TraceEvent[]) => trace.filter((e): e is Send => e.kind === 'send');
const edges = (sends: Send[]) => sends.map((e) => `${e.from}->${e.to}`);

/** One line per trace event: the reviewable form of a run (etcd raft's testdata style). */
function render(trace: TraceEvent[]): string {
  const line = (e: TraceEvent): string => {
    switch (e.kind) {
      case 'send':
        return `send     ${e.from} -> ${e.to}  ${e.type}${e.message.election === undefined ? '' : ` #${String(e.message.election)}`}`;
      case 'deliver':
        return `deliver  ${e.from} -> ${e.to}  ${e.type}`;
      case 'drop':
        return `drop     ${e.from} -> ${e.to}  ${e.type} (${e.reason})`;
      case 'timer':
        return `timer    ${e.node}  ${e.name}`;
      case 'report':
        return `report   ${e.node}  ${e.report.role} coordinator=${String(e.report.coordinator)}`;
      case 'partition':
        return `partition ${JSON.stringify(e.groups)}`;
      case 'note':
        return `note     ${e.text}`;
      case 'duplicate':
        return `duplicate ${e.from} -> ${e.to}  ${e.type}`;
      default:
        // elect, crash, recover... and kinds added later, which name a node or else print whole.
        return 'node' in e
          ? `${e.kind.padEnd(8)} ${e.node}`
          : `${e.kind.padEnd(8)} ${JSON.stringify(e)}`;
    }
  };
  return trace.map((e) => `t=${String(e.t).padStart(5)}  ${line(e)}`).join('\n') + '\n';
}

/** 7 was coordinator and crashed; `initiator` notices first (detector 'none': the documents' replay mode). */
function crashOfHighest(n: number, initiator: number, extra: Partial<SimulationSpec> = {}) {
  return simulate({
    algorithm: bully,
    ids: range(n),
    detector: 'none',
    initialCoordinator: n - 1,
    link: { delay: T },
    crashes: [{ id: n - 1, at: 0 }],
    elections: [{ id: initiator, at: 0 }],
    ...extra,
  });
}

const allBelieve = (coordinatorByNode: Record<number, number | null>, c: number) =>
  Object.values(coordinatorByNode).every((x) => x === c);

describe('bully: Figure 6-20 (000)', () => {
  const run = crashOfHighest(8, 4);
  const sends = sendsOf(run.trace);

  it('bully: Figure 6-20 replays exactly as the whole message trace', async () => {
    await expect(render(run.trace)).toMatchFileSnapshot('../scenarios/bully-figure-6-20.trace.txt');
  });

  it('bully: (a) process 4 holds an election, sending ELECTION to 5, 6 and 7', () => {
    expect(sends.slice(0, 3).map((e) => `${e.type} ${e.from}->${e.to}`)).toEqual([
      'ELECTION 4->5',
      'ELECTION 4->6',
      'ELECTION 4->7',
    ]);
  });

  it('bully: (b) processes 5 and 6 respond OK, telling 4 to stop; 7 is dead and does not', () => {
    expect(edges(sends.filter((e) => e.type === 'OK' && e.to === 4))).toEqual(['5->4', '6->4']);
    expect(
      run.trace.some(
        (e) => e.kind === 'drop' && e.from === 4 && e.to === 7 && e.reason === 'receiver-crashed',
      ),
    ).toBe(true);
    // "Upon getting the first of these responses, 4 knows that its job is over ... It just sits back and waits"
    const roles4 = run.trace.flatMap((e) =>
      e.kind === 'report' && e.node === 4 ? [`${e.t}:${e.report.role}`] : [],
    );
    expect(roles4).toEqual([
      '0:follower',
      '0:electing',
      `${2 * T}:waiting`,
      `${T + UB + T}:follower`,
    ]);
  });

  it('bully: (c) now 5 and 6 each hold an election, only to processes higher than themselves', () => {
    expect(edges(sends.filter((e) => e.type === 'ELECTION' && e.from !== 4))).toEqual([
      '5->6',
      '5->7',
      '6->7',
    ]);
  });

  it('bully: (d) process 6 tells 5 to stop', () => {
    expect(edges(sends.filter((e) => e.type === 'OK' && e.to === 5))).toEqual(['6->5']);
  });

  it('bully: (e) process 6 wins and tells everyone lower, after UB without an OK', () => {
    const coordinators = sends.filter((e) => e.type === 'COORDINATOR');
    expect(edges(coordinators)).toEqual(['6->0', '6->1', '6->2', '6->3', '6->4', '6->5']);
    const sixStarted = sends.find((e) => e.from === 6 && e.type === 'ELECTION')!.t;
    expect(coordinators[0]!.t).toBe(sixStarted + UB);
    expect(run.coordinatorByNode).toEqual({ 0: 6, 1: 6, 2: 6, 3: 6, 4: 6, 5: 6, 6: 6 });
    expect(sends).toHaveLength(3 + 2 + 3 + 1 + 6);
  });
});

describe('bully: message counts (002, 003)', () => {
  for (const n of [4, 8, 16, 50]) {
    it(`bully: lowest id detecting the crash of the highest sends N(N-1)/2 ELECTION, (N-1)(N-2)/2 OK, N-2 COORDINATOR (N=${n})`, () => {
      const run = crashOfHighest(n, 0);
      expect(run.messages.byType).toEqual({
        ELECTION: (n * (n - 1)) / 2,
        OK: ((n - 1) * (n - 2)) / 2,
        COORDINATOR: n - 2,
      });
      expect(allBelieve(run.coordinatorByNode, n - 2)).toBe(true);
      // Each process held at most one election: the count formulas depend on it.
      expect(Object.values(run.reports).every((r) => Number(r.detail?.elections) <= 1)).toBe(true);
      // Worst-case time: T for the ELECTIONs to land, UB for the winner's wait, T for COORDINATOR.
      expect(run.electionTime).toBe(T + UB + T);
    });
  }

  it('bully: the worst-case counts hold under jitter within the transmission bound T', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const run = crashOfHighest(10, 0, { link: { delay: 60, jitter: 40 }, seed });
      expect(run.messages.byType, `seed ${seed}`).toEqual({ ELECTION: 45, OK: 36, COORDINATOR: 8 });
      expect(allBelieve(run.coordinatorByNode, 8)).toBe(true);
    }
  });

  for (const n of [4, 8, 50]) {
    it(`bully: best case, the second-highest detects: one ELECTION, no OK, N-2 COORDINATOR within UB + T (003, N=${n})`, () => {
      const run = crashOfHighest(n, n - 2);
      expect(run.messages.byType).toEqual({ ELECTION: 1, COORDINATOR: n - 2 });
      expect(allBelieve(run.coordinatorByNode, n - 2)).toBe(true);
      expect(run.electionTime).toBe(UB + T);
    });
  }
});

describe('bully: recovery and rivals', () => {
  it('bully: a recovered highest process bullies the others with COORDINATOR and no ELECTION (000: "it will just send the others a COORDINATOR message")', () => {
    const run = crashOfHighest(8, 4, { recoveries: [{ id: 7, at: 2000 }] });
    const after = sendsOf(run.trace).filter((e) => e.t >= 2000);
    expect(after.map((e) => `${e.type} ${e.from}->${e.to}`)).toEqual(
      range(7).map((i) => `COORDINATOR 7->${i}`),
    );
    expect(allBelieve(run.coordinatorByNode, 7)).toBe(true);
    expect(run.reports[6]?.role).toBe('follower'); // 6 stepped down
  });

  it('bully: a recovered lower process holds an election on restart and ends believing the coordinator (003)', () => {
    const run = simulate({
      algorithm: bully,
      ids: range(6),
      detector: 'none',
      link: { delay: T },
      crashes: [{ id: 2, at: 0 }],
      recoveries: [{ id: 2, at: 1000 }],
    });
    const restart = sendsOf(run.trace).filter((e) => e.from === 2 && e.t === 1000);
    expect(edges(restart)).toEqual(['2->3', '2->4', '2->5']);
    expect(restart.every((e) => e.type === 'ELECTION')).toBe(true);
    expect(allBelieve(run.coordinatorByNode, 5)).toBe(true);
    expect(Object.values(run.reports).every((r) => !r.electing)).toBe(true);
  });

  it('bully: a COORDINATOR from a lower id makes higher processes hold an election, and the highest bullies the impostor (000)', () => {
    // Process 2 wrongly claims to coordinate, announcing to everyone (the higher ids included).
    const impostor: Algorithm<BullyState, BullyMessage> = {
      ...bully,
      step(s, e, ctx) {
        if (e.kind !== 'elect' || s.self !== 2) return bully.step(s, e, ctx);
        const effects = range(6)
          .filter((i) => i !== 2)
          .map((to) => ({ kind: 'send' as const, to, message: { type: 'COORDINATOR' as const } }));
        return { state: s, effects };
      },
    };
    const run = simulate({
      algorithm: impostor,
      ids: range(6),
      detector: 'none',
      link: { delay: T },
      elections: [{ id: 2, at: 0 }],
    });
    const sends = sendsOf(run.trace);
    // Each of 3, 4, 5 heard a lower COORDINATOR at T and immediately held an election.
    for (const p of [3, 4])
      expect(sends.some((e) => e.from === p && e.type === 'ELECTION' && e.t === T)).toBe(true);
    expect(
      edges(sends.filter((e) => e.from === 5 && e.t === T && e.type === 'COORDINATOR')),
    ).toEqual(['5->0', '5->1', '5->2', '5->3', '5->4']);
    expect(allBelieve(run.coordinatorByNode, 5)).toBe(true);
  });

  it('bully: concurrent initiators converge on the highest live id (000: "two processes detect the demise ... simultaneously")', () => {
    const run = crashOfHighest(8, 1, {
      elections: [
        { id: 1, at: 0 },
        { id: 3, at: 0 },
        { id: 5, at: 30 },
      ],
    });
    expect(allBelieve(run.coordinatorByNode, 6)).toBe(true);
    expect(
      Object.values(run.reports).every((r) => r.role === 'follower' || r.role === 'coordinator'),
    ).toBe(true);
    expect(run.messages.byType.COORDINATOR).toBe(6);
  });
});

describe('bully: partitions', () => {
  for (const detector of ['heartbeat', 'poll'] as const) {
    it(`bully: after a partition heals, the two coordinators meet and the higher one bullies the other (${detector}; 003: "What happens if two machines decide they are co-ordinators?")`, () => {
      const run = simulate({
        algorithm: bully,
        ids: range(8),
        detector,
        link: { delay: T, jitter: 20 },
        seed: 5,
        partitions: [
          {
            at: 1000,
            groups: [
              [0, 1, 2, 3],
              [4, 5, 6, 7],
            ],
          },
          { at: 6000, groups: null },
        ],
        until: 15_000,
      });
      const during = run.trace.filter(
        (e) => e.kind === 'report' && e.t < 6000 && e.report.role === 'coordinator',
      );
      expect(during.some((e) => e.kind === 'report' && e.node === 3)).toBe(true); // the cut-off side elected 3
      expect(allBelieve(run.coordinatorByNode, 7)).toBe(true);
      expect(Object.values(run.reports).filter((r) => r.role === 'coordinator')).toHaveLength(1);
    });
  }
});

describe('bully: failure detectors find the crash', () => {
  const crashAt = 1200;
  for (const detector of ['heartbeat', 'poll'] as const) {
    it(`bully: with the ${detector} detector the crash of the coordinator is noticed and 6 is elected`, () => {
      const run = simulate({
        algorithm: bully,
        ids: range(8),
        detector,
        link: { delay: T },
        crashes: [{ id: 7, at: crashAt }],
        until: 8000,
      });
      const firstElection = sendsOf(run.trace).find((e) => e.type === 'ELECTION')!;
      // Heartbeat: the last beat before the crash, then the silence timeout. Poll: the next poll, then UB.
      const bound =
        detector === 'heartbeat'
          ? DEFAULT_TIMING.heartbeatInterval + DEFAULT_TIMING.heartbeatTimeout + T
          : DEFAULT_TIMING.heartbeatInterval + UB;
      expect(firstElection.t).toBeGreaterThan(crashAt);
      expect(firstElection.t - crashAt).toBeLessThanOrEqual(bound);
      expect(allBelieve(run.coordinatorByNode, 6)).toBe(true);
      expect(run.reports[6]?.role).toBe('coordinator');
      // Steady again: the new coordinator's heartbeats / polls keep everyone from re-electing.
      expect(Object.values(run.reports).every((r) => Number(r.detail?.elections) <= 1)).toBe(true);
    });
  }

  it('bully: without a crash the heartbeat detector never starts an election', () => {
    const run = simulate({
      algorithm: bully,
      ids: range(5),
      link: { delay: T, jitter: 50 },
      until: 10_000,
      seed: 3,
    });
    expect(run.messages.byType.ELECTION ?? 0).toBe(0);
    expect(run.messages.byType.HEARTBEAT).toBeGreaterThan(0);
    expect(allBelieve(run.coordinatorByNode, 4)).toBe(true);
  });
});
