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
  // Keys live in plain number arrays beside the entries: comparisons then never touch the
  // entries' (many-shaped) objects, which keeps the hot loop monomorphic.
  private items: T[] = [];
  private ats: number[] = [];
  private seqs: number[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.items.length;
  }

  /** Assigns the entry its sequence number and inserts it. */
  push(entry: DistributiveOmit<T, 'seq'>): T {
    const e = entry as T;
    e.seq = this.nextSeq++;
    this.items.push(e);
    this.ats.push(e.at);
    this.seqs.push(e.seq);
    this.up(this.items.length - 1);
    return e;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  pop(): T | undefined {
    const n = this.items.length;
    if (n === 0) return undefined;
    const top = this.items[0]!;
    const lastItem = this.items.pop()!;
    const lastAt = this.ats.pop()!;
    const lastSeq = this.seqs.pop()!;
    if (n > 1) {
      this.items[0] = lastItem;
      this.ats[0] = lastAt;
      this.seqs[0] = lastSeq;
      this.down(0);
    }
    return top;
  }

  /** Removes every entry matching the predicate (rare operations: crash, manual drop). */
  removeWhere(pred: (e: T) => boolean): T[] {
    const removed = this.items.filter(pred);
    if (removed.length === 0) return removed;
    const kept = this.items.filter((e) => !pred(e)).sort(compare);
    // A sorted array is a valid heap.
    this.items = kept;
    this.ats = kept.map((e) => e.at);
    this.seqs = kept.map((e) => e.seq);
    return removed;
  }

  /**
   * The `k` soonest entries in due order, in O(k log k) however large the queue: a best-first
   * walk down the heap's tree (a node's children are never due before it).
   */
  firstN(k: number): T[] {
    const out: T[] = [];
    const frontier: number[] = [];
    const before = (a: number, b: number) => this.less(a, b);
    const add = (i: number) => {
      if (i >= this.items.length) return;
      frontier.push(i);
      for (let c = frontier.length - 1; c > 0; ) {
        const p = (c - 1) >> 1;
        if (!before(frontier[c]!, frontier[p]!)) break;
        [frontier[c], frontier[p]] = [frontier[p]!, frontier[c]!];
        c = p;
      }
    };
    const take = (): number => {
      const top = frontier[0]!;
      const last = frontier.pop()!;
      if (frontier.length) {
        frontier[0] = last;
        for (let i = 0; ; ) {
          const l = 2 * i + 1;
          let m = i;
          if (l < frontier.length && before(frontier[l]!, frontier[m]!)) m = l;
          if (l + 1 < frontier.length && before(frontier[l + 1]!, frontier[m]!)) m = l + 1;
          if (m === i) break;
          [frontier[i], frontier[m]] = [frontier[m]!, frontier[i]!];
          i = m;
        }
      }
      return top;
    };
    add(0);
    while (out.length < k && frontier.length) {
      const i = take();
      out.push(this.items[i]!);
      add(2 * i + 1);
      add(2 * i + 2);
    }
    return out;
  }

  /** Entries in due order (a copy; for inspection, e.g. the relay's in-flight list). */
  toSortedArray(): T[] {
    return [...this.items].sort(compare);
  }

  clear(): void {
    this.items = [];
    this.ats = [];
    this.seqs = [];
  }

  private less(i: number, j: number): boolean {
    const a = this.ats[i]!;
    const b = this.ats[j]!;
    return a < b || (a === b && this.seqs[i]! < this.seqs[j]!);
  }

  private swap(i: number, j: number): void {
    const it = this.items[i]!;
    this.items[i] = this.items[j]!;
    this.items[j] = it;
    const at = this.ats[i]!;
    this.ats[i] = this.ats[j]!;
    this.ats[j] = at;
    const sq = this.seqs[i]!;
    this.seqs[i] = this.seqs[j]!;
    this.seqs[j] = sq;
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(l, m)) m = l;
      if (r < n && this.less(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}

function compare(a: Timed, b: Timed): number {
  return a.at - b.at || a.seq - b.seq;
}
