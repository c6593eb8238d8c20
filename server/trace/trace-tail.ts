// Where a lab's trace left off, read from its end only (etcd's WAL on open): a torn last line
// (a hard kill in the middle of a write) is cut off at the last complete line and reported, then
// the last lines give the next sequence number, time and message id. Start-up reads a few
// hundred KB however long the trace is.
import { open } from 'node:fs/promises';
import type { Stamp } from './logical-clocks.ts';

/** Where a reloaded trace left off. */
export interface TraceTail {
  nextSeq: number;
  lastT: number;
  nextMsg: number;
  /**
   * Every process's clocks start again from the join of the clocks in the tail: Lamport clocks
   * jump to the largest seen, vectors to the component-wise maximum, so a relay restart is a
   * point every later event happens after (never a clock that goes back). Null: no clocks yet.
   */
  clock: Stamp | null;
  /** Bytes cut off the end: a torn last line after a hard kill (0 when the file ended cleanly). */
  tornBytes: number;
  /** Bytes read to find all this (for the start-up cost). */
  bytesRead: number;
  /** File size after the repair. */
  size: number;
}

const CHUNK = 64 * 1024;
/** How far back to look for a message event (its id) before giving up on the tail alone. */
const MAX_BACK = 8 * 1024 * 1024;

interface Line {
  seq?: number;
  t?: number;
  msg?: number;
  of?: number;
  lamport?: number;
  vector?: Record<string, number>;
}

export async function loadTail(path: string): Promise<TraceTail> {
  const tail: TraceTail = {
    nextSeq: 0,
    lastT: 0,
    nextMsg: 1,
    clock: null,
    tornBytes: 0,
    bytesRead: 0,
    size: 0,
  };
  let fh;
  try {
    fh = await open(path, 'r+');
  } catch {
    return tail; // no trace yet
  }
  try {
    let size = (await fh.stat()).size;
    let end = size;
    let carry = '';
    let sawSeq = false;
    let sawMsg = false;
    let lamport = 0;
    const vector = new Map<string, number>();
    let first = true;
    while (end > 0 && !(sawSeq && sawMsg) && size - end < MAX_BACK) {
      const start = Math.max(0, end - CHUNK);
      const buf = Buffer.alloc(end - start);
      await fh.read(buf, 0, buf.length, start);
      tail.bytesRead += buf.length;
      let text = buf.toString('utf8') + carry;
      if (first) {
        first = false;
        // A file that does not end with a newline ends in a torn line: cut it off.
        const lastNl = text.lastIndexOf('\n');
        if (lastNl !== text.length - 1) {
          const keep =
            lastNl < 0 && start > 0 ? null : start + Buffer.byteLength(text.slice(0, lastNl + 1));
          if (keep !== null) {
            tail.tornBytes = size - keep;
            await fh.truncate(keep);
            size = keep;
            text = text.slice(0, lastNl + 1);
          }
        }
      }
      // The first line of a chunk may be cut; keep it for the next (earlier) chunk.
      const lines = text.split('\n');
      carry = start > 0 ? (lines.shift() ?? '') : '';
      for (const raw of lines.reverse()) {
        if (!raw) continue;
        let e: Line;
        try {
          e = JSON.parse(raw) as Line;
        } catch {
          continue;
        }
        if (typeof e.seq === 'number' && e.seq + 1 > tail.nextSeq) tail.nextSeq = e.seq + 1;
        if (typeof e.seq === 'number') sawSeq = true;
        if (typeof e.t === 'number' && e.t > tail.lastT) tail.lastT = e.t;
        if (typeof e.msg === 'number') {
          sawMsg = true;
          tail.nextMsg = Math.max(tail.nextMsg, e.msg + 1);
        }
        if (typeof e.lamport === 'number') lamport = Math.max(lamport, e.lamport);
        if (e.vector)
          for (const [k, v] of Object.entries(e.vector))
            if (typeof v === 'number') vector.set(k, Math.max(vector.get(k) ?? 0, v));
      }
      end = start;
    }
    tail.size = size;
    if (lamport > 0)
      tail.clock = { lamport, ...(vector.size ? { vector: Object.fromEntries(vector) } : {}) };
  } finally {
    await fh.close();
  }
  return tail;
}
