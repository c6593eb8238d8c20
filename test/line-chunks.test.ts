// The trace's unwritten lines are held as UTF-8 bytes off the JavaScript heap (server/line-chunks.ts):
// what comes out must be exactly the lines that went in, each followed by a newline, whatever
// their characters and lengths, and a chunk handed out is never written into again.
import { describe, expect, it } from 'vitest';
import { LineChunks } from '../server/line-chunks.ts';

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
    const lines = Array.from({ length: 5000 }, (_, i) => `{"seq":${i},"message":"${'x'.repeat(i % 97)}😀"}`);
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
});
