import { describe, expect, it } from 'vitest';
import { bully } from '@shared/algorithms/bully.ts';
import { simulate } from '@shared/sim/simulator.ts';
import { DEFAULT_FABRIC, type LabConfig } from '@shared/protocol/lab-config.ts';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import type { ElectionWindow } from '../../client/src/utils/election-tracker.ts';
import {
  laneHeightFor,
  lostAfterFor,
  spaceTimeLayout,
  timeTicks,
} from '../../client/src/utils/space-time-layout.ts';

const ids = [0, 1, 2, 3, 4];
const run = simulate({
  algorithm: bully,
  ids,
  detector: 'none',
  crashes: [{ id: 4, at: 0 }],
  elections: [{ id: 0, at: 1 }],
  seed: 1,
  link: { delay: 10, jitter: 0, drop: 0 },
});
const layout = () =>
  spaceTimeLayout(run.trace, ids, {
    width: 548,
    laneHeight: 20,
    padLeft: 48,
    padRight: 0,
    padTop: 0,
  });

describe('space-time layout', () => {
  it('one lane per process, in the given order, evenly spaced', () => {
    const st = spaceTimeLayout(run.trace, [4, 3, 2, 1, 0], {
      width: 500,
      laneHeight: 20,
      padTop: 0,
    });
    expect(st.lanes.map((l) => l.id)).toEqual([4, 3, 2, 1, 0]);
    expect(st.lanes.map((l) => l.y)).toEqual([10, 30, 50, 70, 90]);
    expect(st.height).toBe(104);
  });

  it('one arrow per message, from the sender lane at the send to the receiver lane at the delivery', () => {
    const st = layout();
    expect(st.arrows).toHaveLength(run.messages.total);
    const first = st.arrows.find((a) => a.msg === 1)!;
    const x = (t: number) => 48 + ((t - st.t0) / (st.t1 - st.t0)) * 500;
    expect(first).toMatchObject({
      from: 0,
      to: 1,
      type: 'ELECTION',
      end: 'delivered',
      y1: 10,
      y2: 30,
    });
    expect(first.x1).toBeCloseTo(x(1));
    expect(first.x2).toBeCloseTo(x(11));
  });

  it('a message to a crashed process ends in a drop next to the receiver lane, not on it', () => {
    const st = layout();
    const dropped = st.arrows.filter((a) => a.end === 'dropped');
    expect(dropped).toHaveLength(run.messages.dropped);
    for (const a of dropped) {
      expect(a.to).toBe(4);
      expect(a.reason).toBe('receiver-crashed');
      expect(a.y2).toBeLessThan(90); // lane 4 sits at y = 90
      expect(a.y2).toBeGreaterThan(a.y1);
    }
  });

  it('marks the crash and the new coordinator on their lanes', () => {
    const st = layout();
    expect(st.marks.find((m) => m.kind === 'crash')).toMatchObject({ node: 4, y: 90 });
    const coordinators = st.marks.filter((m) => m.kind === 'coordinator').map((m) => m.node);
    expect(coordinators).toEqual([4, 3]); // 4 at the start, then 3 wins
  });

  it('messages still in flight run to the right edge; heartbeats can be hidden', () => {
    const events = [
      {
        seq: 1,
        t: 0,
        kind: 'send' as const,
        msg: 1,
        from: 0,
        to: 1,
        type: 'ELECTION',
        message: { type: 'ELECTION' },
      },
      {
        seq: 2,
        t: 5,
        kind: 'send' as const,
        msg: 2,
        from: 1,
        to: 0,
        type: 'HEARTBEAT',
        message: { type: 'HEARTBEAT' },
      },
    ];
    const st = spaceTimeLayout(events, [0, 1], {
      width: 100,
      laneHeight: 10,
      padLeft: 0,
      padRight: 0,
      now: 10,
      hideBackground: true,
    });
    expect(st.arrows).toHaveLength(1);
    expect(st.arrows[0]).toMatchObject({ end: 'in-flight', x2: 100 });
    expect(spaceTimeLayout(events, [0, 1], { width: 100, laneHeight: 10 }).arrows).toHaveLength(2);
  });

  it('a message whose fate never showed up is a short stub once it is overdue, not a line across the diagram', () => {
    const events = [
      {
        seq: 1,
        t: 0,
        kind: 'send' as const,
        msg: 1,
        from: 0,
        to: 1,
        type: 'OK',
        message: { type: 'OK' },
      },
    ];
    const fresh = spaceTimeLayout(events, [0, 1], {
      width: 100,
      laneHeight: 10,
      padLeft: 0,
      padRight: 0,
      now: 500,
      lostAfter: 1000,
    });
    expect(fresh.arrows[0]).toMatchObject({ end: 'in-flight', x2: 100 });
    const overdue = spaceTimeLayout(events, [0, 1], {
      width: 100,
      laneHeight: 10,
      padLeft: 0,
      padRight: 0,
      now: 5000,
      lostAfter: 1000,
    });
    expect(overdue.arrows[0]!.end).toBe('lost-track');
    expect(overdue.arrows[0]!.x2).toBeLessThan(15);
  });

  it('a crash long before the election is pinned to the left edge instead of squeezing the election', () => {
    const events = [
      { seq: 1, t: 0, kind: 'crash' as const, node: 1 },
      {
        seq: 2,
        t: 1500,
        kind: 'send' as const,
        msg: 1,
        from: 0,
        to: 1,
        type: 'ELECTION',
        message: { type: 'ELECTION' },
      },
      {
        seq: 3,
        t: 1600,
        kind: 'drop' as const,
        msg: 1,
        from: 0,
        to: 1,
        type: 'ELECTION',
        reason: 'receiver-crashed' as const,
      },
    ];
    const st = spaceTimeLayout(events, [0, 1], {
      width: 1000,
      laneHeight: 10,
      padLeft: 0,
      padRight: 0,
      start: 1500,
      end: 1600,
    });
    expect(st.clippedLead).toBe(1500);
    expect(st.marks[0]).toMatchObject({ kind: 'crash', x: 0 });
    expect(st.arrows[0]!.x1).toBeGreaterThan(0); // the election fills the width
    expect(st.arrows[0]!.x2).toBe(1000);
    const near = spaceTimeLayout(
      events.map((e) => (e.kind === 'crash' ? { ...e, t: 1490 } : e)),
      [0, 1],
      { width: 1000, laneHeight: 10, padLeft: 0, padRight: 0, start: 1500, end: 1600 },
    );
    expect(near.clippedLead).toBe(0);
  });

  it('past the arrow limit the rest are counted, not drawn', () => {
    const st = spaceTimeLayout(run.trace, ids, { width: 500, laneHeight: 10, maxArrows: 5 });
    expect(st.arrows).toHaveLength(5);
    expect(st.omitted).toBe(run.messages.total - 5);
  });

  it('time ticks use round steps from the start of the window', () => {
    const ticks = timeTicks(1000, 2000, (t) => t - 1000);
    expect(ticks.map((t) => t.label)).toEqual([
      '0 ms',
      '200 ms',
      '400 ms',
      '600 ms',
      '800 ms',
      '1 s',
    ]);
    expect(ticks[1]!.x).toBe(200);
  });

  it('lane height fits 200 lanes into the space, within readable bounds', () => {
    expect(laneHeightFor(200, 800)).toBe(4);
    expect(laneHeightFor(5, 800)).toBe(28);
    expect(laneHeightFor(40, 400)).toBe(10);
  });

  it('a message with no fate is a stub after ten transmission bounds (scaled), at least 1 s; after three mean latencies when the relay sampled events out', () => {
    const config = {
      timing: { ...DEFAULT_TIMING, transmission: 300 },
      fabric: { ...DEFAULT_FABRIC, timeScale: 2 },
    } as LabConfig;
    expect(lostAfterFor(config, null)).toBe(6000);
    expect(lostAfterFor({ ...config, fabric: { ...DEFAULT_FABRIC, timeScale: 0.1 } }, null)).toBe(
      1000,
    );
    expect(lostAfterFor(null, null)).toBe(2000);
    const w = { sampledOut: 0, delivered: 4, latencySum: 400 } as ElectionWindow;
    expect(lostAfterFor(config, w)).toBe(6000);
    expect(lostAfterFor(config, { ...w, sampledOut: 12 })).toBe(300);
    expect(lostAfterFor(config, { ...w, sampledOut: 12, latencySum: 20 })).toBe(50);
  });
});
