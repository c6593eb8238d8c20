// A binary min-heap of timed entries, ordered by (time, insertion sequence) so entries due at
// the same instant come out in the order they were scheduled. The simulator's virtual clock and
// the relay's single delivery timer both drain one of these.

/** Omit that distributes over a union, so each variant keeps its own fields. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface Timed {
  at: number;
  seq: number;
}

export class EventQueue<T extends Timed> {
  private heap: T[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.heap.length;
  }

  /** Assigns the entry its sequence number and inserts it. */
  push(entry: DistributiveOmit<T, 'seq'>): T {
    const e = { ...entry, seq: this.nextSeq++ } as T;
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
    return e;
  }

  peek(): T | undefined {
    return this.heap[0];
  }

  pop(): T | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }

  /** Removes every entry matching the predicate (rare operations: crash, manual drop). */
  removeWhere(pred: (e: T) => boolean): T[] {
    const removed = this.heap.filter(pred);
    if (removed.length === 0) return removed;
    const kept = this.heap.filter((e) => !pred(e));
    this.heap = [];
    for (const e of kept.sort((a, b) => (before(a, b) ? -1 : 1))) this.heap.push(e);
    return removed;
  }

  /** Entries in due order (a copy; for inspection, e.g. the relay's in-flight list). */
  toSortedArray(): T[] {
    return [...this.heap].sort((a, b) => (before(a, b) ? -1 : 1));
  }

  clear(): void {
    this.heap = [];
  }
}

function before(a: Timed, b: Timed): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
