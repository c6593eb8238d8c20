// The space-time diagram of one election: a lane per process (rows, in ring order), time running
// to the right, one arrow per message from its send to its delivery (or to the point it was
// dropped, ending in a cross). Built only from the relay's trace. Pure: numbers in, shapes out.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { LabConfig } from '@shared/protocol/lab-config.ts';
import type { DropReason, TraceEvent } from '@shared/protocol/trace.ts';
import type { ElectionWindow } from './election-tracker.ts';
import { dropPoint } from './flight-board.ts';
import { isBackgroundType } from './message-style.ts';

export interface Lane {
  id: ProcessId;
  y: number;
}

export interface Arrow {
  msg: number;
  type: string;
  from: ProcessId;
  to: ProcessId;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  /** 'lost-track': no delivery or drop seen long after the send (the relay sampled it out under load). */
  end: 'delivered' | 'dropped' | 'in-flight' | 'lost-track';
  reason: DropReason | null;
}

export type MarkKind = 'crash' | 'recover' | 'elect' | 'coordinator' | 'join' | 'leave';

export interface Mark {
  kind: MarkKind;
  node: ProcessId;
  x: number;
  y: number;
  t: number;
}

export interface Tick {
  x: number;
  label: string;
}

export interface SpaceTime {
  lanes: Lane[];
  arrows: Arrow[];
  marks: Mark[];
  ticks: Tick[];
  t0: number;
  t1: number;
  width: number;
  height: number;
  /** Arrows left out past `maxArrows`. */
  omitted: number;
  /** How long before the election's start the earliest mark (the crash that set it off) was, when it was clipped to the left edge; else 0 (ms). */
  clippedLead: number;
}

export interface SpaceTimeOptions {
  width: number;
  laneHeight: number;
  /** Room on the left for lane labels, px. */
  padLeft?: number;
  padRight?: number;
  padTop?: number;
  /** Leave failure-detector messages out (they bury the election at large N). */
  hideBackground?: boolean;
  isBackground?: (type: string) => boolean;
  maxArrows?: number;
  /** Right edge of the time axis for an election still running (relay ms). */
  now?: number;
  start?: number;
  end?: number | null;
  /** A message with no fate seen this long after its send is drawn as a short stub, not a line to the edge (ms). */
  lostAfter?: number;
  /**
   * Marks before `start` (the crash that set the election off) earlier than this fraction of the
   * election's length are pinned to the left edge, so a long detection delay does not squeeze
   * the election into a sliver. Default 0.2.
   */
  maxLead?: number;
}

/** Roles that mean "I am the coordinator" across the algorithms. */
export const COORDINATOR_ROLES: ReadonlySet<string> = new Set(['coordinator', 'leader', 'master']);

export function spaceTimeLayout(
  events: readonly TraceEvent[],
  lanes: readonly ProcessId[],
  o: SpaceTimeOptions,
): SpaceTime {
  const padLeft = o.padLeft ?? 48;
  const padTop = o.padTop ?? 18;
  const { t0, t1, clippedLead } = timeSpan(events, o);
  const laneY = new Map<ProcessId, number>();
  const laneList: Lane[] = lanes.map((id, i) => {
    const y = padTop + (i + 0.5) * o.laneHeight;
    laneY.set(id, y);
    return { id, y };
  });
  const plot = Math.max(1, o.width - padLeft - (o.padRight ?? 12));
  const x = (t: number) => padLeft + ((Math.max(t, t0) - t0) / (t1 - t0)) * plot;
  const drawn = drawEvents(events, {
    laneY,
    x,
    t1,
    hidden: o.hideBackground ? (o.isBackground ?? isBackgroundType) : () => false,
    maxArrows: o.maxArrows ?? 4000,
  });
  // Sends whose delivery never showed up (sampled out by the relay, or still held): a stub.
  const lostAfter = o.lostAfter ?? Infinity;
  for (const a of drawn.open.values()) {
    const sentAt = t0 + ((a.x1 - padLeft) / plot) * (t1 - t0);
    if (t1 - sentAt <= lostAfter) continue;
    a.end = 'lost-track';
    a.x2 = a.x1 + Math.min(12, (a.x2 - a.x1) * 0.1);
    a.y2 = a.y1 + (a.y2 - a.y1) * 0.15;
  }
  return {
    lanes: laneList,
    arrows: drawn.arrows,
    marks: drawn.marks,
    ticks: timeTicks(t0, t1, x),
    t0,
    t1,
    width: o.width,
    height: padTop + lanes.length * o.laneHeight + 4,
    omitted: drawn.omitted,
    clippedLead,
  };
}

/**
 * The time axis: from the first event (or `start`) to the last (or `end`, `now`). A lead before
 * `start` longer than `maxLead` of the election is clipped, so the election is not a sliver.
 */
function timeSpan(
  events: readonly TraceEvent[],
  o: SpaceTimeOptions,
): { t0: number; t1: number; clippedLead: number } {
  let t0 = o.start ?? Infinity;
  let t1 = o.end ?? o.now ?? -Infinity;
  for (const e of events) {
    if (e.t < t0) t0 = e.t;
    if (e.t > t1) t1 = e.t;
  }
  if (!Number.isFinite(t0)) t0 = 0;
  if (!Number.isFinite(t1) || t1 <= t0) t1 = t0 + 1;
  if (o.start !== undefined && t0 < o.start && t1 > o.start) {
    const length = t1 - o.start;
    if (o.start - t0 > length * (o.maxLead ?? 0.2))
      return { t0: o.start - length * 0.03, t1, clippedLead: o.start - t0 };
  }
  return { t0, t1, clippedLead: 0 };
}

interface Canvas {
  laneY: ReadonlyMap<ProcessId, number>;
  x: (t: number) => number;
  t1: number;
  hidden: (type: string) => boolean;
  maxArrows: number;
}

/** A send's arrow, in flight to the right edge; null when hidden or a lane is not drawn. */
function sendArrow(
  e: Extract<TraceEvent, { kind: 'send' | 'duplicate' }>,
  c: Canvas,
): Arrow | null {
  const y1 = c.laneY.get(e.from);
  const y2 = c.laneY.get(e.to);
  if (c.hidden(e.type) || y1 === undefined || y2 === undefined) return null;
  const { msg, type, from, to } = e;
  return {
    msg,
    type,
    from,
    to,
    x1: c.x(e.t),
    y1,
    x2: c.x(c.t1),
    y2,
    end: 'in-flight',
    reason: null,
  };
}

/** One pass over the events: an arrow per send (closed by its delivery or drop) and the marks. */
function drawEvents(events: readonly TraceEvent[], c: Canvas) {
  const open = new Map<number, Arrow>();
  const arrows: Arrow[] = [];
  const marks: Mark[] = [];
  const leaders = new Set<ProcessId>();
  let omitted = 0;
  const mark = (kind: MarkKind, node: ProcessId, t: number) => {
    const y = c.laneY.get(node);
    if (y !== undefined) marks.push({ kind, node, t, x: c.x(t), y });
  };
  for (const e of events) {
    switch (e.kind) {
      case 'send':
      case 'duplicate': {
        const a = sendArrow(e, c);
        if (!a) break;
        if (arrows.length >= c.maxArrows) omitted++;
        else {
          arrows.push(a);
          open.set(e.msg, a);
        }
        break;
      }
      case 'deliver':
      case 'drop': {
        const a = open.get(e.msg);
        if (!a) break;
        a.x2 = c.x(e.t);
        if (e.kind === 'drop') {
          a.y2 = a.y1 + (a.y2 - a.y1) * dropPoint(e.reason);
          a.reason = e.reason;
        }
        a.end = e.kind === 'drop' ? 'dropped' : 'delivered';
        open.delete(e.msg);
        break;
      }
      case 'crash':
      case 'recover':
      case 'join':
      case 'leave':
      case 'elect':
        mark(e.kind, e.node, e.t);
        if (e.kind !== 'elect') leaders.delete(e.node);
        break;
      case 'report': {
        const isLeader = COORDINATOR_ROLES.has(e.report.role);
        if (isLeader && !leaders.has(e.node)) mark('coordinator', e.node, e.t);
        if (isLeader) leaders.add(e.node);
        else leaders.delete(e.node);
        break;
      }
    }
  }
  return { open, arrows, marks, omitted };
}

/** Round tick steps (1, 2, 5 x 10^k ms), about six across, labelled relative to the start. */
export function timeTicks(t0: number, t1: number, x: (t: number) => number, target = 6): Tick[] {
  const span = t1 - t0;
  const raw = span / target;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? raw;
  const ticks: Tick[] = [];
  for (let k = 0; k * step <= span + 1e-9 && ticks.length < 50; k++) {
    const dt = k * step;
    ticks.push({
      x: x(t0 + dt),
      label: dt >= 1000 ? `${+(dt / 1000).toFixed(2)} s` : `${+dt.toFixed(1)} ms`,
    });
  }
  return ticks;
}

/** Lane height that fits `n` lanes in `height`, within readable bounds. */
export function laneHeightFor(n: number, height: number, min = 4, max = 28): number {
  if (n <= 0) return max;
  return Math.max(min, Math.min(max, Math.floor(height / n)));
}

/**
 * When a message with no delivery seen is drawn as a stub (`lostAfter`, ms): after ten
 * transmission bounds; when the relay sampled events out during the shown election, after three
 * mean latencies (its delivery was most likely left out, not late).
 */
export function lostAfterFor(config: LabConfig | null, shown: ElectionWindow | null): number {
  if (shown?.sampledOut && shown.delivered)
    return Math.max(50, (3 * shown.latencySum) / shown.delivered);
  return config ? Math.max(1000, 10 * config.timing.transmission * config.fabric.timeScale) : 2000;
}
