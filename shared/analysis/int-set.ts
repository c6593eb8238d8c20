// A set of numbers (message ids) that allocates only when it grows past its capacity, never on
// add or delete. The live checker adds every message at its send and deletes it at its delivery,
// a hundred thousand times a second on a busy relay. A JavaScript Set did that by making a new
// hash table for nearly every message (V8 shrinks a table that empties, and a message served at
// once leaves the set empty): one full collection of the relay found 96,098 dead tables, one per
// message since the last (docs/RELIABILITY.md, "Tail latency", fourth pass). Open addressing
// with linear probing and backward-shift deletion leaves no tombstones, so nothing is rehashed
// in place; the table grows at half full and shrinks, past 1,024 slots, at a sixteenth.

const MIN_CAPACITY = 16;
/** Past this capacity a set that has emptied to a sixteenth of it gives the memory back. */
const SHRINK_ABOVE = 1024;

export class IntSet {
  /** The keys; NaN marks an empty slot (NaN is never a key). */
  private keys = emptyTable(MIN_CAPACITY);
  /** 32 - log2(capacity): `home` keeps the hash's top bits. */
  private shift = 32 - Math.log2(MIN_CAPACITY);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Slots in the table (tests: the table grows, and shrinks back, only when it should). */
  get capacity(): number {
    return this.keys.length;
  }

  has(k: number): boolean {
    return this.find(k) >= 0;
  }

  add(k: number): void {
    if (k !== k) return;
    if ((this.count + 1) * 2 > this.keys.length) this.resize(this.keys.length * 2);
    const keys = this.keys;
    const mask = keys.length - 1;
    // One probe run: it ends at `k` (already in) or at the empty slot where `k` goes.
    let i = this.home(k);
    for (let v = keys[i]!; v === v; v = keys[i]!) {
      if (v === k) return;
      i = (i + 1) & mask;
    }
    keys[i] = k;
    this.count++;
  }

  /** Removes `k`; false when it was not there. */
  delete(k: number): boolean {
    let i = this.find(k);
    if (i < 0) return false;
    const keys = this.keys;
    const mask = keys.length - 1;
    // Backward shift: later keys of the same probe run move up into the hole, so a lookup
    // never meets an empty slot before its key.
    for (let j = (i + 1) & mask; keys[j] === keys[j]; j = (j + 1) & mask) {
      const h = this.home(keys[j]!);
      // The key at j may fill the hole at i unless its home lies cyclically in (i, j].
      const stays = i <= j ? h > i && h <= j : h > i || h <= j;
      if (!stays) {
        keys[i] = keys[j]!;
        i = j;
      }
    }
    keys[i] = NaN;
    this.count--;
    if (keys.length > SHRINK_ABOVE && this.count * 16 < keys.length) this.resize(keys.length / 2);
    return true;
  }

  clear(): void {
    this.count = 0;
    this.setTable(MIN_CAPACITY);
  }

  private find(k: number): number {
    if (k !== k) return -1;
    const keys = this.keys;
    const mask = keys.length - 1;
    for (let i = this.home(k); ; i = (i + 1) & mask) {
      const v = keys[i]!;
      if (v === k) return i;
      if (v !== v) return -1;
    }
  }

  /** Fibonacci hashing of the key's low and high 32 bits (ids are often consecutive). */
  private home(k: number): number {
    const lo = k >>> 0;
    const hi = (k / 4294967296) >>> 0;
    return Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> this.shift;
  }

  private resize(capacity: number): void {
    const old = this.keys;
    this.setTable(capacity);
    this.count = 0;
    for (let i = 0; i < old.length; i++) if (old[i] === old[i]) this.add(old[i]!);
  }

  /** An empty table of `capacity` slots (a power of two). */
  private setTable(capacity: number): void {
    this.keys = emptyTable(capacity);
    this.shift = 32 - Math.log2(capacity);
  }
}

function emptyTable(capacity: number): Float64Array {
  return new Float64Array(capacity).fill(NaN);
}
