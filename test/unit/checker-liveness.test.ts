// The live checker's liveness and spurious-election findings on hand-written traces, and the
// bounds it derives. Rules: 004 ("Worst-case completion time: 5 message transmission times" for
// Bully when nothing fails during the run); 003's constraint "Spurious: false detection of the
// circumstance to trigger an election should be avoided".
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import { checkerProfile } from '@shared/analysis/checker-profiles.ts';
import { electing, follower, leading, script, steady } from '../helpers/checker-events.ts';

const ids = [0, 1, 2, 3];
const bounds = { quiet: 1000, election: 500, overlap: 200 };
const bully = () => script({ algorithm: 'bully', ids, timing: DEFAULT_TIMING, bounds });

describe('checker: liveness (election bound)', () => {
  it('checker: the Bully bound is five message transmission times of T + M (004)', () => {
    const t = { ...DEFAULT_TIMING, transmission: 40, processing: 2 };
    expect(checkerProfile({ algorithm: 'bully', ids, timing: t }).bounds.election).toBe(5 * 42);
  });

  it('checker: an election that ends within the bound is no finding', () => {
    const s = steady(bully(), ids, 3).at(1000, { kind: 'crash', node: 3 });
    s.report(1000, 0, electing()).report(1000, 1, electing()).report(1400, 2, leading(2));
    s.report(1490, 0, follower(2)).report(1490, 1, follower(2)).tick(9000);
    expect(s.of('liveness')).toEqual([]);
    expect(s.checker.summary().election.active).toBe(false);
  });

  it('checker: an election still open past the bound is one liveness finding naming who is electing', () => {
    const s = steady(bully(), ids, 3).at(1000, { kind: 'crash', node: 3 });
    s.report(1000, 0, electing())
      .report(1100, 1, electing())
      .report(1450, 1, follower(2))
      .tick(1499);
    expect(s.of('liveness')).toEqual([]);
    s.tick(9000);
    expect(s.of('liveness')).toEqual([
      expect.objectContaining({ at: 1500, since: 1000, processes: [0] }),
    ]);
  });

  it('checker: a fault during the election restarts its bound (it holds only when nothing fails)', () => {
    const s = steady(bully(), ids, 3).at(1000, { kind: 'crash', node: 3 });
    s.report(1000, 0, electing()).at(1300, { kind: 'crash', node: 2 }).tick(1799);
    expect(s.of('liveness')).toEqual([]);
    s.tick(1800);
    expect(s.of('liveness')).toEqual([expect.objectContaining({ at: 1800, since: 1000 })]);
  });

  it('checker: lost messages do not restart the bound but are named in the finding', () => {
    const s = steady(bully(), ids, 3).at(1000, { kind: 'crash', node: 3 });
    s.report(1000, 0, electing());
    s.at(1000, {
      kind: 'send',
      msg: 1,
      from: 0,
      to: 2,
      type: 'ELECTION',
      message: { type: 'ELECTION' },
    });
    s.at(1000, { kind: 'drop', msg: 1, from: 0, to: 2, type: 'ELECTION', reason: 'loss' }).tick(
      2000,
    );
    expect(s.of('liveness')).toEqual([expect.objectContaining({ at: 1500 })]);
    expect(s.of('liveness')[0]!.detail).toContain('1 messages lost');
  });

  it('checker: time spent paused does not count against the bound', () => {
    const s = steady(bully(), ids, 3).at(1000, { kind: 'crash', node: 3 });
    s.report(1000, 0, electing()).at(1200, { kind: 'control', action: 'pause' }).tick(60_000);
    s.at(60_000, { kind: 'control', action: 'resume' }).tick(60_299);
    expect(s.of('liveness')).toEqual([]);
    s.tick(60_300);
    expect(s.of('liveness')).toHaveLength(1);
  });

  it('checker: an `elect` nobody takes up (already the winner) closes quietly without a finding', () => {
    const s = steady(bully(), ids, 3).at(1000, { kind: 'elect', node: 3 }).tick(9000);
    expect(s.of('liveness')).toEqual([]);
    expect(s.checker.summary().election.active).toBe(false);
  });
});

describe('checker: spurious elections', () => {
  it('checker: a process electing on its own while its coordinator is alive is one spurious finding and one count', () => {
    const s = steady(bully(), ids, 3);
    s.report(1000, 0, electing()).tick(1100);
    expect(s.of('spurious')).toEqual([expect.objectContaining({ at: 1000, processes: [0] })]);
    expect(s.checker.summary().spuriousElections).toBe(1);
  });

  it('checker: electing after the coordinator crashed is not spurious', () => {
    const s = steady(bully(), ids, 3).at(500, { kind: 'crash', node: 3 });
    s.report(2000, 0, electing()).tick(2100);
    expect(s.of('spurious')).toEqual([]);
    expect(s.checker.summary().spuriousElections).toBe(0);
  });

  it('checker: joining on an election message just handed over is not a false detection', () => {
    const s = steady(bully(), ids, 3);
    s.report(1000, 0, electing())
      .message(1000, 0, 1, 'ELECTION', 100)
      .report(1100, 1, electing())
      .tick(1200);
    expect(s.checker.summary().spuriousElections).toBe(1);
  });

  it('checker: a heartbeat handed over just before does not make an election a join', () => {
    const s = steady(bully(), ids, 3);
    s.message(900, 3, 0, 'HEARTBEAT', 100).report(1000, 0, electing()).tick(1100);
    expect(s.checker.summary().spuriousElections).toBe(1);
  });

  it('checker: an election asked for with `elect` is not spurious', () => {
    const s = steady(bully(), ids, 3)
      .at(1000, { kind: 'elect', node: 1 })
      .report(1000, 1, electing())
      .tick(1100);
    expect(s.of('spurious')).toEqual([]);
  });

  it('checker: two processes suspecting a live coordinator in one episode count twice but make one finding', () => {
    const s = steady(bully(), ids, 3);
    s.report(1000, 0, electing()).report(1050, 2, electing()).tick(1100);
    expect(s.checker.summary().spuriousElections).toBe(2);
    expect(s.of('spurious')).toHaveLength(1);
  });

  it('checker: a coordinator behind a partition is alive, so the election is spurious and says so', () => {
    const s = steady(bully(), ids, 3).at(500, {
      kind: 'partition',
      groups: [
        [0, 1],
        [2, 3],
      ],
    });
    s.report(2000, 0, electing()).tick(2100);
    expect(s.of('spurious')[0]!.detail).toContain('behind a partition');
  });
});
