// The explorer's fingerprints, made once when a state or a pending event is created and kept
// beside it, so a world's key and a remembered step's key are a few numbers, not a string: a
// structural hash of plain data (what algorithm states and messages are), two 32-bit lanes
// combined into a 53-bit number. Object keys in insertion order, undefined properties skipped
// (as JSON would), so equal values hash equally without building a string.
import type { Message, ProcessId } from '../algorithms/algorithm.ts';

let h1 = 0;
let h2 = 0;
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function feed(v: number): void {
  h1 = Math.imul(h1 ^ v, 2654435761);
  h2 = Math.imul(h2 ^ v, 1597334677);
}

/** Strings' fingerprints: states and messages repeat the same few (keys, election ids, types). */
const strings = new Map<string, number>();

function feedString(s: string): void {
  let h = strings.get(s);
  if (h === undefined) {
    let x = 0x811c9dc5 ^ s.length;
    let y = 0x41c6ce57 ^ s.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      x = Math.imul(x ^ c, 2654435761);
      y = Math.imul(y ^ c, 1597334677);
    }
    h = finish(x, y);
    if (strings.size >= 100_000) strings.clear();
    strings.set(s, h);
  }
  feed(3);
  feed(h >>> 0);
  feed(Math.floor(h / 4294967296));
}

function walk(v: unknown): void {
  switch (typeof v) {
    case 'number':
      if ((v | 0) === v) {
        feed(1);
        feed(v);
      } else {
        f64[0] = v;
        feed(2);
        feed(u32[0]!);
        feed(u32[1]!);
      }
      return;
    case 'string':
      return feedString(v);
    case 'boolean':
      return feed(v ? 4 : 5);
    case 'object':
      if (v === null) return feed(7);
      if (Array.isArray(v)) {
        feed(8);
        feed(v.length);
        for (let i = 0; i < v.length; i++) walk(v[i] === undefined ? null : v[i]);
        return;
      }
      feed(9);
      for (const k in v) {
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined || typeof x === 'function') continue;
        feedString(k);
        walk(x);
      }
      return feed(10);
    default:
      return feed(6);
  }
}

/** A 53-bit fingerprint of a plain-data value. */
export function hashValue(v: unknown, seed = 0): number {
  h1 = 0xdeadbeef ^ seed;
  h2 = 0x41c6ce57 ^ seed;
  walk(v);
  return finish(h1, h2);
}

/** Two 32-bit lanes, avalanched into one 53-bit number (cyrb53's finish). */
function finish(a: number, b: number): number {
  a = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
  b = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  return 4294967296 * (2097151 & b) + (a >>> 0);
}

/** The key of a remembered step: (state fingerprint, event fingerprint, time, draws). */
export function memoKey(stateHash: number, sig: number, now: number, draws: number): number {
  f64[0] = now;
  let x = Math.imul((stateHash >>> 0) ^ Math.imul(sig >>> 0, 0x85ebca6b), 2654435761);
  let y = Math.imul(
    Math.floor(stateHash / 4294967296) ^ Math.imul(Math.floor(sig / 4294967296), 0xc2b2ae35),
    1597334677,
  );
  x = Math.imul(x ^ u32[0]!, 2246822507) ^ draws;
  y = Math.imul(y ^ u32[1]!, 3266489909);
  return finish(x, y);
}

export function sigOfMessage(from: ProcessId, to: ProcessId, message: Message): number {
  return hashValue(message, Math.imul(from + 1, 0x9e3779b1) ^ Math.imul(to + 1, 0x85ebca77) ^ 0x64);
}

export function sigOfTimer(node: ProcessId, name: string): number {
  return hashValue(name, Math.imul(node + 1, 0x9e3779b1) ^ 0x74);
}

export function sigOfElect(node: ProcessId, watch: boolean): number {
  return hashValue(watch ? 1 : 0, Math.imul(node + 1, 0x9e3779b1) ^ 0x65);
}
