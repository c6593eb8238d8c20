// Issue 16, "Durable across kill -9" and "every file has a bound": the trace is a log to trust
// after a crash (etcd's WAL: a torn tail is cut at the last good record on open, sequence
// numbers only grow, start-up reads only the end), observers see only what is written, the
// instructor's state comes back, and a trace past its cap stops writing message events but
// keeps the events the checker and replay need.
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ObserverHub } from '../../server/lab/observers.ts';
import { loadTail } from '../../server/trace/trace-tail.ts';
import { connect, startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';
import { offer } from '../helpers/relay-lab.ts';

const dirs: string[] = [];
const harnesses: Harness[] = [];
afterAll(async () => {
  for (const h of harnesses) await h.close().catch(() => {});
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'durable-'));
  dirs.push(d);
  return d;
}
const lines = async (path: string) => (await readFile(path, 'utf8')).split('\n').filter(Boolean);

describe('the trace after a hard stop', () => {
  it('cuts a torn last line off at start, says so, and continues the sequence after the last whole event', async () => {
    const dataDir = await tempDir();
    const h = await startRelay({ dataDir });
    expect((await h.api('POST', '/api/labs', { name: 'torn', size: 3 })).status).toBe(201);
    await h.api('POST', '/api/labs/torn/processes/1/crash');
    await h.close({ keepData: true });
    const path = join(dataDir, 'torn.jsonl');
    const whole = await lines(path);
    const lastSeq = JSON.parse(whole.at(-1)!).seq as number;
    // A write cut short by kill -9: half an event, no newline.
    await appendFile(path, '{"seq":' + (lastSeq + 1) + ',"t":99,"kind":"rep');

    const again = await startRelay({ dataDir });
    harnesses.push(again);
    await again.api('POST', '/api/labs/torn/processes/2/crash');
    await again.relay.labs.get('torn')!.deps.store.flush();
    const after = await lines(path);
    const events = after.map((l) => JSON.parse(l)); // every line parses: nothing glued together
    const seqs = events.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(events[whole.length]).toMatchObject({ seq: lastSeq + 1, kind: 'note' });
    expect(events[whole.length].text).toMatch(/torn last line of \d+ bytes/);
    expect(events.at(-1)).toMatchObject({ kind: 'crash', node: 2 });
  });

  it('reads only the end of a long trace at start', async () => {
    const dir = await tempDir();
    const path = join(dir, 'long.jsonl');
    const chunk: string[] = [];
    for (let i = 0; i < 20_000; i++)
      chunk.push(
        JSON.stringify({
          seq: i,
          t: i,
          kind: 'send',
          msg: i + 1,
          from: 0,
          to: 1,
          type: 'HEARTBEAT',
          message: { type: 'HEARTBEAT', pad: 'x'.repeat(200) },
          lamport: i + 1,
        }),
      );
    await writeFile(path, chunk.join('\n') + '\n');
    for (let k = 1; k < 10; k++)
      await appendFile(
        path,
        chunk
          .map((l) => l.replace(/"seq":(\d+)/, (_m, s) => `"seq":${Number(s) + k * 20_000}`))
          .join('\n') + '\n',
      );
    const tail = await loadTail(path);
    expect(tail.nextSeq).toBe(200_000);
    expect(tail.nextMsg).toBe(20_001);
    expect(tail.size).toBeGreaterThan(40_000_000);
    expect(tail.bytesRead).toBeLessThanOrEqual(128 * 1024);
    expect(tail.clock?.lamport).toBe(20_000);
  });
});

describe('observers see only what is written', () => {
  it('holds a batch until the trace write it depends on has finished', async () => {
    let release: () => void = () => {};
    const written = new Promise<void>((r) => (release = r));
    const hub = new ObserverHub(
      'x',
      () => '{"type":"snapshot"}',
      {},
      () => written,
    );
    const got: string[] = [];
    hub.add({
      id: 1,
      transport: 'ws',
      sendText: (t: string) => void got.push(t),
      overloaded: () => false,
      close: () => {},
    });
    offer(hub, '{"seq":0,"kind":"crash","node":1}', false);
    hub.flush();
    await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual([]);
    release();
    await hub.drained();
    expect(got.map((t) => JSON.parse(t).type)).toEqual(['snapshot', 'events']);
  });
});

describe("the instructor's state", () => {
  it('comes back after a restart: crashed ids, the partition and the pause', async () => {
    const dataDir = await tempDir();
    const h = await startRelay({ dataDir });
    expect((await h.api('POST', '/api/labs', { name: 'kept', size: 4 })).status).toBe(201);
    await h.api('POST', '/api/labs/kept/processes/3/crash');
    await h.api('POST', '/api/labs/kept/partition', {
      groups: [
        [0, 1],
        [2, 3],
      ],
    });
    await h.api('POST', '/api/labs/kept/pause');
    await h.close({ keepData: true });

    const again = await startRelay({ dataDir });
    harnesses.push(again);
    const snap = (await again.api('GET', '/api/labs/kept')).body;
    expect(snap.paused).toBe(true);
    expect(snap.partition).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(snap.processes.find((p: { id: number }) => p.id === 3).status).toBe('crashed');
    // A process joining as 3 is told it is crashed.
    const c = await connect(again, 'ws');
    c.send({ type: 'join', lab: 'kept', id: 3 });
    expect(await c.next((f) => f.type === 'joined')).toMatchObject({ status: 'crashed' });
    await c.close();
  });
});

describe('a trace over its cap', () => {
  it('stops writing message events, keeps every other event, and says so once', async () => {
    const h = await startRelay({ traceMaxBytes: 4000 });
    harnesses.push(h);
    expect(
      (await h.api('POST', '/api/labs', { name: 'capped', size: 2, detector: 'none' })).status,
    ).toBe(201);
    const a = await connect(h, 'ws');
    a.send({ type: 'join', lab: 'capped', id: 0 });
    await a.next((f) => f.type === 'joined');
    for (let i = 0; i < 60; i++) a.send({ type: 'send', to: 1, message: { type: 'PING', i } });
    await waitFor(
      async () => (await h.api('GET', '/api/labs/capped/stats')).body.trace.lean === true,
      3000,
      'lean',
    );
    await h.api('POST', '/api/labs/capped/processes/1/crash');
    const lab = h.relay.labs.get('capped')!;
    await lab.deps.store.flush();
    const events = (await lines(lab.deps.store.path)).map((l) => JSON.parse(l));
    const notes = events.filter((e) => e.kind === 'note' && /size cap/.test(e.text));
    expect(notes).toHaveLength(1);
    const noteAt = events.indexOf(notes[0]);
    expect(events.slice(noteAt + 1).some((e) => e.kind === 'send')).toBe(false);
    expect(events.at(-1)).toMatchObject({ kind: 'crash', node: 1 });
    const stats = (await h.api('GET', '/api/labs/capped/stats')).body;
    expect(stats.trace.unrecorded).toBeGreaterThan(0);
    expect(stats.messages.sent).toBe(60);
    expect((await h.api('GET', '/api/health')).body.traces.lean).toEqual(['capped']);
    await a.close();
  });
});
