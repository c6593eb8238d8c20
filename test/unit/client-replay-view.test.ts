// Replay mode's pictures from real trace files: the simulator's (as `npm run simulate -- --trace`
// writes them), the explorer's shortest bad schedule, and a header-less relay trace. At the end
// the ring's model holds the coordinators the simulator reported; mid-election the messages in
// flight sit where their real send and delivery times put them, and the space-time diagram is
// cut at the cursor.
import { describe, expect, it } from 'vitest';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { parseTraceFile, serializeTrace, type ParsedTrace } from '@shared/protocol/trace-file.ts';
import { finalState, stateAt } from '@shared/analysis/replay.ts';
import { simulate, type SimulationSpec } from '@shared/sim/simulator.ts';
import { describeEvent } from '@shared/protocol/trace-format.ts';
import { LabModel } from '../../client/src/utils/lab-model.ts';
import { replayElections, windowAt } from '../../client/src/utils/replay-elections.ts';
import {
  countAtTime,
  messageFates,
  replayConfig,
  replayFlights,
  replaySnapshot,
  traceMeta,
} from '../../client/src/utils/replay-view.ts';
import { parseExploreCli, runExplore } from '../../scripts/explore.ts';

const ids = [0, 1, 2, 3, 4, 5, 6, 7];

function simulated(spec: Partial<SimulationSpec> = {}) {
  const full: SimulationSpec = {
    algorithm: getAlgorithm('bully'),
    ids,
    detector: 'none',
    crashes: [{ id: 7, at: 0 }],
    elections: [{ id: 4, at: 0 }],
    seed: 1,
    ...spec,
  };
  const r = simulate(full);
  const parsed = parseTraceFile(
    serializeTrace(
      { source: 'simulator', algorithm: full.algorithm.name, ids: [...full.ids], seed: r.seed },
      r.trace,
    ),
  );
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return { r, trace: parsed.trace };
}

function modelAt(trace: ParsedTrace, count: number): LabModel {
  const meta = traceMeta(trace);
  const m = new LabModel();
  m.applySnapshot(replaySnapshot(stateAt(trace, count), replayConfig(meta), meta.source));
  return m;
}

describe('replay view', () => {
  it('a simulator trace scrubbed to the end: the ring model holds the coordinators the simulator reported, 7 crashed (Figure 6-20, 000)', () => {
    const { r, trace } = simulated();
    const meta = traceMeta(trace);
    expect(meta).toMatchObject({
      source: 'simulator',
      algorithm: 'bully',
      ids,
      seed: 1,
      violation: null,
      events: trace.events.length,
    });
    const m = modelAt(trace, trace.events.length);
    const believed = Object.fromEntries(
      m
        .list()
        .filter((p) => p.status === 'up')
        .map((p) => [p.id, p.report!.coordinator]),
    );
    expect(believed).toEqual(Object.fromEntries(Object.entries(r.coordinatorByNode)));
    expect(m.processes.get(7)!.status).toBe('crashed');
    expect(m.agreement().settled).toBe(true);
    // Simulated processes are programs: drawn as bots.
    expect(m.processes.get(0)!.kind).toBe('bot');
  });

  it("right after 4's election starts, its three ELECTIONs are in flight, each halfway at half its delivery time", () => {
    const { trace } = simulated({ link: { delay: 100, jitter: 0, drop: 0 } });
    const count = trace.events.findIndex((e) => e.kind === 'deliver');
    const s = stateAt(trace, count);
    const sentAt = s.inFlight[0]!.sentAt;
    const frame = replayFlights(
      s,
      trace.events,
      count,
      messageFates(trace.events),
      sentAt + 50,
      200,
    );
    expect(frame.moving.map((m) => [m.flight.from, m.flight.to, m.flight.type, m.f])).toEqual([
      [4, 5, 'ELECTION', 0.5],
      [4, 6, 'ELECTION', 0.5],
      [4, 7, 'ELECTION', 0.5],
    ]);
  });

  it('a message dropped on the way shows as a cross where it fell, for a while after the drop', () => {
    const { trace } = simulated({
      partitions: [
        {
          at: 0,
          groups: [
            [0, 1, 2, 3, 4],
            [5, 6, 7],
          ],
        },
      ],
    });
    const dropAt = trace.events.findIndex((e) => e.kind === 'drop');
    expect(dropAt).toBeGreaterThan(0);
    const drop = trace.events[dropAt]!;
    const s = stateAt(trace, dropAt + 1);
    const fates = messageFates(trace.events);
    expect(
      replayFlights(s, trace.events, dropAt + 1, fates, drop.t, 100).drops.map(
        (d) => d.flight.reason,
      ),
    ).toContain('partition');
    expect(replayFlights(s, trace.events, dropAt + 1, fates, drop.t + 101, 100).drops).toEqual([]);
  });

  it('the space-time diagram mid-election is cut at the cursor; at the end it holds the whole election and its counts', () => {
    const { r, trace } = simulated();
    const initial = replaySnapshot(stateAt(trace, 0), replayConfig(traceMeta(trace)), 'simulator');
    const elections = replayElections(trace.events, initial);
    expect(elections).toHaveLength(1);
    const firstDeliver = trace.events.findIndex((e) => e.kind === 'deliver');
    const mid = windowAt(elections, trace.events, firstDeliver + 1, 20_000)!;
    expect(mid.end).toBeNull();
    expect(mid.events.at(-1)!.seq).toBe(trace.events[firstDeliver]!.seq);
    const whole = windowAt(elections, trace.events, trace.events.length)!;
    expect(whole.end).not.toBeNull();
    expect(whole.trigger).toBe('elect at 4');
    // Every election message of the run, counted as the stats panel counts them.
    for (const type of ['ELECTION', 'OK', 'COORDINATOR'])
      expect(whole.sent[type]).toBe(r.messages.byType[type]);
    // Before anything happened there is nothing to draw.
    expect(windowAt(elections, trace.events, 0)).toBeNull();
  });

  it('a steady start with no election shows the trace so far', () => {
    const { trace } = simulated({ crashes: [], elections: [], detector: 'heartbeat', until: 3000 });
    expect(trace.events.length).toBeGreaterThan(10);
    const initial = replaySnapshot(stateAt(trace, 0), replayConfig(traceMeta(trace)), 'simulator');
    const w = windowAt(replayElections(trace.events, initial), trace.events, 10)!;
    expect(w.serial).toBe(0);
    expect(w.events).toHaveLength(10);
  });

  it("the explorer's shortest bad schedule opens with its verdict, and its end shows the two coordinators (000: UB = 2T + M broken by a slow link)", () => {
    const cli = parseExploreCli([
      '--algorithm',
      'bully',
      '--nodes',
      '4',
      '--faults',
      'slow',
      '--seconds',
      '60',
    ]);
    const { traceText } = runExplore(cli, () => performance.now());
    const parsed = parseTraceFile(traceText!);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const meta = traceMeta(parsed.trace);
    expect(meta.source).toBe('explorer');
    expect(meta.violation).toMatch(/^safety: .* both lead$/);
    const m = modelAt(parsed.trace, parsed.trace.events.length);
    const leaders = m
      .list()
      .filter((p) => p.report?.role === 'coordinator')
      .map((p) => p.id);
    expect(leaders.length).toBe(2);
    // The explorer closes its trace with the violation as a finding: the findings panel lists it.
    expect(finalState(parsed.trace).findings.map((f) => f.kind)).toEqual(['safety']);
  });

  it('a relay trace without a header: ids come from its events, kinds stay unknown, the lab config fills the ring order', () => {
    const lines = [
      { seq: 1, t: 5, kind: 'join', node: 3 },
      { seq: 2, t: 6, kind: 'join', node: 9 },
      {
        seq: 3,
        t: 7,
        kind: 'report',
        node: 9,
        report: { role: 'coordinator', coordinator: 9, electing: false },
      },
      {
        seq: 4,
        t: 9,
        kind: 'send',
        msg: 1,
        from: 9,
        to: 3,
        type: 'HEARTBEAT',
        message: { type: 'HEARTBEAT' },
      },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n');
    const parsed = parseTraceFile(lines);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const meta = traceMeta(parsed.trace);
    expect(meta).toMatchObject({ source: 'relay', algorithm: null, ids: [3, 9], duration: 4 });
    const m = modelAt(parsed.trace, 4);
    expect(m.processes.get(9)!.kind).toBeNull();
    expect(m.processes.get(9)!.status).toBe('up');
    const withLab = traceMeta(parsed.trace, {
      ...replayConfig(meta),
      algorithm: 'raft',
      ids: [0, 3, 9],
      ring: [9, 3, 0],
    });
    expect(withLab).toMatchObject({ algorithm: 'raft', ids: [0, 3, 9], ring: [9, 3, 0] });
  });

  it('events in words, and the cursor for a moment in time', () => {
    const { trace } = simulated();
    const words = trace.events.slice(0, 40).map((e) => describeEvent(e));
    expect(words).toContain('7 crashes');
    expect(words).toContain('4 is asked to start an election');
    expect(words.some((w) => /^4 sends ELECTION to 5 \(#\d+\)$/.test(w))).toBe(true);
    const t = trace.events[20]!.t;
    const n = countAtTime(trace.events, t);
    expect(trace.events[n - 1]!.t).toBe(t);
    expect(n === trace.events.length || trace.events[n]!.t > t).toBe(true);
  });
});
