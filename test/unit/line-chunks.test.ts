// The trace's unwritten lines are held as UTF-8 bytes off the JavaScript heap (server/trace/line-chunks.ts):
// what comes out must be exactly the lines that went in, each followed by a newline, whatever
// their characters and lengths, and a chunk handed out is never written into again. The trace
// store counts lines toward its cap from the moment they arrive until they are in the file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineChunks } from '../../server/trace/line-chunks.ts';
import { TraceStore } from '../../server/trace/trace-store.ts';

const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8');

describe('LineChunks', () => {
  it('gives back the lines it was given, newline-terminated, with exact byte counts', () => {
    const c = new LineChunks();
    const lines = ['{"seq":1}', 'é€😀 "quoted" \\u2028', '', '{"t":0.5,"kind":"send"}'];
    for (const l of lines) c.push(l);
    const expected = lines.map((l) => `${l}\n`).join('');
    expect(c.bytes).toBe(Buffer.byteLength(expected));
    const out = c.take();
    expect(text(out)).toBe(expected);
    expect(c.empty).toBe(true);
    expect(c.take()).toEqual([]);
  });

  it('spans many chunks, and a line longer than a chunk gets one of its own', () => {
    const c = new LineChunks();
    const lines = Array.from(
      { length: 5000 },
      (_, i) => `{"seq":${i},"message":"${'x'.repeat(i % 97)}😀"}`,
    );
    const long = 'y'.repeat(200_000);
    lines.splice(2500, 0, long);
    for (const l of lines) c.push(l);
    const out = c.take();
    expect(out.length).toBeGreaterThan(3);
    expect(text(out)).toBe(lines.map((l) => `${l}\n`).join(''));
  });

  it('never writes into a chunk it handed out', () => {
    const c = new LineChunks();
    c.push('first');
    const [handed] = c.take();
    const before = Buffer.from(handed!);
    for (let i = 0; i < 100; i++) c.push(`line ${i}`);
    expect(handed!.equals(before)).toBe(true);
    expect(text(c.take())).toBe(Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join(''));
  });

  it('fills written chunks again instead of allocating (a bounded spare list), never an oversized one', () => {
    const c = new LineChunks();
    const line = 'z'.repeat(1000);
    for (let i = 0; i < 300; i++) c.push(line);
    c.push('w'.repeat(100_000));
    const first = c.take();
    const stores = new Set(first.map((b) => b.buffer));
    c.recycle(first);
    for (let i = 0; i < 300; i++) c.push(line);
    const second = c.take();
    // Every 64 KiB chunk of the second round is one the first round wrote (the oversized one is not kept).
    expect(second.every((b) => stores.has(b.buffer))).toBe(true);
    expect(second.some((b) => b.length > 90_000)).toBe(false);
    expect(text(second)).toBe(`${line}\n`.repeat(300));
  });
});

describe('TraceStore over its cap', () => {
  it('stays lean while a write is in flight: the bytes being written still count toward the cap', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lean-'));
    try {
      const store = new TraceStore(join(dir, 'lean.jsonl'), 10_000, () => {}, { maxBytes: 100 });
      for (let i = 0; i < 10; i++)
        store.append(`{"seq":${i},"kind":"send","pad":"${'x'.repeat(10)}"}`);
      expect(store.lean).toBe(true);
      const written = store.flush();
      // The lines left the buffer for the file; the write has not landed yet.
      expect(store.lean).toBe(true);
      await written;
      expect(store.lean).toBe(true);
      expect(store.size).toBeGreaterThan(100);
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
