// The live checker's safety and agreement findings on hand-written traces: each fires exactly
// when it should and not otherwise. Rules: 003's constraint "Uniqueness: multi-master
// situations should be avoided or detected and resolved speedily"; 002's requirement "All
// processes (that have not crashed) eventually set e_i = P", P the non-crashed highest id;
// Raft's Election Safety (Ongaro & Ousterhout, Figure 3): at most one leader per term.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import { follower, leading, script, steady } from '../helpers/checker-events.ts';

const ids = [0, 1, 2, 3];
const bounds = { quiet: 1000, election: 500, overlap: 200 };
const bully = () => script({ algorithm: 'bully', ids, timing: DEFAULT_TIMING, bounds });
const raft = () => script({ algorithm: 'raft', ids, timing: DEFAULT_TIMING, bounds });

describe('checker: safety without terms (split brain)', () => {
  it('checker: two coordinators overlapping for less than the hand-over time are no finding', () => {
    const s = steady(bully(), ids, 2);
    s.report(100, 3, leading(3)).report(250, 2, follower(3)).tick(5000);
    expect(s.of('safety')).toEqual([]);
  });

  it('checker: two coordinators past the hand-over time are one safety finding naming both, at the moment it expired', () => {
    const s = steady(bully(), ids, 3);
    s.report(1000, 1, leading(1)).tick(1150);
    expect(s.of('safety')).toEqual([]);
    s.tick(5000);
    expect(s.of('safety')).toEqual([
      expect.objectContaining({ kind: 'safety', at: 1200, since: 1000, processes: [1, 3] }),
    ]);
    expect(s.checker.summary().splitBrain).toEqual([{ processes: [1, 3], since: 1000 }]);
  });

  it('checker: a third coordinator joining a flagged split brain is a new finding; a crashed one ends it', () => {
    const s = steady(bully(), ids, 3);
    s.report(1000, 1, leading(1)).tick(1300).report(2000, 2, leading(2)).tick(2300);
    expect(s.of('safety').map((f) => f.processes)).toEqual([
      [1, 3],
      [1, 2, 3],
    ]);
    s.at(2400, { kind: 'crash', node: 3 }).at(2400, { kind: 'crash', node: 2 }).tick(4000);
    expect(s.checker.summary().splitBrain).toEqual([]);
    expect(s.of('safety')).toHaveLength(2);
  });

  it('checker: a crashed coordinator does not count as acting, so its successor is no split brain', () => {
    const s = steady(bully(), ids, 3);
    s.at(1000, { kind: 'crash', node: 3 }).report(1500, 2, leading(2)).tick(9000);
    expect(s.of('safety')).toEqual([]);
  });
});

describe('checker: safety with terms (Raft)', () => {
  it('checker: a stale leader of an older term beside the new leader is no finding (one leader per term)', () => {
    const s = steady(raft(), ids, 3, 0, 1);
    s.report(1000, 0, leading(0, 2)).tick(9000);
    expect(s.of('safety')).toEqual([]);
  });

  it('checker: two leaders of one term at once are a safety finding at once, with the term', () => {
    const s = steady(raft(), ids, 3, 0, 1);
    s.report(1000, 0, leading(0, 2)).report(1010, 1, leading(1, 2));
    expect(s.of('safety')).toEqual([
      expect.objectContaining({ at: 1010, term: 2, processes: [0, 1] }),
    ]);
  });

  it('checker: a second leader of a term whose first leader crashed is still a safety finding (Election Safety)', () => {
    const s = steady(raft(), ids, 3, 0, 1);
    s.at(1000, { kind: 'crash', node: 3 }).report(2000, 2, leading(2, 1));
    expect(s.of('safety')).toEqual([expect.objectContaining({ term: 1, processes: [3, 2] })]);
  });
});

describe('checker: agreement once the fabric is quiet', () => {
  it('checker: everyone following the highest live id is no finding, however long it stays quiet', () => {
    const s = steady(bully(), ids, 3).tick(60_000);
    expect(s.findings).toEqual([]);
    expect(s.checker.summary().quiet).toBe(true);
  });

  it('checker: followers of a crashed coordinator are one agreement finding, a quiet period after the crash', () => {
    const s = steady(bully(), ids, 3);
    s.at(2000, { kind: 'crash', node: 3 }).tick(2999);
    expect(s.of('agreement')).toEqual([]);
    s.tick(20_000);
    expect(s.of('agreement')).toEqual([
      expect.objectContaining({ at: 3000, processes: [0, 1, 2] }),
    ]);
    expect(s.of('agreement')[0]!.detail).toContain('expected 2');
  });

  it('checker: an election message in flight keeps the fabric from being quiet; a heartbeat does not', () => {
    const s = steady(bully(), ids, 3);
    s.at(2000, { kind: 'crash', node: 3 });
    s.at(2100, {
      kind: 'send',
      msg: 1,
      from: 0,
      to: 3,
      type: 'ELECTION',
      message: { type: 'ELECTION' },
    });
    s.at(2200, {
      kind: 'send',
      msg: 2,
      from: 1,
      to: 0,
      type: 'HEARTBEAT',
      message: { type: 'HEARTBEAT' },
    }).tick(5000);
    expect(s.of('agreement')).toEqual([]);
    expect(s.checker.summary().quiet).toBe(false);
    s.at(5000, {
      kind: 'drop',
      msg: 1,
      from: 0,
      to: 3,
      type: 'ELECTION',
      reason: 'receiver-crashed',
    }).tick(6100);
    expect(s.of('agreement')).toEqual([expect.objectContaining({ at: 6000 })]);
  });

  it('checker: a belief change restarts the quiet period and the same disagreement is reported again only after it', () => {
    const s = steady(bully(), ids, 3);
    s.at(0, { kind: 'crash', node: 3 }).tick(1500);
    s.report(1500, 0, follower(2)).tick(2400);
    expect(s.of('agreement')).toHaveLength(1);
    s.tick(2500);
    expect(s.of('agreement').map((f) => f.processes)).toEqual([
      [0, 1, 2],
      [1, 2],
    ]);
  });

  it('checker: for Raft any one live leader that all follow is agreement, even if it is not the highest id', () => {
    const s = steady(raft(), ids, 1, 0, 3).tick(30_000);
    expect(s.findings).toEqual([]);
  });

  it('checker: for Raft processes with no leader while another leads are an agreement finding', () => {
    const s = steady(raft(), ids, 1, 0, 3);
    s.report(100, 2, follower(null, 4)).report(100, 3, follower(null, 4)).tick(30_000);
    expect(s.of('agreement')).toEqual([expect.objectContaining({ at: 1100, processes: [2, 3] })]);
  });

  it('checker: a paused lab is never quiet, and the quiet period resumes where it stopped', () => {
    const s = steady(bully(), ids, 3);
    s.at(0, { kind: 'crash', node: 3 }).at(400, { kind: 'control', action: 'pause' }).tick(50_000);
    expect(s.of('agreement')).toEqual([]);
    s.at(50_000, { kind: 'control', action: 'resume' }).tick(50_599);
    expect(s.of('agreement')).toEqual([]);
    s.tick(50_600);
    expect(s.of('agreement')).toHaveLength(1);
  });
});
