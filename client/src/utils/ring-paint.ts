// Paints the dashboard's ring: processes, their labels, the headline in the middle and the
// messages in flight. Deterministic given its inputs; it needs only the few canvas methods in
// `Paint` (so no DOM types), and all geometry comes from ring-layout and process-look.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import { tracePath, type Pen } from './draw-shapes.ts';
import type { FlightFrame } from './flight-board.ts';
import { GROUP_COLOURS, OKABE_ITO, STATUS_COLOURS, type MessageStyle } from './message-style.ts';
import type { ProcessLook } from './process-look.ts';
import { flightPoint, labelPoint, type RingLayout } from './ring-layout.ts';

/** The part of CanvasRenderingContext2D used here (styles typed loosely: canvas accepts more). */
export interface Paint extends Pen {
  fillStyle: unknown;
  strokeStyle: unknown;
  lineWidth: number;
  globalAlpha: number;
  font: string;
  textAlign: unknown;
  textBaseline: unknown;
  fill(): void;
  stroke(): void;
  save(): void;
  restore(): void;
  setLineDash(segments: number[]): void;
  fillText(text: string, x: number, y: number): void;
  measureText(text: string): { width: number };
}

export type LabelMode = 'detailed' | 'named' | 'ids';

/** How much text fits beside each disc, from the spacing of neighbours (px of arc). */
export function labelModeFor(arc: number): LabelMode {
  return arc >= 100 ? 'detailed' : arc >= 75 ? 'named' : 'ids';
}

/** Name characters kept beside a disc in each mode (the rest becomes "…"). */
export const NAME_CHARS: Record<LabelMode, number> = { detailed: 12, named: 8, ids: 0 };

/** Label font size in px for a ring of n processes. */
export function labelFont(n: number): number {
  return n <= 16 ? 15 : n <= 40 ? 13 : 11;
}

/**
 * Room to keep around the circle so the widest label (id and name, or the role line) is not
 * cut at the canvas edge: the disc, the halo or group ring beside it (labels then stand further
 * out), and the text, estimated from its length in characters (bold system-ui is about 0.6 em a
 * character); capped so the ring never shrinks to nothing.
 */
export function labelMargin(
  mode: LabelMode,
  n: number,
  longestName: number,
  nodeRadius = 12,
): number {
  const idChars = String(Math.max(0, n - 1)).length;
  const font = labelFont(n);
  const beside = nodeRadius + Math.max(10, nodeRadius * 0.6 + 6);
  if (mode === 'ids')
    return Math.round(Math.min(90, Math.max(36, beside + idChars * font * 0.62 + 6)));
  const line1 = idChars + (longestName ? 1 + Math.min(longestName, NAME_CHARS[mode]) : 0);
  // The role line ("coordinator → 12") is set 2 px smaller.
  const line2 = mode === 'detailed' ? 14 + idChars : 0;
  const width = Math.max(line1 * font * 0.62, line2 * (font - 2) * 0.58);
  return Math.round(Math.min(190, Math.max(60, beside + width + 6)));
}

const LEANER: Record<LabelMode, LabelMode> = { detailed: 'named', named: 'ids', ids: 'ids' };

/**
 * The labels for n processes on a `size`-px square: the richest mode the arc between neighbours
 * allows, leaner while its margin would leave the ring's radius under 40% of the room (on a
 * 390 px phone the detailed labels' margin left a ring of 30 px radius), and that mode's margin.
 */
export function fitLabels(
  n: number,
  longestName: number,
  size: number,
): { mode: LabelMode; margin: number } {
  const half = size / 2;
  const arc = n ? (2 * Math.PI * Math.max(10, half - 40)) / n : 0;
  const nodeRadius = Math.min(24, arc * 0.4);
  let mode = labelModeFor(arc);
  let margin = labelMargin(mode, n, longestName, nodeRadius);
  while (mode !== 'ids' && half - margin < 0.4 * half) {
    mode = LEANER[mode];
    margin = labelMargin(mode, n, longestName, nodeRadius);
  }
  return { mode, margin };
}

function cross(ctx: Paint, x: number, y: number, d: number): void {
  ctx.beginPath();
  ctx.moveTo(x - d, y - d);
  ctx.lineTo(x + d, y + d);
  ctx.moveTo(x + d, y - d);
  ctx.lineTo(x - d, y + d);
  ctx.stroke();
}

export function paintCircle(ctx: Paint, l: RingLayout): void {
  ctx.strokeStyle = '#e1e4e8';
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.arc(l.cx, l.cy, l.radius, 0, Math.PI * 2);
  ctx.stroke();
}

export function paintNode(
  ctx: Paint,
  r: number,
  x: number,
  y: number,
  look: ProcessLook,
  hot: boolean,
): void {
  if (look.halo) {
    ctx.save();
    ctx.strokeStyle = OKABE_ITO.reddishPurple;
    ctx.lineWidth = Math.max(2, r * 0.35);
    ctx.setLineDash(look.halo === 'disagrees' ? [4, 3] : [1.5, 3]);
    ctx.beginPath();
    ctx.arc(x, y, r + Math.max(4, r * 0.45), 0, Math.PI * 2);
    ctx.stroke();
    ctx.restore();
  }
  if (look.ring) {
    ctx.strokeStyle = look.ring;
    ctx.lineWidth = Math.max(2, r * 0.3);
    ctx.beginPath();
    ctx.arc(x, y, r + Math.max(2, r * 0.22), 0, Math.PI * 2);
    ctx.stroke();
  }
  tracePath(ctx, look.shape, x, y, r);
  ctx.fillStyle = look.fill;
  ctx.fill();
  ctx.save();
  if (look.dashed) ctx.setLineDash([3, 3]);
  ctx.strokeStyle = hot ? OKABE_ITO.blue : look.stroke;
  ctx.lineWidth = hot ? 3 : look.paused ? Math.max(2, r * 0.25) : r > 6 ? 1.5 : 1;
  ctx.stroke();
  ctx.restore();
  if (look.paused) paintPauseSign(ctx, x, y, r);
  if (look.crossed) {
    ctx.strokeStyle = OKABE_ITO.vermillion;
    ctx.lineWidth = Math.max(1.5, r * 0.25);
    cross(ctx, x, y, r * 0.8);
  }
  if (look.rival) paintWarning(ctx, x + r * 0.9, y - r * 0.9, Math.max(6, r * 0.55));
}

/** A pause sign (two violet bars, white-edged so they show on any role fill) over a paused process. */
function paintPauseSign(ctx: Paint, x: number, y: number, r: number): void {
  const w = Math.max(1.5, r * 0.22);
  const h = Math.max(4, r * 0.9);
  ctx.beginPath();
  for (const cx of [x - w * 1.1, x + w * 1.1]) {
    ctx.moveTo(cx - w / 2, y - h / 2);
    ctx.lineTo(cx + w / 2, y - h / 2);
    ctx.lineTo(cx + w / 2, y + h / 2);
    ctx.lineTo(cx - w / 2, y + h / 2);
    ctx.closePath();
  }
  ctx.fillStyle = STATUS_COLOURS.paused;
  ctx.strokeStyle = '#ffffff';
  ctx.lineWidth = 1;
  ctx.fill();
  ctx.stroke();
}

/** A warning sign (vermillion triangle, white "!") beside a process in a split brain: shape as well as colour. */
export function paintWarning(ctx: Paint, x: number, y: number, s: number): void {
  tracePath(ctx, 'triangle', x, y, s);
  ctx.fillStyle = OKABE_ITO.vermillion;
  ctx.fill();
  ctx.strokeStyle = '#ffffff';
  ctx.lineWidth = 1;
  ctx.stroke();
  ctx.fillStyle = '#ffffff';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.font = `700 ${Math.round(s * 1.1)}px system-ui, sans-serif`;
  ctx.fillText('!', x, y + s * 0.12);
}

/**
 * Split brain: a thick dashed vermillion line joins the processes acting as coordinator at once,
 * drawn under the discs, so the rivals stand out across the ring even at 200 processes.
 */
export function paintRivals(
  ctx: Paint,
  l: RingLayout,
  groups: readonly (readonly ProcessId[])[],
): void {
  ctx.save();
  ctx.strokeStyle = OKABE_ITO.vermillion;
  ctx.lineWidth = 3;
  ctx.setLineDash([9, 6]);
  for (const members of groups) {
    const nodes = members.map((id) => l.byId.get(id)).filter((n) => n !== undefined);
    if (nodes.length < 2) continue;
    ctx.beginPath();
    nodes.forEach((n, i) => (i === 0 ? ctx.moveTo(n.x, n.y) : ctx.lineTo(n.x, n.y)));
    if (nodes.length > 2) ctx.closePath();
    ctx.stroke();
  }
  ctx.restore();
}

export function paintLabels(
  ctx: Paint,
  l: RingLayout,
  mode: LabelMode,
  looks: ReadonlyMap<ProcessId, ProcessLook>,
  names: (id: ProcessId) => string | null,
  hovered: ProcessId | null,
): void {
  const n = l.nodes.length;
  const arc = n ? (2 * Math.PI * l.radius) / n : 0;
  const every = l.labels ? 1 : Math.max(1, Math.ceil(22 / Math.max(arc, 0.1)));
  ctx.fillStyle = '#1b1b1b';
  ctx.textBaseline = 'middle';
  const font = labelFont(n);
  for (const node of l.nodes) {
    // Every k-th id; the last partial stretch is skipped so it does not crowd the first label.
    const labelled = node.index % every === 0 && (every === 1 || n - node.index >= every);
    if (!labelled && node.id !== hovered) continue;
    const look = looks.get(node.id);
    const name = names(node.id);
    // Clear of the group ring, the halo (out to about 1.45 radii plus its stroke) and the warning sign.
    const at = labelPoint(
      l,
      node,
      look?.ring || look?.halo || look?.rival ? Math.max(10, l.nodeRadius * 0.6 + 6) : 5,
    );
    ctx.textAlign = at.align;
    ctx.font = `600 ${font}px system-ui, sans-serif`;
    let line1 = String(node.id);
    if (mode !== 'ids' && name) line1 += ` ${truncate(name, NAME_CHARS[mode])}`;
    if (mode !== 'detailed' || !look) {
      ctx.fillText(line1, at.x, at.y);
      continue;
    }
    // Two lines: push the block outwards so it never sits on the disc (top and bottom nodes).
    const dy = Math.sin(node.angle) * font * 0.6;
    ctx.fillText(line1, at.x, at.y + dy - font * 0.55);
    ctx.font = `${font - 2}px system-ui, sans-serif`;
    ctx.fillStyle = look.halo ? '#7a2d5a' : '#4a4a4a';
    const line2 =
      look.role === 'crashed' || look.role === '-'
        ? look.status
        : `${look.role} → ${look.believes}`;
    ctx.fillText(line2, at.x, at.y + dy + font * 0.6);
    ctx.fillStyle = '#1b1b1b';
  }
}

export interface Headline {
  /** Beliefs of up processes, the headline first (process-look.ts `beliefs`); `down`: the one believed is not up. */
  beliefs: { coordinator: ProcessId | null; count: number; down?: boolean }[];
  up: number;
  /** Each partition group's consensus (group index, coordinator); empty or one when not partitioned. */
  groups: [number, ProcessId | null][];
  /** "split brain: 3 and 7 lead at once", when there is one. */
  alarm?: string | null;
}

export function paintCentre(ctx: Paint, l: RingLayout, h: Headline): void {
  const big = Math.max(18, Math.min(56, l.radius * 0.28));
  if (h.alarm) {
    // The rivals' line crosses the middle: a pale disc keeps the headline readable over it.
    ctx.save();
    ctx.globalAlpha = 0.88;
    ctx.fillStyle = '#ffffff';
    ctx.beginPath();
    const backdrop = Math.min(l.radius * 0.78, big * 3.4);
    ctx.arc(l.cx, l.cy, backdrop, 0, Math.PI * 2);
    ctx.fill();
    ctx.restore();
    // Above the headline, in the warning colour and bold: the one thing to see from the back.
    // Shrunk to fit inside the ring (a long list of rivals must not run over the processes).
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillStyle = OKABE_ITO.vermillion;
    const text = `⚠ ${h.alarm}`;
    let size = Math.round(big * 0.4);
    ctx.font = `700 ${size}px system-ui, sans-serif`;
    const room = l.radius * 1.5;
    const wide = ctx.measureText(text).width;
    if (wide > room) {
      size = Math.max(9, Math.floor((size * room) / wide));
      ctx.font = `700 ${size}px system-ui, sans-serif`;
    }
    ctx.fillText(text, l.cx, l.cy - big * (h.groups.length > 1 ? 1.55 : 1.5));
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillStyle = '#1b1b1b';
  if (!h.beliefs.length) {
    ctx.font = `${big * 0.5}px system-ui, sans-serif`;
    ctx.fillText(h.up ? 'starting…' : 'no process up', l.cx, l.cy);
    return;
  }
  if (h.groups.length > 1) {
    // Partitioned: each side's coordinator, beside a dot in its group's colour.
    ctx.font = `${big * 0.36}px system-ui, sans-serif`;
    ctx.fillText('coordinator by group', l.cx, l.cy - big * 0.9);
    h.groups.slice(0, 4).forEach(([g, c], i) => {
      const y = l.cy - big * 0.2 + i * big * 0.62;
      const text = `group ${g + 1}: ${c ?? 'none'}`;
      ctx.font = `700 ${big * 0.5}px system-ui, sans-serif`;
      const w = ctx.measureText(text).width;
      const dot = big * 0.16;
      ctx.fillStyle = GROUP_COLOURS[g % GROUP_COLOURS.length]!;
      ctx.beginPath();
      ctx.arc(l.cx - w / 2 - dot * 1.2, y, dot, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = '#1b1b1b';
      ctx.fillText(text, l.cx + dot * 0.6, y);
    });
    return;
  }
  const lead = h.beliefs[0]!;
  ctx.font = `${big * 0.36}px system-ui, sans-serif`;
  ctx.fillText('coordinator', l.cx, l.cy - big * 0.85);
  ctx.font = `700 ${big}px system-ui, sans-serif`;
  ctx.fillText(lead.coordinator === null ? 'none' : String(lead.coordinator), l.cx, l.cy);
  ctx.font = `${big * 0.34}px system-ui, sans-serif`;
  // A coordinator that is down is never presented as leading: its believers are named as stale.
  ctx.fillText(
    lead.down
      ? `down: ${lead.count} of ${h.up} up still believe it`
      : `${lead.count} of ${h.up} up believe it`,
    l.cx,
    l.cy + big * 0.8,
  );
  if (h.beliefs.length > 1) {
    const rest = h.beliefs
      .slice(1, 4)
      .map((b) => `${b.coordinator ?? 'none'}: ${b.count}`)
      .join('  ');
    ctx.fillStyle = '#7a2d5a';
    ctx.fillText(`others: ${rest}`, l.cx, l.cy + big * 1.3);
  }
}

/** Messages in flight (shape and colour by type) and drop crosses fading over `dropLinger` ms. */
export function paintFlights(
  ctx: Paint,
  l: RingLayout,
  frame: FlightFrame,
  styleOf: (type: string) => MessageStyle,
  showBackground: boolean,
  dropLinger: number,
): void {
  const r = Math.min(7, Math.max(3, l.nodeRadius * 0.55));
  for (const { flight, f } of frame.moving) {
    const s = styleOf(flight.type);
    if (s.background && !showBackground) continue;
    const a = l.byId.get(flight.from);
    const b = l.byId.get(flight.to);
    if (!a || !b) continue;
    const p = flightPoint(l, a, b, f);
    tracePath(ctx, s.shape, p.x, p.y, s.background ? r * 0.7 : r);
    ctx.globalAlpha = s.background ? 0.55 : 1;
    ctx.fillStyle = s.hollow ? '#ffffff' : s.color;
    ctx.fill();
    if (!s.background) {
      // A hollow marker (a task order) is outlined in its colour, thickly; the others in black.
      ctx.strokeStyle = s.hollow ? s.color : '#1b1b1b';
      ctx.lineWidth = s.hollow ? 2 : 0.75;
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
  }
  ctx.strokeStyle = OKABE_ITO.vermillion;
  ctx.lineWidth = 2.5;
  for (const { flight, f, age } of frame.drops) {
    if (styleOf(flight.type).background && !showBackground) continue;
    const a = l.byId.get(flight.from);
    const b = l.byId.get(flight.to);
    if (!a || !b) continue;
    const p = flightPoint(l, a, b, f);
    ctx.globalAlpha = Math.max(0.15, 1 - age / dropLinger);
    cross(ctx, p.x, p.y, r * 1.1);
  }
  ctx.globalAlpha = 1;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
