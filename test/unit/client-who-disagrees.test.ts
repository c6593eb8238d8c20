import { describe, expect, it } from 'vitest';
import type { Report } from '@shared/algorithms/algorithm.ts';
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import { beliefs } from '../../client/src/utils/process-look.ts';
import { whoDisagrees, type Believer } from '../../client/src/utils/who-disagrees.ts';

const report = (coordinator: number | null, electing = false): Report => ({
  role: electing ? 'electing' : 'follower',
  coordinator,
  electing,
});
const up = (id: number, coordinator: number | null, opts: Partial<Believer> = {}): Believer => ({
  id,
  status: 'up',
  report: report(coordinator),
  group: null,
  ...opts,
});

describe('who disagrees', () => {
  it('a lab where every live process believes in the live highest id is settled', () => {
    const a = whoDisagrees([
      up(1, 3),
      up(2, 3),
      up(3, 3),
      { id: 4, status: 'crashed', report: report(4), group: null },
    ]);
    expect(a.settled).toBe(true);
    expect(a.consensus.get(-1)).toBe(3);
    expect([...a.disagree]).toEqual([]);
  });

  it('the one process that believes otherwise disagrees; the lab is not settled', () => {
    const a = whoDisagrees([up(1, 4), up(2, 3), up(3, 3), up(4, 3)]);
    expect([...a.disagree]).toEqual([1]);
    expect(a.settled).toBe(false);
  });

  it('everyone agreeing on a crashed coordinator is stale, not settled (the election has not started yet)', () => {
    const a = whoDisagrees([
      up(1, 4),
      up(2, 4),
      up(3, 4),
      { id: 4, status: 'crashed', report: null, group: null },
    ]);
    expect([...a.disagree]).toEqual([]);
    expect([...a.stale].sort()).toEqual([1, 2, 3]);
    expect(a.settled).toBe(false);
  });

  it('a partition: each group has its own consensus, and a belief across the cut is stale', () => {
    const a = whoDisagrees([
      up(1, 2, { group: 0 }),
      up(2, 2, { group: 0 }),
      up(3, 4, { group: 1 }),
      up(4, 4, { group: 1 }),
      up(5, 2, { group: 1 }),
    ]);
    expect(a.consensus.get(0)).toBe(2);
    expect(a.consensus.get(1)).toBe(4);
    expect([...a.disagree]).toEqual([5]);
    expect([...a.stale]).toEqual([5]);
  });

  it('an electing process keeps the lab unsettled even when beliefs agree', () => {
    const a = whoDisagrees([
      up(1, 2),
      { id: 2, status: 'up', report: report(2, true), group: null },
    ]);
    expect([...a.electing]).toEqual([2]);
    expect(a.settled).toBe(false);
  });

  it('processes that have not reported yet and crashed processes are not judged', () => {
    const a = whoDisagrees([
      up(1, 2),
      up(2, 2),
      { id: 3, status: 'up', report: null, group: null },
      { id: 4, status: 'crashed', report: report(1), group: null },
    ]);
    expect(a.settled).toBe(true);
    expect(a.disagree.size + a.stale.size).toBe(0);
  });

  it('a tie between two beliefs goes to the higher id, so only the other side is flagged', () => {
    const a = whoDisagrees([up(1, 1), up(2, 1), up(3, 3), up(4, 3)]);
    expect(a.consensus.get(-1)).toBe(3);
    expect([...a.disagree].sort()).toEqual([1, 2]);
  });

  // Issue 24, a class of 30 by hand: the projector said "coordinator none" and put warning halos
  // on the 8 students who correctly believed 29 while the rest still elected.
  it('most still electing (believing nobody), a few following the live new coordinator: those few are the view, nobody is flagged, the lab is not settled', () => {
    const electing = (id: number): Believer => ({
      id,
      status: 'up',
      report: report(null, true),
      group: null,
    });
    const a = whoDisagrees([
      ...[1, 2, 3, 4, 5].map(electing),
      up(6, 8),
      up(7, 8),
      up(8, 8),
      { id: 9, status: 'crashed', report: null, group: null },
    ]);
    expect(a.consensus.get(-1)).toBe(8);
    expect([...a.disagree]).toEqual([]);
    expect([...a.stale]).toEqual([]);
    expect(a.settled).toBe(false);
  });
});

describe('the headline belief', () => {
  const info = (
    id: number,
    coordinator: number | null,
    status: ProcessInfo['status'] = 'up',
  ): ProcessInfo => ({
    id,
    name: null,
    status,
    kind: 'bot',
    transport: 'server',
    report: report(coordinator),
    group: null,
  });
  it('names a live coordinator before one that is down, and any before nobody; a crashed one is marked down, never presented as leading', () => {
    // 7 of 11 still believe the crashed 11, 2 already follow 10, 2 elect.
    const procs = [
      ...[1, 2, 3, 4, 5, 6, 7].map((id) => info(id, 11)),
      info(8, 10),
      info(9, 10),
      info(10, null),
      info(12, null),
      info(11, 11, 'crashed'),
    ];
    expect(beliefs(procs)).toEqual([
      { coordinator: 10, count: 2 },
      { coordinator: 11, count: 7, down: true },
      { coordinator: null, count: 2 },
    ]);
    // Everyone still on the crashed one (the detector has not fired): it heads the list, marked down.
    expect(beliefs([info(1, 11), info(2, 11), info(11, 11, 'crashed')])[0]).toEqual({
      coordinator: 11,
      count: 2,
      down: true,
    });
  });
});
