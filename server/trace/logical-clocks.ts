// Lamport and vector clocks, kept by the relay for every process: the relay sees every send and
// every delivery, so it can stamp each event as if the processes kept the clocks themselves.
// Every event at a process ticks its own entry (ShiViz expects exactly +1 per event); a delivery
// first merges the stamp the message carried. Vector clocks cost O(ids) per merge, so a lab
// larger than `vectorLimit` ids keeps Lamport clocks only (the ShiViz export recomputes vectors
// from the trace, so it still works there).
import type { ProcessId } from '@shared/algorithms/algorithm.ts';

export interface Stamp {
  lamport: number;
  /** Only ids that have ticked; absent when the lab is too large for live vector clocks. */
  vector?: Record<string, number>;
}

export class ClockBook {
  private readonly lamport = new Map<ProcessId, number>();
  private readonly vectors = new Map<ProcessId, Record<string, number>>();

  constructor(readonly withVectors: boolean) {}

  /** A local event at `p` (a send, a report, a crash...): tick, and return a copy of the clocks. */
  tick(p: ProcessId): Stamp {
    const l = (this.lamport.get(p) ?? 0) + 1;
    this.lamport.set(p, l);
    if (!this.withVectors) return { lamport: l };
    const v = this.vectorOf(p);
    const key = String(p);
    v[key] = (v[key] ?? 0) + 1;
    return { lamport: l, vector: { ...v } };
  }

  /** Delivery at `q` of a message stamped `m`: merge, then tick. */
  receive(q: ProcessId, m: Stamp): Stamp {
    const l = Math.max(this.lamport.get(q) ?? 0, m.lamport);
    this.lamport.set(q, l);
    if (this.withVectors && m.vector) {
      const v = this.vectorOf(q);
      for (const k in m.vector) {
        const c = m.vector[k]!;
        if ((v[k] ?? 0) < c) v[k] = c;
      }
    }
    return this.tick(q);
  }

  /** Puts back the clocks a process had (reloading a trace after a restart). */
  restore(p: ProcessId, s: Stamp): void {
    this.lamport.set(p, Math.max(this.lamport.get(p) ?? 0, s.lamport));
    if (this.withVectors && s.vector) this.vectors.set(p, { ...s.vector });
  }

  clear(): void {
    this.lamport.clear();
    this.vectors.clear();
  }

  private vectorOf(p: ProcessId): Record<string, number> {
    let v = this.vectors.get(p);
    if (!v) {
      v = {};
      this.vectors.set(p, v);
    }
    return v;
  }
}
