// The lab's live Lamport and vector clocks, the same rules as ClockBook (logical-clocks.ts) in a
// form cheap enough for every message: a vector is a dense array with one slot per id (slots are
// handed out as ids first appear), copied with `slice` on each event, and written into the trace
// line by wire-encode.ts's `clocksText`, exactly as JSON.stringify writes the `{"<id>": count}`
// record (ids that have ticked, ascending), so the trace format does not change (docs/PROTOCOL.md).
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { Stamp } from './logical-clocks.ts';
import { clocksMaxBytes, clocksText, putClocks, vectorKey } from './wire-encode.ts';

/** A process's clocks after one event; `counts[slot]` is the count of the id in that slot. */
export interface LiveStamp {
  lamport: number;
  /** Absent when the lab is too large for live vector clocks. */
  counts?: number[];
}

export class LiveClocks {
  private readonly lamport = new Map<ProcessId, number>();
  private readonly vectors = new Map<ProcessId, number[]>();
  private readonly slots = new Map<ProcessId, number>();
  private slotIds: ProcessId[] = [];
  /** Slots in ascending id order, the order JSON.stringify writes integer keys in. */
  private order: number[] = [];
  /** `,"<id>":` per slot, as bytes. */
  private keys: Uint8Array[] = [];

  constructor(readonly withVectors: boolean) {}

  /** A local event at `p` (a send, a report, a crash...): tick, and return a copy of the clocks. */
  tick(p: ProcessId): LiveStamp {
    const l = this.advance(p);
    return this.withVectors ? { lamport: l, counts: this.vectorOf(p).slice() } : { lamport: l };
  }

  /** Delivery at `q` of a message stamped `m`: merge, then tick. */
  receive(q: ProcessId, m: LiveStamp): LiveStamp {
    this.merge(q, m);
    return this.tick(q);
  }

  /** The one stamp `receiveView` fills (no object per delivery). */
  private readonly view: LiveStamp = { lamport: 0, counts: undefined };

  /**
   * `receive` without copying: the stamp is one object shared by every call, holding `q`'s live
   * vector, so it is only good until the next event (the relay writes a delivery's line at once
   * and keeps nothing).
   */
  receiveView(q: ProcessId, m: LiveStamp): LiveStamp {
    this.merge(q, m);
    const view = this.view;
    view.lamport = this.advance(q);
    view.counts = this.withVectors ? this.vectorOf(q) : undefined;
    return view;
  }

  /** Ticks `p`'s own entries; returns its Lamport clock. */
  private advance(p: ProcessId): number {
    const l = (this.lamport.get(p) ?? 0) + 1;
    this.lamport.set(p, l);
    if (this.withVectors) {
      const v = this.vectorOf(p);
      const s = this.slotOf(p);
      while (v.length <= s) v.push(0);
      v[s]!++;
    }
    return l;
  }

  private merge(q: ProcessId, m: LiveStamp): void {
    const l = Math.max(this.lamport.get(q) ?? 0, m.lamport);
    this.lamport.set(q, l);
    const c = m.counts;
    if (this.withVectors && c) {
      const v = this.vectorOf(q);
      while (v.length < c.length) v.push(0);
      for (let i = 0; i < c.length; i++) if (v[i]! < c[i]!) v[i] = c[i]!;
    }
  }

  /** Puts back the clocks a process had (reloading a trace after a restart). */
  restore(p: ProcessId, s: Stamp): void {
    this.lamport.set(p, Math.max(this.lamport.get(p) ?? 0, s.lamport));
    if (!this.withVectors || !s.vector) return;
    const v: number[] = [];
    for (const k in s.vector) {
      const slot = this.slotOf(Number(k));
      while (v.length <= slot) v.push(0);
      v[slot] = s.vector[k]!;
    }
    this.vectors.set(p, v);
  }

  clear(): void {
    this.lamport.clear();
    this.vectors.clear();
    this.slots.clear();
    this.slotIds = [];
    this.order = [];
    this.keys = [];
  }

  /** The trace's form of a stamp: `{lamport, vector?}`. */
  stamp(s: LiveStamp): Stamp {
    if (!s.counts) return { lamport: s.lamport };
    const vector: Record<string, number> = {};
    for (const slot of this.order)
      if ((s.counts[slot] ?? 0) > 0) vector[String(this.slotIds[slot])] = s.counts[slot]!;
    return { lamport: s.lamport, vector };
  }

  /** `"lamport":L,"vector":{...}` as JSON.stringify writes `stamp(s)`'s fields. */
  json(s: LiveStamp): string {
    return clocksText(s.lamport, s.counts, this.order, this.keys);
  }

  /** Writes `json(s)`'s text as bytes at `at`; returns where it ends. */
  put(buf: Buffer, at: number, s: LiveStamp): number {
    return putClocks(buf, at, s.lamport, s.counts, this.order, this.keys);
  }

  /** The most bytes `put` writes in this lab as it is now. */
  get maxBytes(): number {
    return clocksMaxBytes(this.slotIds.length);
  }

  private vectorOf(p: ProcessId): number[] {
    let v = this.vectors.get(p);
    if (!v) {
      v = [];
      this.vectors.set(p, v);
    }
    return v;
  }

  private slotOf(p: ProcessId): number {
    let s = this.slots.get(p);
    if (s === undefined) {
      s = this.slotIds.length;
      this.slots.set(p, s);
      this.slotIds.push(p);
      this.keys.push(vectorKey(p));
      this.order = this.slotIds
        .map((_, i) => i)
        .sort((a, b) => this.slotIds[a]! - this.slotIds[b]!);
    }
    return s;
  }
}
