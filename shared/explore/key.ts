// The explorer's visited set: each world's 64-bit fingerprint (two 32-bit lanes), kept in an
// open-addressing table of two Uint32Arrays, so a million worlds cost 16 MB of typed array and no
// object per world. Two different worlds with one fingerprint would make the search skip one of
// them: `collisionBound` says how likely that is (the birthday bound n^2 / 2^65).
import type { Pending, World } from './world.ts';
import { hashValue } from './hash.ts';

/**
 * Returns a world's fingerprint's low 32 bits and leaves the high 32 in `hi` (no object per
 * world on the hot path).
 */
interface Keyer {
  (w: World): number;
  hi: number;
}

/**
 * A world's fingerprint: process states and pending events (times relative to now, as a
 * multiset with each message's place in its link's queue, event ids left out), the random draws
 * and the faults used. Each state's and each event's fingerprint is made once, when it is
 * created (engine.ts), so a key costs a pass over a few numbers; the pending multiset is
 * summed, so its order does not matter.
 */
export function createKeyer(): Keyer {
  const scratch: LinkScratch = { from: [], to: [], count: [], lo: 0, hi: 0 };
  const key = (w: World): number => {
    pendingLanes(w, scratch);
    // Two independent 32-bit chains over everything else, in a fixed order, each fed every field
    // (with its own constants), so the two lanes make one 64-bit fingerprint.
    let x = mix(scratch.lo, w.pending.length);
    let y = mix(scratch.hi, w.pending.length ^ 0x9e3779b9);
    const procs = w.procs;
    for (let i = 0; i < procs.length; i++) {
      const p = procs[i]!;
      const h = p.state === null ? 1 : p.hash;
      const hHi = Math.floor(h / 4294967296);
      x = mix(mix(mix(x, i), h >>> 0), hHi);
      y = mix(mix(mix(y, i ^ 0x85ebca6b), hHi ^ 0xc2b2ae35), (h >>> 0) ^ 0x27d4eb2f);
      x = mix(x, p.draws);
      y = mix(y, p.draws ^ 0x165667b1);
    }
    const u = w.used;
    const faults = u.crash | (u.drop << 8) | (u.partition << 16) | (u.slow << 24);
    const rest = (u.restart << 2) | (w.fresh ? 1 : 2);
    x = mix(mix(x, faults), rest);
    y = mix(mix(y, faults ^ 0x5bd1e995), rest ^ 0x7feb352d);
    if (w.twoLeadersSince !== null) {
      const since = 1 + Math.round((w.now - w.twoLeadersSince) * 1000);
      x = mix(x, since);
      y = mix(y, since ^ 0x846ca68b);
    }
    if (w.slow) {
      x = mix(mix(x, w.slow[0]), w.slow[1] + 1);
      y = mix(mix(y, w.slow[0] ^ 0x3c6ef372), w.slow[1] + 0x1b873593);
    }
    if (w.groups) {
      const g = hashValue(w.groups);
      x = mix(x, g);
      y = mix(y, Math.floor(g / 4294967296) ^ 0xa54ff53a);
    }
    // Each lane avalanched with the other (cyrb53's finish), so a bit of either moves both.
    x = Math.imul(x ^ (x >>> 16), 2246822507) ^ Math.imul(y ^ (y >>> 13), 3266489909);
    y = Math.imul(y ^ (y >>> 16), 2246822507) ^ Math.imul(x ^ (x >>> 13), 3266489909);
    key.hi = y >>> 0;
    return x >>> 0;
  };
  key.hi = 0;
  return key;
}

/** Scratch for the per-link ranks (links seen in this world, messages each had so far) and the two sums. */
interface LinkScratch {
  from: number[];
  to: number[];
  count: number[];
  lo: number;
  hi: number;
}

/** The pending multiset's two 32-bit sums, left in `s.lo` and `s.hi`. */
function pendingLanes(w: World, s: LinkScratch): void {
  const now = w.now;
  const pending = w.pending;
  let lo = 0;
  let hi = 0;
  // Pending events are kept in id order (each is appended when made), so a message's rank on
  // its link is the count of its link's messages before it; any other order is counted pairwise.
  let ordered = true;
  for (let i = 1; i < pending.length; i++) if (pending[i]!.id < pending[i - 1]!.id) ordered = false;
  let links = 0;
  for (let i = 0; i < pending.length; i++) {
    const p = pending[i]!;
    const what = p.sig;
    // Messages on one link arrive in order, so a message's place in its link's queue matters.
    let rank = 0;
    if (p.kind === 'deliver') {
      if (ordered) {
        let k = 0;
        while (k < links && (s.from[k] !== p.from || s.to[k] !== p.to)) k++;
        if (k === links) {
          s.from[k] = p.from;
          s.to[k] = p.to;
          s.count[k] = 0;
          links++;
        }
        rank = s.count[k]!++;
      } else rank = rankOf(pending, p);
    }
    // Times relative to now, to the microsecond, mixed in as integers; -1 for "no bound".
    const e = p.earliest === Infinity ? -1 : Math.round(Math.max(0, p.earliest - now) * 1000);
    const l = p.latest === Infinity ? -1 : Math.round(Math.max(0, p.latest - now) * 1000);
    const a = mix(mix(mix(what >>> 0, e), l), rank);
    const b = mix(mix(Math.floor(what / 4294967296), l ^ 0x5bd1e995), e ^ 0x27d4eb2f);
    lo = (lo + a) >>> 0;
    hi = (hi + b) >>> 0;
  }
  s.lo = lo;
  s.hi = hi;
}

/** A message's place in its link's queue: its link's messages with a smaller id. */
function rankOf(pending: readonly Pending[], p: Extract<Pending, { kind: 'deliver' }>): number {
  let rank = 0;
  for (const q of pending)
    if (q.kind === 'deliver' && q.id < p.id && q.from === p.from && q.to === p.to) rank++;
  return rank;
}

function mix(h: number, v: number): number {
  h = Math.imul(h ^ (v >>> 0), 2654435761);
  // v may exceed 32 bits (long timers in microseconds): fold its high part in too.
  if (v > 4294967295 || v < -2147483648) h = Math.imul(h ^ Math.floor(v / 4294967296), 1597334677);
  else h = Math.imul(h ^ (v < 0 ? -1 : 0), 1597334677);
  return (h ^ (h >>> 15)) >>> 0;
}

/**
 * The worlds seen so far, by 64-bit fingerprint: linear probing, grown at half full. Both lanes
 * of a slot sit side by side in one array (one cache line read per probe, not two).
 */
export class SeenSet {
  private slots = new Uint32Array(2 << 16);
  private mask = (1 << 16) - 1;
  size = 0;

  /** Adds the fingerprint (lo, hi); false if it was there. (0, 0) marks an empty slot, so it is stored as (1, 0). */
  add(lo: number, hi: number): boolean {
    if (lo === 0 && hi === 0) lo = 1;
    const slots = this.slots;
    let i = slot(lo, hi) & this.mask;
    for (;;) {
      const l = slots[2 * i]!;
      const h = slots[2 * i + 1]!;
      if (l === 0 && h === 0) break;
      if (l === lo && h === hi) return false;
      i = (i + 1) & this.mask;
    }
    slots[2 * i] = lo;
    slots[2 * i + 1] = hi;
    if (++this.size * 4 > slots.length) this.grow();
    return true;
  }

  /** Bytes the table holds. */
  get bytes(): number {
    return this.slots.byteLength;
  }

  private grow(): void {
    const old = this.slots;
    const slots = new Uint32Array(old.length * 2);
    this.mask = slots.length / 2 - 1;
    for (let k = 0; k < old.length; k += 2) {
      const l = old[k]!;
      const h = old[k + 1]!;
      if (l === 0 && h === 0) continue;
      let i = slot(l, h) & this.mask;
      while (slots[2 * i] !== 0 || slots[2 * i + 1] !== 0) i = (i + 1) & this.mask;
      slots[2 * i] = l;
      slots[2 * i + 1] = h;
    }
    this.slots = slots;
  }
}

function slot(lo: number, hi: number): number {
  return Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) >>> 0;
}

/**
 * The chance that two of `n` distinct worlds share a 64-bit fingerprint (so one was skipped):
 * at most n(n-1)/2 pairs, each colliding with probability 2^-64, so at most n^2 / 2^65.
 */
export function collisionBound(n: number): number {
  return Math.min(1, (n * n) / 2 ** 65);
}
