import { describe, expect, it } from 'vitest';
import { createRng } from '@shared/sim/rng.ts';
import {
  initialGroups,
  moveToGroup,
  parseRing,
  partitionBody,
  shuffled,
  splitInto,
} from '../../client/src/utils/partition-groups.ts';

describe('partition builder', () => {
  it('starts from everyone in one group plus an empty one to drag into', () => {
    expect(initialGroups([1, 2, 3], null)).toEqual([[1, 2, 3], []]);
  });

  it('starts from the current partition, with ids it does not list in a last group (the relay puts them together)', () => {
    expect(initialGroups([1, 2, 3, 4], [[1], [2]])).toEqual([[1], [2], [3, 4]]);
  });

  it('moving a process takes it out of its group and into the target, sorted; past the end opens a new group', () => {
    const g = moveToGroup([[1, 2, 3], []], 2, 1);
    expect(g).toEqual([[1, 3], [2]]);
    expect(moveToGroup(g, 3, 3)).toEqual([[1], [2], [], [3]]);
  });

  it('a partition needs two non-empty groups; empty groups are not sent', () => {
    expect(partitionBody([[1, 2, 3], []])).toBeNull();
    expect(partitionBody([[1], [], [2, 3]])).toEqual([[1], [2, 3]]);
  });

  it('splits the ring into contiguous arcs covering every id once', () => {
    const parts = splitInto([5, 1, 4, 2, 3], 2);
    expect(parts).toEqual([
      [1, 5],
      [2, 3, 4],
    ]);
    expect(splitInto([1, 2], 5)).toEqual([[1], [2]]);
  });

  it('a ring order must list every lab id exactly once', () => {
    expect(parseRing('3, 1 2', [1, 2, 3])).toEqual({ ok: true, ring: [3, 1, 2] });
    expect(parseRing('3 1', [1, 2, 3])).toMatchObject({ ok: false, message: 'missing: 2' });
    expect(parseRing('3 1 1 2', [1, 2, 3])).toMatchObject({
      ok: false,
      message: '1 appears twice',
    });
    expect(parseRing('3 x', [1, 2, 3])).toMatchObject({ ok: false });
    expect(parseRing('9 1 2 3', [1, 2, 3])).toMatchObject({
      ok: false,
      message: '9 is not in the lab',
    });
  });

  it('shuffling keeps every id and, seeded, is repeatable', () => {
    const ids = Array.from({ length: 20 }, (_, i) => i);
    const a = shuffled(ids, createRng(3));
    expect([...a].sort((x, y) => x - y)).toEqual(ids);
    expect(shuffled(ids, createRng(3))).toEqual(a);
    expect(a).not.toEqual(ids);
  });
});
