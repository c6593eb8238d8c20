// The relay's wrapper around the live checker (server/lab/live-checker.ts), on a manual clock: findings
// fall due without any further event, one timer at most, nothing armed while nothing is pending,
// a reset starts over, a reconfiguration keeps the counts, and findings are never fed back.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import type { Finding } from '@shared/analysis/checker.ts';
import type { ProcessConfig } from '@shared/protocol/frames.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { LabChecker } from '../../server/lab/live-checker.ts';
import { follower, leading, type Body } from '../helpers/checker-events.ts';
import { ManualClock } from '../helpers/manual-clock.ts';

const ids = [0, 1, 2, 3];
const base: ProcessConfig = {
  algorithm: 'bully',
  ids,
  ring: ids,
  timing: DEFAULT_TIMING,
  detector: 'heartbeat',
  options: {},
  seed: 1,
};

function rig() {
  const clock = new ManualClock();
  let config = base;
  const emitted: Finding[] = [];
  let seq = 0;
  const checker = new LabChecker({
    clock,
    config: () => config,
    now: () => clock.now(),
    emit: (f) => emitted.push(f),
    onError: (e) => {
      throw e;
    },
  });
  const feed = (body: Body) =>
    checker.observe({ seq: seq++, t: clock.now(), ...body } as TraceEvent);
  const steady = (c: number) => {
    for (const id of ids)
      feed({ kind: 'report', node: id, report: id === c ? leading(id) : follower(c) });
  };
  return { clock, checker, emitted, feed, steady, setConfig: (c: ProcessConfig) => (config = c) };
}

describe('relay checker (server/lab/live-checker.ts)', () => {
  it('checker: a split brain is reported when its hand-over time runs out, with no further event', () => {
    const { clock, emitted, feed, steady } = rig();
    steady(3);
    feed({ kind: 'report', node: 1, report: leading(1) });
    expect(clock.pending).toBe(1);
    clock.advance(10_000);
    expect(emitted.filter((f) => f.kind === 'safety').map((f) => f.processes)).toEqual([[1, 3]]);
  });

  it('checker: arms no timer once everything due is done (steady agreement)', () => {
    const { clock, emitted, steady } = rig();
    steady(3);
    clock.advance(60_000);
    expect(emitted).toEqual([]);
    expect(clock.pending).toBe(0);
  });

  it('checker: never feeds a finding back into itself', () => {
    const { checker, emitted, feed, steady } = rig();
    steady(3);
    const f: Finding = { kind: 'safety', at: 0, detail: 'x', processes: [1, 3] };
    feed({ kind: 'finding', finding: f });
    expect(checker.summary().counts.safety).toBe(0);
    expect(emitted).toEqual([]);
  });

  it('checker: a reset clears the counts; a reconfiguration keeps them; a fabric change keeps the state', () => {
    const { clock, checker, feed, steady, setConfig } = rig();
    steady(3);
    feed({ kind: 'report', node: 1, report: leading(1) });
    clock.advance(5000);
    expect(checker.summary().counts.safety).toBe(1);
    setConfig({ ...base }); // same settings, a new object (a fabric change): the split brain is still known
    feed({ kind: 'report', node: 0, report: follower(3) });
    expect(checker.summary().splitBrain).toEqual([expect.objectContaining({ processes: [1, 3] })]);
    setConfig({ ...base, algorithm: 'ring' }); // new settings: a fresh checker, counts carried
    feed({ kind: 'control', action: 'reconfigure' });
    expect(checker.summary().counts.safety).toBe(1);
    expect(checker.summary().splitBrain).toEqual([]);
    checker.restart();
    expect(checker.summary().counts.safety).toBe(0);
    expect(checker.summary().recent).toEqual([]);
  });

  it('checker: dispose stops the timer', () => {
    const { clock, checker, emitted, feed, steady } = rig();
    steady(3);
    feed({ kind: 'report', node: 1, report: leading(1) });
    checker.dispose();
    expect(clock.pending).toBe(0);
    clock.advance(10_000);
    expect(emitted).toEqual([]);
  });
});
