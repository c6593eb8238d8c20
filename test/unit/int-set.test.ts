// The live checker's set of messages in flight (shared/analysis/int-set.ts): the same answers as
// a JavaScript Set under random adds and deletes, and a table that grows and shrinks only at its
// bounds (an add and delete per message must not make a new table, which a Set does).
import { describe, expect, it } from 'vitest';
import { IntSet } from '@shared/analysis/int-set.ts';
import { createRng } from '@shared/sim/rng.ts';

describe('IntSet', () => {
  it('answers as a Set does over 200,000 random adds, deletes and lookups, keys clustered and far apart', () => {
    const rnd = createRng(11);
    const set = new IntSet();
    const ref = new Set<number>();
    // Keys in a narrow band collide and wrap around the table's end; a few are huge or negative.
    const key = (): number => {
      const r = rnd();
      if (r < 0.8) return Math.floor(rnd() * 300);
      if (r < 0.9) return 2 ** 40 + Math.floor(rnd() * 50);
      if (r < 0.95) return -Math.floor(rnd() * 20);
      return Math.floor(rnd() * 1e9);
    };
    // Disagreements are counted, not asserted one by one (200,000 expects would be most of the test's time).
    const wrong: string[] = [];
    for (let n = 0; n < 200_000; n++) {
      const k = key();
      const op = rnd();
      if (op < 0.45) {
        set.add(k);
        ref.add(k);
      } else if (op < 0.9) {
        if (set.delete(k) !== ref.delete(k)) wrong.push(`delete ${k} at ${n}`);
      } else if (set.has(k) !== ref.has(k)) wrong.push(`has ${k} at ${n}`);
      if (set.size !== ref.size) wrong.push(`size ${set.size} vs ${ref.size} at ${n}`);
    }
    for (const k of ref) if (!set.has(k)) wrong.push(`lost ${k}`);
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(ref.size).toBeGreaterThan(100);
  });

  it('adds and deletes a message at a time for 100,000 messages in the table it started with', () => {
    const set = new IntSet();
    const start = set.capacity;
    let missed = 0;
    for (let msg = 1; msg <= 100_000; msg++) {
      set.add(msg);
      if (msg > 5 && !set.delete(msg - 5)) missed++;
    }
    expect([missed, set.size]).toEqual([0, 5]);
    expect(set.capacity).toBe(start);
  });

  it('grows for a burst in flight and gives the memory back once it has drained', () => {
    const set = new IntSet();
    for (let msg = 0; msg < 50_000; msg++) set.add(msg);
    expect(set.capacity).toBeGreaterThanOrEqual(100_000);
    for (let msg = 0; msg < 50_000; msg++) expect(set.delete(msg)).toBe(true);
    expect(set.size).toBe(0);
    expect(set.capacity).toBeLessThanOrEqual(1024);
    set.add(7);
    set.clear();
    expect([set.size, set.has(7)]).toEqual([0, false]);
  });

  it('never holds NaN, and treats 0 and -0 as one key, as a Set does', () => {
    const set = new IntSet();
    set.add(NaN);
    expect([set.size, set.has(NaN), set.delete(NaN)]).toEqual([0, false, false]);
    set.add(-0);
    set.add(0);
    expect(set.size).toBe(1);
    expect(set.delete(0)).toBe(true);
  });
});
