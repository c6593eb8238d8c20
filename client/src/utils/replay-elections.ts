// The elections in a whole trace, found the way the live dashboard finds them (election-tracker
// over the lab model), so replay's space-time diagram shows the election around the cursor, cut
// at the cursor: arrows whose delivery comes later are still in flight. Pure.
import type { TraceEvent } from '@shared/protocol/trace.ts';
import type { LabSnapshot } from '@shared/protocol/frames.ts';
import type { ElectionWindow } from './election-tracker.ts';
import { LabModel } from './lab-model.ts';

export interface ReplayElection {
  window: ElectionWindow;
  /** Index of the event that opened it. */
  first: number;
  /** Events applied when it closed (null: still running at the end of the trace). */
  closedAt: number | null;
}

/** Every election in the trace, in order. `initial` is the state before the first event. */
export function replayElections(
  events: readonly TraceEvent[],
  initial: LabSnapshot,
): ReplayElection[] {
  const model = new LabModel();
  model.applySnapshot(initial);
  const tracker = model.tracker;
  const out: ReplayElection[] = [];
  const open = new Map<ElectionWindow, number>();
  let last: ElectionWindow | null = null;
  for (let i = 0; i < events.length; i++) {
    model.applyEvents([events[i]!]);
    const cur = tracker.current;
    if (cur && !open.has(cur)) open.set(cur, i);
    if (tracker.last && tracker.last !== last) {
      last = tracker.last;
      out.push({ window: last, first: open.get(last) ?? i, closedAt: i + 1 });
    }
  }
  // Still running when the trace ends (only real elections: one that saw a process electing).
  const cur = tracker.current;
  if (cur?.sawElecting)
    out.push({ window: cur, first: open.get(cur) ?? events.length - 1, closedAt: null });
  return out;
}

/**
 * The election to draw after `count` events: the latest one opened by then, cut at the cursor
 * (its counts recomputed from the events so far). Before the first election: the trace so far.
 */
export function windowAt(
  elections: readonly ReplayElection[],
  events: readonly TraceEvent[],
  count: number,
  maxEvents = 20_000,
): ElectionWindow | null {
  if (count <= 0) return null;
  let pick: ReplayElection | null = null;
  for (const e of elections) {
    if (e.first < count) pick = e;
    else break;
  }
  const cursor = events[count - 1]!;
  if (!pick) {
    const from = Math.max(0, count - maxEvents);
    return recount({
      serial: 0,
      start: events[0]!.t,
      end: null,
      trigger: 'no election yet: the trace so far',
      sent: {},
      dropped: 0,
      delivered: 0,
      latencySum: 0,
      sawElecting: false,
      events: events.slice(from, count) as TraceEvent[],
      truncated: from,
      sampledOut: 0,
    });
  }
  const w = pick.window;
  const ended = pick.closedAt !== null && pick.closedAt <= count;
  return recount({
    ...w,
    end: ended ? w.end : null,
    events: w.events.filter((e) => e.seq <= cursor.seq),
  });
}

/** Counts of a window from its own events (sends by type, deliveries with their latency, drops). */
function recount(w: ElectionWindow): ElectionWindow {
  const sentAt = new Map<number, number>();
  const sent: Record<string, number> = {};
  let delivered = 0;
  let dropped = 0;
  let latencySum = 0;
  for (const e of w.events) {
    if (e.t < w.start && e.kind !== 'deliver' && e.kind !== 'drop') continue;
    if (e.kind === 'send' || e.kind === 'duplicate') {
      sent[e.type] = (sent[e.type] ?? 0) + 1;
      sentAt.set(e.msg, e.t);
    } else if (e.kind === 'deliver' && sentAt.has(e.msg)) {
      delivered++;
      latencySum += e.t - sentAt.get(e.msg)!;
    } else if (e.kind === 'drop' && sentAt.has(e.msg)) dropped++;
  }
  return { ...w, sent, delivered, dropped, latencySum };
}
