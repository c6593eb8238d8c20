// Path builders for the marker shapes, against the few canvas methods they use (so this module
// needs no DOM types and an SVG path can be produced from the same geometry for legends).
import type { Shape } from './message-style.ts';

export interface Pen {
  beginPath(): void;
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  arc(x: number, y: number, r: number, start: number, end: number): void;
  closePath(): void;
}

/** Traces `shape` centred on (x, y) with "radius" r; the caller fills or strokes. */
export function tracePath(pen: Pen, shape: Shape, x: number, y: number, r: number): void {
  pen.beginPath();
  switch (shape) {
    case 'circle':
      pen.arc(x, y, r, 0, Math.PI * 2);
      break;
    case 'square':
      polygon(pen, [
        [x - r * 0.85, y - r * 0.85],
        [x + r * 0.85, y - r * 0.85],
        [x + r * 0.85, y + r * 0.85],
        [x - r * 0.85, y + r * 0.85],
      ]);
      break;
    case 'triangle':
      polygon(pen, [
        [x, y - r * 1.1],
        [x + r, y + r * 0.75],
        [x - r, y + r * 0.75],
      ]);
      break;
    case 'diamond':
      polygon(pen, [
        [x, y - r * 1.15],
        [x + r * 1.15, y],
        [x, y + r * 1.15],
        [x - r * 1.15, y],
      ]);
      break;
    case 'star': {
      const pts: [number, number][] = [];
      for (let i = 0; i < 10; i++) {
        const a = -Math.PI / 2 + (i * Math.PI) / 5;
        const rr = i % 2 === 0 ? r * 1.25 : r * 0.55;
        pts.push([x + rr * Math.cos(a), y + rr * Math.sin(a)]);
      }
      polygon(pen, pts);
      break;
    }
    case 'cross': {
      // A plus sign with arms a third of r wide: a filled shape, distinct from the drop mark (x).
      const w = r * 0.38;
      polygon(pen, [
        [x - w, y - r],
        [x + w, y - r],
        [x + w, y - w],
        [x + r, y - w],
        [x + r, y + w],
        [x + w, y + w],
        [x + w, y + r],
        [x - w, y + r],
        [x - w, y + w],
        [x - r, y + w],
        [x - r, y - w],
        [x - w, y - w],
      ]);
      break;
    }
  }
}

function polygon(pen: Pen, pts: [number, number][]): void {
  pts.forEach(([px, py], i) => (i === 0 ? pen.moveTo(px, py) : pen.lineTo(px, py)));
  pen.closePath();
}

/** The same shape as an SVG path string (for legend icons), by recording a Pen. */
export function svgPath(shape: Shape, x: number, y: number, r: number): string {
  const parts: string[] = [];
  const f = (n: number) => +n.toFixed(2);
  tracePath(
    {
      beginPath() {},
      moveTo: (px, py) => parts.push(`M${f(px)} ${f(py)}`),
      lineTo: (px, py) => parts.push(`L${f(px)} ${f(py)}`),
      arc: (cx, cy, rr) =>
        parts.push(
          `M${f(cx - rr)} ${f(cy)}a${f(rr)} ${f(rr)} 0 1 0 ${f(2 * rr)} 0a${f(rr)} ${f(rr)} 0 1 0 ${f(-2 * rr)} 0`,
        ),
      closePath: () => parts.push('Z'),
    },
    shape,
    x,
    y,
    r,
  );
  return parts.join('');
}
