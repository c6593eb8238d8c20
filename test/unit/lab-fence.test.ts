// The fence record (server/lab/lab-fence.ts): numbers reserved on disk before use, a newer epoch
// fencing off an older writer, a trace store that refuses to write once fenced, and a reset that
// keeps the old marks until the old trace has moved away.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fencePath, LabFence, NUMBER_BLOCK, readFence } from '../../server/lab/lab-fence.ts';
import { TraceStore } from '../../server/trace/trace-store.ts';
import { Lab } from '../../server/lab/lab.ts';
import { newLabConfig } from '../../server/lab/lab-settings.ts';
import { ManualClock } from '../helpers/manual-clock.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'fence-'));
  dirs.push(d);
  return d;
}
const noError = (e: unknown) => {
  throw e;
};

describe('the fence record', () => {
  it('reserves a block past the numbers before they are used, and settles on the exact next ones', async () => {
    const path = fencePath(await tmp(), 'l');
    const f = new LabFence(path, 0, noError);
    expect(f.reserve(10, 3)).toBe(true);
    expect(readFence(path)).toEqual({ epoch: 0, seq: 10 + NUMBER_BLOCK, msg: 3 + NUMBER_BLOCK });
    f.settle(25, 7);
    expect(readFence(path)).toEqual({ epoch: 0, seq: 25, msg: 7 });
  });

  it('fences off an older epoch: its record writes and its trace flushes are refused', async () => {
    const dir = await tmp();
    const path = fencePath(dir, 'l');
    const old = new LabFence(path, 1, noError);
    let told = 0;
    old.onFenced = () => told++;
    old.reserve(0, 1);
    const store = new TraceStore(join(dir, 'l.jsonl'), 10_000, noError);
    store.guard = () => (old.holds() ? 'write' : 'refuse');
    store.append('{"seq":0}');
    await store.flush();
    // A new owner takes the lab: its epoch is on disk before it writes anything.
    const next = new LabFence(path, 2, noError);
    next.reserve(NUMBER_BLOCK, NUMBER_BLOCK + 1);
    store.append('{"seq":1}');
    await store.flush();
    store.append('{"seq":2}');
    await store.close();
    expect(await readFile(join(dir, 'l.jsonl'), 'utf8')).toBe('{"seq":0}\n');
    expect(store.fencedBytes).toBe('{"seq":1}\n'.length);
    // The old owner's record writes change nothing; it is told once.
    expect(old.reserve(5 * NUMBER_BLOCK, 1)).toBe(false);
    old.settle(3, 2);
    expect(readFence(path)).toEqual({ epoch: 2, seq: 2 * NUMBER_BLOCK, msg: 2 * NUMBER_BLOCK + 1 });
    expect(told).toBe(1);
  });

  it("keeps the old timeline's marks through a reset until the old trace has moved", async () => {
    const path = fencePath(await tmp(), 'l');
    const f = new LabFence(path, 0, noError);
    f.reserve(50_000, 9_000);
    let rotated!: () => void;
    f.restart(new Promise<void>((r) => (rotated = r)));
    expect(f.seqLimit).toBe(NUMBER_BLOCK);
    // A kill now reopens the old trace: numbers must still start past the old marks.
    expect(readFence(path)).toEqual({
      epoch: 0,
      seq: 50_000 + NUMBER_BLOCK,
      msg: 9_000 + NUMBER_BLOCK,
    });
    rotated();
    await new Promise((r) => setTimeout(r, 10));
    expect(readFence(path)).toEqual({ epoch: 0, seq: NUMBER_BLOCK, msg: 1 + NUMBER_BLOCK });
  });

  it('makes a lab inert once a newer owner refuses its next block: no number past its block is used', async () => {
    const dir = await tmp();
    const config = newLabConfig({ name: 'l', size: 3, detector: 'none' }, () => 1);
    if (!config.ok) throw new Error('config');
    const fence = new LabFence(fencePath(dir, 'l'), 1, noError);
    const store = new TraceStore(join(dir, 'l.jsonl'), 10_000, noError);
    const lab = new Lab(config.value, {
      clock: new ManualClock(),
      store,
      fence,
      vectorLimit: 64,
      resumeGraceMs: 100,
      onError: noError,
    });
    lab.record({ kind: 'note', text: 'before' });
    // The new owner starts where the record says this relay's numbers end.
    const next = new LabFence(fencePath(dir, 'l'), 2, noError);
    const start = readFence(fencePath(dir, 'l'))!.seq;
    next.reserve(start, 1);
    for (let i = 0; i < NUMBER_BLOCK + 100; i++) lab.record({ kind: 'note', text: String(i) });
    expect(lab.inert).toBe(true);
    await store.close();
    const seqs = (await readFile(join(dir, 'l.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(seqs).toHaveLength(NUMBER_BLOCK);
    expect(Math.max(...seqs)).toBe(start - 1);
  });

  it('reads a damaged record as none, and says so', async () => {
    const path = fencePath(await tmp(), 'l');
    await writeFile(path, '{"epoch":-1,"seq":"x"}');
    const bad: unknown[] = [];
    expect(readFence(path, (e) => bad.push(e))).toBeNull();
    expect(bad).toHaveLength(1);
  });
});
