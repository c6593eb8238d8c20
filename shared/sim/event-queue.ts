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
    const e = this.stamp(entry);
    this.items.push(e);
    this.ats.push(e.at);
    this.seqs.push(e.seq);
    this.up(this.items.length - 1);
    return e;
  }

  /** Assigns the entry its sequence number without inserting it (one taken out at once instead). */
  stamp(entry: DistributiveOmit<T, 'seq'>): T {
    const e = entry as T;
    e.seq = this.nextSeq++;
    return e;
  }

  /** Whether an entry due at `at`, pushed now, would come out first (ties go to those already in). */
  wouldLead(at: number): boolean {
    return this.ats.length === 0 || this.ats[0]! > at;
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
      for (let c = frontier.length - 1; c > 0;) {
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
        for (let i = 0; ;) {
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

/** Entries pushed one after another for the same time, in push order, as one heap node. */
class Run<T> {
  head = 0;
  constructor(readonly items: (T | undefined)[]) {}
}

/**
 * The simulator's queue: the same order as EventQueue (by time, then insertion). Entries pushed
 * one after another for the same time form a run that sits in the heap as one node. With fixed
 * link delays a process's sends in one step share their time (a 1,000-process Bully storm holds
 * 500,000 entries in a few thousand runs), so most entries cost an array push and a read instead
 * of a sift through a deep heap. The run being pushed to stays outside the heap until an entry
 * for another time arrives; with jitter every run is a single entry and this is EventQueue.
 */
export class TimeQueue<T extends { at: number }> {
  // The heap, keys beside the nodes (as in EventQueue); a node is one entry or a Run of them.
  private items: (T | Run<T>)[] = [];
  private ats: number[] = [];
  private seqs: number[] = [];
  private nextSeq = 0;
  private count = 0;
  // The open run: entries [openHead, open.length) of `open`, all due at `openAt`.
  private open: T[] = [];
  private openHead = 0;
  private openAt = 0;
  private openSeq = 0;

  get size(): number {
    return this.count;
  }

  push(entry: T): void {
    this.count++;
    if (this.openHead < this.open.length && this.openAt === entry.at) {
      this.open.push(entry);
      return;
    }
    this.close();
    this.open.push(entry);
    this.openAt = entry.at;
    this.openSeq = this.nextSeq++;
  }

  peek(): T | undefined {
    if (this.count === 0) return undefined;
    if (this.fromOpen()) return this.open[this.openHead];
    const top = this.items[0]!;
    return top instanceof Run ? top.items[top.head] : top;
  }

  pop(): T | undefined {
    if (this.count === 0) return undefined;
    this.count--;
    if (this.fromOpen()) {
      const e = this.open[this.openHead]!;
      this.open[this.openHead++] = undefined as unknown as T;
      return e;
    }
    const top = this.items[0]!;
    if (!(top instanceof Run)) {
      this.removeTop();
      return top;
    }
    const e = top.items[top.head]!;
    top.items[top.head++] = undefined;
    if (top.head === top.items.length) this.removeTop();
    return e;
  }

  /** True when the open run's next entry comes before the heap's. */
  private fromOpen(): boolean {
    if (this.openHead >= this.open.length) return false;
    if (this.items.length === 0) return true;
    const at = this.ats[0]!;
    return this.openAt < at || (this.openAt === at && this.openSeq < this.seqs[0]!);
  }

  /** Moves what is left of the open run into the heap. */
  private close(): void {
    const left = this.open.length - this.openHead;
    if (left > 0)
      this.insert(
        left === 1
          ? this.open[this.openHead]!
          : new Run<T>(this.openHead === 0 ? this.open : this.open.slice(this.openHead)),
        this.openAt,
        this.openSeq,
      );
    this.open = [];
    this.openHead = 0;
  }

  private insert(node: T | Run<T>, at: number, seq: number): void {
    const { items, ats, seqs } = this;
    let i = items.length;
    items.push(node);
    ats.push(at);
    seqs.push(seq);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pa = ats[p]!;
      if (pa < at || (pa === at && seqs[p]! < seq)) break;
      items[i] = items[p]!;
      ats[i] = pa;
      seqs[i] = seqs[p]!;
      i = p;
    }
    items[i] = node;
    ats[i] = at;
    seqs[i] = seq;
  }

  private removeTop(): void {
    const { items, ats, seqs } = this;
    const node = items.pop()!;
    const at = ats.pop()!;
    const seq = seqs.pop()!;
    const n = items.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && (ats[r]! < ats[l]! || (ats[r] === ats[l] && seqs[r]! < seqs[l]!)) ? r : l;
      if (at < ats[m]! || (at === ats[m] && seq < seqs[m]!)) break;
      items[i] = items[m]!;
      ats[i] = ats[m]!;
      seqs[i] = seqs[m]!;
      i = m;
    }
    items[i] = node;
    ats[i] = at;
    seqs[i] = seq;
  }
}
