import { describe, expect, it } from 'vitest';
import {
  flightPoint,
  hitTest,
  labelPoint,
  ringLayout,
  ringOrder,
} from '../../client/src/utils/ring-layout.ts';

describe('ring layout', () => {
  it('ring order: follows the lab ring, appends ids missing from it, drops unknown and repeated ids', () => {
    expect(ringOrder([1, 2, 3, 4, 5], [4, 2, 9, 4, 1])).toEqual([4, 2, 1, 3, 5]);
  });

  it('ring order: ascending ids when the lab has no ring', () => {
    expect(ringOrder([7, 3, 5], [])).toEqual([3, 5, 7]);
  });

  it('places the first process at the top and the rest clockwise, on one circle', () => {
    const l = ringLayout([10, 20, 30, 40], 200, 200, { margin: 40 });
    expect(l.radius).toBe(60);
    const at = (id: number) => {
      const p = l.byId.get(id)!;
      return [Math.round(p.x), Math.round(p.y)];
    };
    expect(at(10)).toEqual([100, 40]); // top
    expect(at(20)).toEqual([160, 100]); // right: clockwise on screen
    expect(at(30)).toEqual([100, 160]); // bottom
    expect(at(40)).toEqual([40, 100]); // left
  });

  it('200 processes: discs shrink so neighbours do not overlap, and ids are not printed', () => {
    const order = Array.from({ length: 200 }, (_, i) => i);
    const l = ringLayout(order, 800, 800);
    const a = l.nodes[0]!;
    const b = l.nodes[1]!;
    const gap = Math.hypot(a.x - b.x, a.y - b.y);
    expect(2 * l.nodeRadius).toBeLessThanOrEqual(gap);
    expect(l.labels).toBe(false);
    expect(ringLayout(order.slice(0, 8), 800, 800).labels).toBe(true);
  });

  it('hit test finds the process under a click and nothing between processes', () => {
    const l = ringLayout([1, 2, 3, 4], 200, 200, { margin: 40 });
    expect(hitTest(l, 161, 101)).toBe(2);
    expect(hitTest(l, 100, 100)).toBeNull();
  });

  it('labels go outside the circle, aligned away from it', () => {
    const l = ringLayout([1, 2, 3, 4], 200, 200, { margin: 40 });
    const right = labelPoint(l, l.byId.get(2)!);
    const left = labelPoint(l, l.byId.get(4)!);
    expect(right.x).toBeGreaterThan(160);
    expect(right.align).toBe('left');
    expect(left.x).toBeLessThan(40);
    expect(left.align).toBe('right');
  });

  it('message paths start at the sender, end at the receiver and bow towards the centre', () => {
    const l = ringLayout([1, 2, 3, 4], 200, 200, { margin: 40 });
    const a = l.byId.get(1)!;
    const b = l.byId.get(2)!;
    expect(flightPoint(l, a, b, 0)).toEqual({ x: a.x, y: a.y });
    const end = flightPoint(l, a, b, 1);
    expect(end.x).toBeCloseTo(b.x);
    expect(end.y).toBeCloseTo(b.y);
    const mid = flightPoint(l, a, b, 0.5);
    const chordMid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    const dist = (p: { x: number; y: number }) => Math.hypot(p.x - l.cx, p.y - l.cy);
    expect(dist(mid)).toBeLessThan(dist(chordMid));
  });
});
