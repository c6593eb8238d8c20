// The demo loop's moves (shared/lessons/demo-loop.ts): crash the coordinator the class agrees on,
// recover it on the next tick, and never crash mid-election (issue 28, "a first look that moves").
import { describe, expect, it } from 'vitest';
import { agreedCoordinator, demoStart, demoTick } from '@shared/lessons/demo-loop.ts';

const view = (pairs: [number, number | null][]) => ({
  reports: pairs.map(([id, coordinator]) => ({ id, coordinator })),
});

describe('demo loop', () => {
  it('crashes the agreed coordinator, then recovers it, then crashes the coordinator of the day again', () => {
    const agreed = view([
      [0, 3],
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    const one = demoTick(demoStart(), agreed);
    expect(one.move).toEqual({ kind: 'crash', id: 3 });
    const two = demoTick(
      one.state,
      view([
        [0, 2],
        [1, 2],
        [2, 2],
      ]),
    );
    expect(two.move).toEqual({ kind: 'recover', id: 3 });
    expect(two.state.crashed).toBeNull();
    expect(demoTick(two.state, agreed).move).toEqual({ kind: 'crash', id: 3 });
  });

  it('waits while the processes disagree, elect, or follow a coordinator that does not name itself', () => {
    expect(
      demoTick(
        demoStart(),
        view([
          [0, 3],
          [1, 2],
          [2, null],
          [3, null],
        ]),
      ).move,
    ).toBeNull();
    expect(
      demoTick(
        demoStart(),
        view([
          [0, null],
          [1, null],
        ]),
      ).move,
    ).toBeNull();
    expect(demoTick(demoStart(), view([])).move).toBeNull();
    // 3 is named by most, but 3 itself is electing: not agreed yet.
    expect(
      agreedCoordinator(
        view([
          [0, 3],
          [1, 3],
          [2, 3],
          [3, null],
        ]),
      ),
    ).toBeNull();
    // A coordinator no live process is (it crashed under them): not crashed again.
    expect(
      agreedCoordinator(
        view([
          [0, 7],
          [1, 7],
          [2, 7],
        ]),
      ),
    ).toBeNull();
    expect(
      agreedCoordinator(
        view([
          [0, 2],
          [1, 2],
          [2, 2],
          [3, 1],
        ]),
      ),
    ).toBe(2);
  });
});
