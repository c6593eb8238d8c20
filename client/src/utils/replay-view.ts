// Replay mode's pictures from a parsed trace (shared/protocol/trace-file.ts) and the state at the cursor
// (shared/analysis/replay.ts): what the run was, the dashboard's model at that moment (so the ring, the
// table and the glance draw as they do live), messages in flight placed by their real send and
// delivery times, and each event in words. Pure.
import {
  ALGORITHM_NAMES,
  DEFAULT_TIMING,
  type AlgorithmName,
  type ProcessId,
} from '@shared/algorithms/algorithm.ts';
import { DEFAULT_FABRIC, type LabConfig } from '@shared/protocol/lab-config.ts';
import type { ProcessInfo, LabSnapshot } from '@shared/protocol/frames.ts';
import type { ParsedTrace } from '@shared/protocol/trace-file.ts';
import type { ReplayState } from '@shared/analysis/replay.ts';
import type { DropReason, TraceEvent } from '@shared/protocol/trace.ts';
import { dropPoint, type FlightFrame, type FlightSource } from './flight-board.ts';
import { groupOf } from '@shared/sim/network.ts';

export interface TraceMeta {
  /** simulator, explorer, experiment, relay (a header's `source`, or a header-less relay trace). */
  source: string;
  algorithm: AlgorithmName | null;
  ids: ProcessId[];
  /** Ring order, when the lab's config is known. */
  ring: ProcessId[];
  seed: number | null;
  /** The explorer's verdict, when the trace is its shortest bad schedule. */
  violation: string | null;
  events: number;
  /** Virtual or relay ms from the first event to the last. */
  duration: number;
}

/** What a trace says about its run; a lab's config (loading `?lab=`) fills what a relay trace leaves out. */
export function traceMeta(trace: ParsedTrace, lab: LabConfig | null = null): TraceMeta {
  const h = trace.header;
  const seen = new Set<ProcessId>(h?.ids ?? lab?.ids ?? []);
  for (const e of trace.events) for (const id of idsOf(e)) seen.add(id);
  const algorithm = h?.algorithm ?? lab?.algorithm ?? null;
  const v = (h as { violation?: { property?: unknown; message?: unknown } } | null)?.violation;
  const first = trace.events[0]?.t ?? 0;
  const last = trace.events[trace.events.length - 1]?.t ?? 0;
  return {
    source: h?.source ?? 'relay',
    algorithm:
      algorithm && (ALGORITHM_NAMES as readonly string[]).includes(algorithm) ? algorithm : null,
    ids: [...seen].sort((a, b) => a - b),
    ring: lab?.ring ?? [],
    seed: h?.seed ?? lab?.seed ?? null,
    violation:
      v && typeof v.message === 'string'
        ? `${typeof v.property === 'string' ? `${v.property}: ` : ''}${v.message}`
        : null,
    events: trace.events.length,
    duration: Math.max(0, last - first),
  };
}

function idsOf(e: TraceEvent): ProcessId[] {
  if ('node' in e) return [e.node];
  if ('from' in e) return [e.from, e.to];
  if (e.kind === 'partition') return (e.groups ?? []).flat();
  return [];
}

/** The lab config replay draws with: the lab's own when known, else one built from the trace. */
export function replayConfig(meta: TraceMeta, lab: LabConfig | null = null): LabConfig {
  if (lab) return { ...lab, ids: meta.ids, ring: lab.ring };
  return {
    name: 'replay',
    algorithm: meta.algorithm ?? 'bully',
    ids: meta.ids,
    ring: meta.ring,
    timing: DEFAULT_TIMING,
    detector: 'none',
    options: {},
    fabric: DEFAULT_FABRIC,
    seed: meta.seed ?? 0,
  };
}

/**
 * The dashboard's snapshot of the replayed moment. Simulated processes are programs (drawn as
 * bots); a relay trace does not say who was a tab or a bot, so the lab's current kinds and
 * names are used when known.
 */
export function replaySnapshot(
  state: ReplayState,
  config: LabConfig,
  source: string,
  known: ReadonlyMap<ProcessId, Pick<ProcessInfo, 'name' | 'kind'>> = new Map(),
): LabSnapshot {
  const views = new Map(state.processes.map((p) => [p.id, p]));
  const processes: ProcessInfo[] = config.ids.map((id) => {
    const v = views.get(id);
    const status = v?.status ?? 'absent';
    const k = known.get(id);
    const kind = status === 'absent' ? null : (k?.kind ?? (source === 'relay' ? null : 'bot'));
    return {
      id,
      name: k?.name ?? null,
      status,
      kind,
      transport: null,
      report: v?.report ?? null,
      group: groupOf(state.partition, id),
    };
  });
  return {
    config,
    processes,
    paused: false,
    inFlight: state.inFlight.length,
    now: state.t,
    partition: state.partition,
  };
}

/** What became of a message: when it was delivered or dropped. (The network model decides its fate at the send.) */
export interface MessageOutcome {
  at: number;
  dropped: DropReason | null;
}

/** When each message was delivered or dropped (by message id), so flights can be placed at any moment. */
export function messageFates(events: readonly TraceEvent[]): Map<number, MessageOutcome> {
  const out = new Map<number, MessageOutcome>();
  for (const e of events) {
    if (e.kind === 'deliver') out.set(e.msg, { at: e.t, dropped: null });
    else if (e.kind === 'drop') out.set(e.msg, { at: e.t, dropped: e.reason });
  }
  return out;
}

/**
 * Messages in flight at time `t` (the playhead: at or after the cursor's event), each as far
 * along its path as its real send and delivery times put it; drops within `linger` ms before
 * `t` as crosses where they happened. `count` events have been applied.
 */
export function replayFlights(
  state: ReplayState,
  events: readonly TraceEvent[],
  count: number,
  fates: ReadonlyMap<number, MessageOutcome>,
  t: number,
  linger: number,
): FlightFrame {
  const moving: FlightFrame['moving'] = [];
  for (const m of state.inFlight) {
    const fate = fates.get(m.msg);
    const span = fate ? fate.at - m.sentAt : 0;
    // Kept a little way out of the sender's disc, so a message sent at this very moment shows.
    const f = span > 0 ? Math.min(0.98, Math.max(MIN_SHOWN, (t - m.sentAt) / span)) : 0.5;
    const flight = {
      msg: m.msg,
      from: m.from,
      to: m.to,
      type: m.type,
      start: m.sentAt,
      duration: span,
      dropAt: null,
      reason: null,
    };
    moving.push({ flight, f: fate?.dropped ? Math.min(f, dropPoint(fate.dropped)) : f });
  }
  const drops: FlightFrame['drops'] = [];
  // Walk back from the cursor over recent events only (bounded, whatever the trace's length).
  for (let i = Math.min(count, events.length) - 1, seen = 0; i >= 0 && seen < 5000; i--, seen++) {
    const e = events[i]!;
    if (t - e.t > linger) break;
    if (e.kind !== 'drop') continue;
    drops.push({
      flight: {
        msg: e.msg,
        from: e.from,
        to: e.to,
        type: e.type,
        start: e.t,
        duration: 0,
        dropAt: dropPoint(e.reason),
        reason: e.reason,
      },
      f: dropPoint(e.reason),
      age: Math.max(0, t - e.t),
    });
  }
  return { moving, drops };
}

/** A still frame for the ring view: nothing animates; the page redraws it when the cursor moves. */
export class StillFlights implements FlightSource {
  readonly animating = false;
  constructor(
    private readonly still: FlightFrame,
    readonly dropLinger: number,
  ) {}
  frame(): FlightFrame {
    return this.still;
  }
  takeCounts() {
    return { shown: this.still.moving.length, sampled: 0 };
  }
}

/** The least fraction of its path a message in flight is drawn at. */
export const MIN_SHOWN = 0.12;

/** The index of the last event at or before time `t` plus one (events applied by then); events are in time order. */
export function countAtTime(events: readonly TraceEvent[], t: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.t <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
