// What the ring view animates: messages in flight between processes. Trace batches arrive 10 to
// 20 times a second and real transit is often a few ms, so each message flies for a visual
// duration of its own rather than its real one. Past `maxFlights` new messages are sampled out
// (counted, not drawn), which keeps a frame's work bounded at thousands of messages a second.
// Drops stay visible as a mark where they happened. Pure: the caller passes wall-clock ms.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { DropReason } from '@shared/protocol/trace.ts';

export interface Flight {
  msg: number;
  from: ProcessId;
  to: ProcessId;
  type: string;
  start: number;
  duration: number;
  /** Where along the path it was dropped (0..1), when it was. */
  dropAt: number | null;
  reason: DropReason | null;
}

export interface FlightFrame {
  /** Messages drawn this frame with their progress 0..1. */
  moving: { flight: Flight; f: number }[];
  /** Dropped messages: the mark stays `dropLinger` ms after reaching the drop point. */
  drops: { flight: Flight; f: number; age: number }[];
}

export interface FlightOptions {
  maxFlights?: number;
  duration?: number;
  dropLinger?: number;
}

/** Where along the link a drop of this reason happens: at the sender, midway or at the receiver. */
export function dropPoint(reason: DropReason): number {
  switch (reason) {
    case 'sender-crashed':
      return 0.08;
    case 'receiver-crashed':
    case 'receiver-gone':
    case 'overflow':
    case 'unknown-destination':
      return 0.92;
    default:
      return 0.5;
  }
}

/** What the ring view draws messages from: the live board, or a still frame (replay). */
export interface FlightSource {
  /** Something moves: the canvas keeps redrawing every animation frame while it does. */
  readonly animating: boolean;
  readonly dropLinger: number;
  frame(now: number): FlightFrame;
  takeCounts(): { shown: number; sampled: number };
}

export class FlightBoard implements FlightSource {
  private readonly flights = new Map<number, Flight>();
  readonly maxFlights: number;
  duration: number;
  readonly dropLinger: number;
  /** Messages not drawn because the board was full, since the last `takeSampled()`. */
  private sampled = 0;
  private shown = 0;

  constructor(opts: FlightOptions = {}) {
    this.maxFlights = opts.maxFlights ?? 600;
    this.duration = opts.duration ?? 700;
    this.dropLinger = opts.dropLinger ?? 1200;
  }

  get size(): number {
    return this.flights.size;
  }

  get animating(): boolean {
    return this.flights.size > 0;
  }

  send(msg: number, from: ProcessId, to: ProcessId, type: string, now: number): void {
    if (this.flights.size >= this.maxFlights) {
      this.sampled++;
      return;
    }
    this.shown++;
    this.flights.set(msg, {
      msg,
      from,
      to,
      type,
      start: now,
      duration: this.duration,
      dropAt: null,
      reason: null,
    });
  }

  drop(msg: number, reason: DropReason, now: number): void {
    const f = this.flights.get(msg);
    if (!f) return;
    const progress = Math.min(1, (now - f.start) / f.duration);
    // Drop where the reason says, or where it is now if it already flew past that point.
    f.dropAt = Math.max(progress, dropPoint(reason));
    f.reason = reason;
  }

  /** Advance to `now`: returns what to draw and forgets what has landed or faded. */
  frame(now: number): FlightFrame {
    const moving: FlightFrame['moving'] = [];
    const drops: FlightFrame['drops'] = [];
    for (const [msg, flight] of this.flights) {
      const f = (now - flight.start) / flight.duration;
      if (flight.dropAt !== null && f >= flight.dropAt) {
        const age = (f - flight.dropAt) * flight.duration;
        if (age > this.dropLinger) this.flights.delete(msg);
        else drops.push({ flight, f: flight.dropAt, age });
      } else if (f >= 1) {
        this.flights.delete(msg);
      } else {
        moving.push({ flight, f: Math.max(0, f) });
      }
    }
    return { moving, drops };
  }

  /** Drawn vs sampled out since the last call: the view prints "drawing 1 in k". */
  takeCounts(): { shown: number; sampled: number } {
    const out = { shown: this.shown, sampled: this.sampled };
    this.shown = 0;
    this.sampled = 0;
    return out;
  }

  clear(): void {
    this.flights.clear();
  }
}
