// Finds "the current election" in the relay's trace and keeps what the stats panel and the
// space-time diagram need about it. An election starts with the instructor's `elect`, with the
// first election message sent while the lab was settled, or with a process reporting that it
// is electing; it ends when the lab is settled again (who-disagrees.ts). Pure: the caller feeds
// trace events in order and says when the lab is settled.

import type { TraceEvent } from '@shared/protocol/trace.ts';
import { isOutsideElection } from './message-style.ts';

export interface ElectionWindow {
  /** Counts elections seen since the dashboard opened. */
  serial: number;
  /** Relay ms. */
  start: number;
  end: number | null;
  trigger: string;
  /** Messages sent since the start, by type (duplicates count as sends). */
  sent: Record<string, number>;
  dropped: number;
  delivered: number;
  /** Sum of send-to-deliver times of messages both sent and delivered in the window, ms. */
  latencySum: number;
  /** Saw a process report `electing`: windows without one were stray messages, not elections. */
  sawElecting: boolean;
  /** Trace events of the window (and crashes just before it), capped for drawing. */
  events: TraceEvent[];
  truncated: number;
  /** Message events the relay left out of its batches while this election ran (counts are then low). */
  sampledOut: number;
}

export interface TrackerOptions {
  /** Message types that cannot start an election (failure-detector chatter). */
  isBackground?: (type: string) => boolean;
  /** Crashes/recoveries this long before the start are kept, to show what set it off (ms). */
  preRoll?: number;
  maxEvents?: number;
}

const STATUS_KINDS = new Set(['crash', 'recover', 'join', 'leave', 'partition', 'elect']);

export class ElectionTracker {
  current: ElectionWindow | null = null;
  /** The last finished election: shown while the lab is quiet. */
  last: ElectionWindow | null = null;
  private serial = 0;
  private readonly sendTimes = new Map<number, number>();
  private recentStatus: TraceEvent[] = [];
  private readonly isBackground: (type: string) => boolean;
  private readonly maxEvents: number;
  preRoll: number;

  constructor(opts: TrackerOptions = {}) {
    this.isBackground = opts.isBackground ?? isOutsideElection;
    this.preRoll = opts.preRoll ?? 5000;
    this.maxEvents = opts.maxEvents ?? 20_000;
  }

  /** The election to show: the one in progress, else the last one. */
  get shown(): ElectionWindow | null {
    return this.current ?? this.last;
  }

  /** Feed one event. `settled` is asked after events that can end an election. */
  observe(e: TraceEvent, settled: () => boolean): void {
    if (STATUS_KINDS.has(e.kind)) {
      this.recentStatus.push(e);
      if (this.recentStatus.length > 64) this.recentStatus = this.recentStatus.slice(-32);
    }
    let w = this.current;
    if (!w) {
      // Messages of the finished election still landing: their arrows end where they land.
      if ((e.kind === 'deliver' || e.kind === 'drop') && this.last && this.sendTimes.has(e.msg)) {
        this.record(this.last, e);
        return;
      }
      const trigger = this.triggerOf(e);
      if (!trigger) return;
      w = this.open(e.t, trigger);
    }
    this.record(w, e);
    if (
      (e.kind === 'report' ||
        e.kind === 'crash' ||
        e.kind === 'recover' ||
        e.kind === 'leave' ||
        e.kind === 'partition') &&
      settled()
    )
      this.close(e.t);
  }

  /** Once per batch: a window opened by a stray message ends once the lab is settled. */
  check(settled: boolean): void {
    if (this.current && !this.current.sawElecting && settled) this.close(this.current.start);
  }

  /** The relay skipped `n` message events in the batch just applied (at relay time `t`). */
  noteSampled(n: number, t: number): void {
    if (n <= 0) return;
    const w =
      this.current ??
      (this.last && this.last.end !== null && t - this.last.end < 1000 ? this.last : null);
    if (w) w.sampledOut += n;
  }

  reset(): void {
    this.current = null;
    this.last = null;
    this.sendTimes.clear();
    this.recentStatus = [];
  }

  private triggerOf(e: TraceEvent): string | null {
    if (e.kind === 'elect') return `elect at ${e.node}`;
    if (e.kind === 'report' && e.report.electing) return `${e.node} started electing`;
    if (e.kind === 'send' && !this.isBackground(e.type)) return `${e.type} from ${e.from}`;
    return null;
  }

  private open(t: number, trigger: string): ElectionWindow {
    this.serial++;
    // What set it off: crashes, recoveries and partitions shortly before (not joins: a class
    // joining one by one would stretch the diagram over minutes).
    const pre = this.recentStatus.filter(
      (s) =>
        s.t >= t - this.preRoll &&
        s.t <= t &&
        (s.kind === 'crash' || s.kind === 'recover' || s.kind === 'partition'),
    );
    const w: ElectionWindow = {
      serial: this.serial,
      start: t,
      end: null,
      trigger,
      sent: {},
      dropped: 0,
      delivered: 0,
      latencySum: 0,
      sawElecting: false,
      events: [...pre],
      truncated: 0,
      sampledOut: 0,
    };
    // A stray window may turn out to be the last election's tail: keep matching its sends.
    if (trigger.startsWith('elect') || trigger.endsWith('started electing')) this.sendTimes.clear();
    this.current = w;
    return w;
  }

  private close(t: number): void {
    const w = this.current;
    if (!w) return;
    this.current = null;
    if (!w.sawElecting) {
      // Messages in a settled lab that started no election: the tail of the last one (the
      // ring's final ACKs, a late OK), sent after everyone already agreed. They count there.
      this.serial--;
      if (this.last) this.merge(this.last, w);
      return;
    }
    w.end = t;
    this.last = w;
  }

  private merge(into: ElectionWindow, tail: ElectionWindow): void {
    for (const [type, n] of Object.entries(tail.sent)) into.sent[type] = (into.sent[type] ?? 0) + n;
    into.dropped += tail.dropped;
    into.delivered += tail.delivered;
    into.latencySum += tail.latencySum;
    const room = Math.max(0, this.maxEvents - into.events.length);
    const kept = tail.events.filter((e) => e.t >= tail.start);
    into.events.push(...kept.slice(0, room));
    into.truncated += tail.truncated + Math.max(0, kept.length - room);
    into.sampledOut += tail.sampledOut;
  }

  private record(w: ElectionWindow, e: TraceEvent): void {
    switch (e.kind) {
      case 'send':
        w.sent[e.type] = (w.sent[e.type] ?? 0) + 1;
        // Sends whose fate the relay sampled out never leave the map: bound it.
        if (this.sendTimes.size > 50_000) this.sendTimes.clear();
        this.sendTimes.set(e.msg, e.t);
        break;
      case 'duplicate':
        w.sent[e.type] = (w.sent[e.type] ?? 0) + 1;
        this.sendTimes.set(e.msg, e.t);
        break;
      case 'deliver': {
        const sentAt = this.sendTimes.get(e.msg);
        if (sentAt !== undefined) {
          w.delivered++;
          w.latencySum += e.t - sentAt;
          this.sendTimes.delete(e.msg);
        }
        break;
      }
      case 'drop':
        if (this.sendTimes.delete(e.msg)) w.dropped++;
        break;
      case 'report':
        if (e.report.electing) w.sawElecting = true;
        break;
      case 'timer':
      case 'note':
      case 'owner':
      case 'fault':
        return; // not drawn
    }
    if (w.events.length < this.maxEvents) w.events.push(e);
    else w.truncated++;
  }
}

/** What the stats panel shows about a window: counts, duration and mean one-way latency. */
export interface WindowFigures {
  durationMs: number;
  finished: boolean;
  meanLatency: number | null;
  electionMessages: number;
  backgroundMessages: number;
}

export function windowFigures(
  w: ElectionWindow,
  now: number,
  isBackground: (type: string) => boolean = isOutsideElection,
): WindowFigures {
  let electionMessages = 0;
  let backgroundMessages = 0;
  for (const [type, n] of Object.entries(w.sent)) {
    if (isBackground(type)) backgroundMessages += n;
    else electionMessages += n;
  }
  return {
    durationMs: Math.max(0, (w.end ?? now) - w.start),
    finished: w.end !== null,
    meanLatency: w.delivered ? w.latencySum / w.delivered : null,
    electionMessages,
    backgroundMessages,
  };
}
