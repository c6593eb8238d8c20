// Where each process sits on the dashboard's circle: ring order, clockwise from the top, so the
// picture matches the order the ring algorithms pass messages in. Pure geometry, no DOM.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';

export interface RingNode {
  id: ProcessId;
  index: number;
  x: number;
  y: number;
  /** Radians, 0 = right, growing clockwise on screen (y points down). */
  angle: number;
}

export interface RingLayout {
  nodes: RingNode[];
  byId: Map<ProcessId, RingNode>;
  cx: number;
  cy: number;
  radius: number;
  /** Radius of one process's disc: shrinks as N grows so neighbours never overlap. */
  nodeRadius: number;
  /** Whether there is room to print ids beside the discs. */
  labels: boolean;
}

/**
 * The order processes stand in: the lab's ring when it has one (ids missing from it are
 * appended in ascending order, so nobody vanishes), else ascending ids.
 */
export function ringOrder(ids: readonly ProcessId[], ring: readonly ProcessId[]): ProcessId[] {
  const known = new Set(ids);
  const order = ring.filter((id, i) => known.has(id) && ring.indexOf(id) === i);
  const placed = new Set(order);
  const rest = ids.filter((id) => !placed.has(id)).sort((a, b) => a - b);
  return [...order, ...rest];
}

export interface LayoutOptions {
  /** Room kept free around the circle for labels, in px. */
  margin?: number;
  maxNodeRadius?: number;
  minNodeRadius?: number;
}

export function ringLayout(
  order: readonly ProcessId[],
  width: number,
  height: number,
  opts: LayoutOptions = {},
): RingLayout {
  const n = order.length;
  const margin = opts.margin ?? 40;
  const cx = width / 2;
  const cy = height / 2;
  const radius = Math.max(10, Math.min(width, height) / 2 - margin);
  // Half the arc between neighbours, less a gap: discs touch at most.
  const arc = n > 1 ? (2 * Math.PI * radius) / n : radius;
  const nodeRadius = clamp(arc * 0.4, opts.minNodeRadius ?? 2.5, opts.maxNodeRadius ?? 24);
  const nodes: RingNode[] = order.map((id, index) => {
    const angle = -Math.PI / 2 + (n > 0 ? (2 * Math.PI * index) / n : 0);
    return { id, index, angle, x: cx + radius * Math.cos(angle), y: cy + radius * Math.sin(angle) };
  });
  return {
    nodes,
    byId: new Map(nodes.map((p) => [p.id, p])),
    cx,
    cy,
    radius,
    nodeRadius,
    labels: arc >= 14,
  };
}

/** Where a label for a node goes: just outside the circle, along the radius. */
export function labelPoint(
  layout: RingLayout,
  node: RingNode,
  gap = 6,
): { x: number; y: number; align: 'left' | 'right' | 'center' } {
  const r = layout.radius + layout.nodeRadius + gap;
  const x = layout.cx + r * Math.cos(node.angle);
  const y = layout.cy + r * Math.sin(node.angle);
  const c = Math.cos(node.angle);
  return { x, y, align: c > 0.3 ? 'left' : c < -0.3 ? 'right' : 'center' };
}

/** The process under a point (a click), or null. Hits within the disc plus a small slack. */
export function hitTest(layout: RingLayout, x: number, y: number, slack = 4): ProcessId | null {
  let best: RingNode | null = null;
  let bestD = (layout.nodeRadius + slack) ** 2;
  for (const p of layout.nodes) {
    const d = (p.x - x) ** 2 + (p.y - y) ** 2;
    if (d <= bestD) {
      best = p;
      bestD = d;
    }
  }
  return best ? best.id : null;
}

/**
 * A point a fraction `f` of the way from a to b, bowed inwards along a quadratic curve so that
 * messages between ring neighbours and across the ring stay apart from the circle itself.
 */
export function flightPoint(
  layout: RingLayout,
  a: RingNode,
  b: RingNode,
  f: number,
): { x: number; y: number } {
  const mx = (a.x + b.x) / 2;
  const my = (a.y + b.y) / 2;
  // Control point: pulled towards the centre, by a third of the way.
  const qx = mx + (layout.cx - mx) * 0.35;
  const qy = my + (layout.cy - my) * 0.35;
  const u = 1 - f;
  return {
    x: u * u * a.x + 2 * u * f * qx + f * f * b.x,
    y: u * u * a.y + 2 * u * f * qy + f * f * b.y,
  };
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
