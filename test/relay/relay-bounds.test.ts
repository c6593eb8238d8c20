// Issue 23, what bounds the relay's memory under a flood, piece by piece: the byte budgets per
// address and per lab, the trace writer's coalesced writes and its bounded backlog, and the
// observers' bounds (a batch's bytes, batches waiting for the disk, an observer that stops
// reading). test/relay/relay-load-bound.test.ts floods a relay process with all of them at once.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Socket as NetSocket } from 'node:net';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { io as ioClient } from 'socket.io-client';
import WebSocket from 'ws';
import type { Conn } from '../../server/lab/conn.ts';
import { ObserverHub } from '../../server/lab/observers.ts';
import { TraceStore } from '../../server/trace/trace-store.ts';
import { FakeConn, offer, tempDir } from '../helpers/relay-lab.ts';
import { startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

const harnesses: Harness[] = [];
afterAll(async () => {
  for (const h of harnesses) await h.close();
});
afterEach(() => vi.restoreAllMocks());

/** An in-process connection from `address`, keeping what it is sent. */
function from(h: Harness, address: string) {
  const got: { type: string; code?: string }[] = [];
  const conn: Conn = {
    id: -1,
    transport: 'server',
    address,
    sendText: (t) => void got.push(JSON.parse(t)),
    overloaded: () => false,
    close: () => {},
  };
  return { session: h.relay.session(conn), got };
}

describe('byte budgets', () => {
  const kb = { type: 'PAD', pad: 'x'.repeat(1000) };

  it('per address: connections from one address share one budget; another address has its own; one BYTES_LIMITED a second each', async () => {
    const h = await startRelay({
      bots: false,
      byteLimits: { perAddress: { rate: 100, burst: 10_000 } },
    });
    harnesses.push(h);
    expect(
      (await h.api('POST', '/api/labs', { name: 'b', size: 4, detector: 'none' })).status,
    ).toBe(201);
    const a1 = from(h, '10.0.0.1');
    const a2 = from(h, '10.0.0.1');
    const b = from(h, '10.0.0.2');
    for (const [i, c] of [a1, a2, b].entries())
      c.session.onFrame({ type: 'join', lab: 'b', id: i }, false);
    for (let i = 0; i < 20; i++)
      for (const c of [a1, a2, b]) c.session.onFrame({ type: 'send', to: 3, message: kb }, false);
    const stats = (await h.api('GET', '/api/labs/b/stats')).body;
    // 10,000 bytes of burst: nine messages of 1,015 bytes per address.
    expect(stats.messages.sent).toBe(18);
    expect(stats.refused).toEqual({ 'address-budget': 42 });
    expect((await h.api('GET', '/api/health')).body.counters['refused-address-budget']).toBe(42);
    const limited = (c: typeof a1) => c.got.filter((f) => f.code === 'BYTES_LIMITED').length;
    expect([limited(a1), limited(a2), limited(b)]).toEqual([1, 1, 1]);
  });

  it('per lab: all senders together, whatever their addresses', async () => {
    const h = await startRelay({
      bots: false,
      byteLimits: { perLab: { rate: 100, burst: 10_000 } },
    });
    harnesses.push(h);
    expect(
      (await h.api('POST', '/api/labs', { name: 'l', size: 4, detector: 'none' })).status,
    ).toBe(201);
    const senders = ['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((a) => from(h, a));
    senders.forEach((c, i) => c.session.onFrame({ type: 'join', lab: 'l', id: i }, false));
    for (let i = 0; i < 20; i++)
      for (const c of senders) c.session.onFrame({ type: 'send', to: 3, message: kb }, false);
    const stats = (await h.api('GET', '/api/labs/l/stats')).body;
    expect(stats.messages.sent).toBe(9);
    expect(stats.refused).toEqual({ 'lab-budget': 51 });
    expect(senders.map((c) => c.got.filter((f) => f.code === 'BYTES_LIMITED').length)).toEqual([
      1, 1, 1,
    ]);
  });
});

describe('trace writer', () => {
  const dir = tempDir('trace-bounds-');

  it('coalesces: lines appended while a write is under way leave in one write, not one each', async () => {
    const store = new TraceStore(join(dir.path, 'coalesce.jsonl'), 10_000);
    // Counts the store's write requests, not writev calls: the OS may split one request into
    // short writes (a loaded machine did, three writev for one request), which is not a queue.
    const writes = vi.spyOn(store as unknown as { write: (c: Buffer[]) => Promise<void> }, 'write');
    const line = 'y'.repeat(600 * 1024);
    // Each line passes the 512 KiB flush mark, so each append asks for a write.
    for (let i = 0; i < 40; i++) store.append(line);
    await store.flush();
    expect(writes.mock.calls.length).toBeLessThanOrEqual(2);
    expect((await readFile(store.path, 'utf8')).length).toBe(40 * (line.length + 1));
    await store.close();
  });

  it('a rotation while a write is queued: lines before it go to the old file before the flush resolves, lines after it to the new one', async () => {
    const store = new TraceStore(join(dir.path, 'rot.jsonl'), 10_000);
    store.append('{"seq":0}');
    const first = store.flush();
    const archived = store.rotate();
    store.append('{"seq":1}');
    await first;
    expect(await readFile(store.path, 'utf8')).toBe('{"seq":0}\n');
    const moved = await archived;
    await store.flush();
    expect([await readFile(moved!, 'utf8'), await readFile(store.path, 'utf8')]).toEqual([
      '{"seq":0}\n',
      '{"seq":1}\n',
    ]);
    await store.close();
  });

  it('is behind past maxPendingBytes until half of it is written, and overflowing past twice it', async () => {
    const store = new TraceStore(join(dir.path, 'behind.jsonl'), 10_000, () => {}, {
      maxBytes: 2 ** 30,
      maxPendingBytes: 1024 * 1024,
      writeMsPerMiB: 50,
    });
    const line = 'z'.repeat(100 * 1024);
    for (let i = 0; i < 9; i++) store.append(line);
    expect([store.behind, store.overflowing]).toEqual([false, false]);
    for (let i = 0; i < 2; i++) store.append(line);
    expect([store.behind, store.overflowing]).toEqual([true, false]);
    for (let i = 0; i < 10; i++) store.append(line);
    expect([store.behind, store.overflowing]).toEqual([true, true]);
    await store.flush();
    expect([store.backlog, store.behind, store.overflowing]).toEqual([0, false, false]);
    await store.close();
  });
});

describe('a trace behind its disk', () => {
  it('adds no event of any kind past twice the backlog bound, and names what it left out once caught up', async () => {
    const pending = 64 * 1024;
    const h = await startRelay({
      bots: false,
      rateLimits: { rate: 1e9, burst: 1e9 },
      traceMaxPendingBytes: pending,
      traceWriteMsPerMiB: 1000,
    });
    harnesses.push(h);
    expect(
      (await h.api('POST', '/api/labs', { name: 'slow', size: 2, detector: 'none' })).status,
    ).toBe(201);
    const { session, got } = from(h, '10.0.0.1');
    session.onFrame({ type: 'join', lab: 'slow', id: 0 }, false);
    for (let i = 0; i < 2000; i++)
      session.onFrame(
        {
          type: 'report',
          report: {
            role: i % 2 ? 'leader' : 'follower',
            coordinator: 0,
            electing: false,
            detail: { pad: 'r'.repeat(60) },
          },
        },
        false,
      );
    session.onFrame({ type: 'send', to: 1, message: { type: 'X' } }, false);
    const store = h.relay.labs.get('slow')!.deps.store;
    expect(store.backlog).toBeLessThanOrEqual(2 * pending + 1024);
    const stats = (await h.api('GET', '/api/labs/slow/stats')).body;
    expect(stats.trace.unwritten.report).toBeGreaterThan(1000);
    expect(stats.refused).toEqual({ 'trace-behind': 1 });
    expect(got.at(-1)).toMatchObject({ type: 'error', code: 'LAB_BUSY' });
    await waitFor(() => !store.behind, 10_000, 'the writer catching up');
    expect((await h.api('POST', '/api/labs/slow/pause')).status).toBe(200);
    await store.flush();
    const notes = (await readFile(store.path, 'utf8'))
      .split('\n')
      .filter((l) => l.includes('"kind":"note"'))
      .map((l) => (JSON.parse(l) as { text: string }).text);
    const skipped = stats.trace.unwritten.report as number;
    expect(notes.some((t) => t.startsWith('trace behind the disk'))).toBe(true);
    expect(notes.find((t) => t.startsWith('trace caught up'))).toMatch(
      new RegExp(
        `^trace caught up with the disk: ${skipped} events between seq \\d+ and \\d+ were not written$`,
      ),
    );
  });
});

describe('observer bounds', () => {
  it('a batch carries at most maxBatchBytes of message events; the rest is counted as skipped', () => {
    const hub = new ObserverHub('x', () => '{"type":"snapshot"}', { maxBatchBytes: 10_000 });
    const o = new FakeConn();
    hub.add(o);
    const line = JSON.stringify({ seq: 1, kind: 'send', pad: 'p'.repeat(980) });
    for (let i = 0; i < 100; i++) offer(hub, line, true);
    offer(hub, '{"seq":2,"kind":"crash"}', false);
    hub.flush();
    const batch = o.frames[1];
    expect(batch?.type === 'events' && [batch.events.length, batch.skipped]).toEqual([11, 90]);
  });

  it('keeps at most maxWaitingBytes of batches waiting for the disk; its observers get a snapshot after it caught up', async () => {
    let release: () => void = () => {};
    const disk = new Promise<void>((r) => (release = r));
    const dropped: string[] = [];
    const hub = new ObserverHub(
      'x',
      () => '{"type":"snapshot"}',
      { maxWaitingBytes: 55_000, onDrop: (w) => dropped.push(w) },
      () => disk,
    );
    const o = new FakeConn();
    hub.add(o);
    const line = JSON.stringify({ seq: 1, kind: 'report', pad: 'p'.repeat(980) });
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 10; i++) offer(hub, line, false);
      hub.flush();
    }
    // Five batches of 10 KB fit; fifteen were not kept.
    expect(dropped).toEqual(Array(15).fill('observer-batches-not-kept'));
    release();
    await hub.drained();
    expect(o.frames.map((f) => f.type)).toEqual([
      'snapshot',
      'events',
      'events',
      'events',
      'events',
      'events',
    ]);
    offer(hub, line, false);
    hub.flush();
    await hub.drained();
    expect(o.frames.at(-1)?.type).toBe('snapshot');
  });

  it('cuts off an observer backed up for cutOffMs: TOO_SLOW, a close with the reason, counted', () => {
    let now = 0;
    const dropped: string[] = [];
    const hub = new ObserverHub('x', () => '{"type":"snapshot"}', {
      cutOffMs: 10_000,
      now: () => now,
      onDrop: (w) => dropped.push(w),
    });
    const slow = new FakeConn();
    const fast = new FakeConn();
    hub.add(slow);
    hub.add(fast);
    slow.full = true;
    for (const t of [0, 5000, 9999]) {
      now = t;
      offer(hub, '{"kind":"send"}', true);
      hub.flush();
    }
    expect(slow.closedWith).toBeNull();
    now = 10_000;
    offer(hub, '{"kind":"send"}', true);
    hub.flush();
    expect(slow.frames.at(-1)).toMatchObject({ type: 'error', code: 'TOO_SLOW' });
    expect(slow.closedWith).toMatch(/did not read the lab's events for 10 s/);
    expect(dropped).toEqual(['observer-cut-off']);
    expect([
      hub.size,
      hub.has(fast),
      fast.frames.filter((f) => f.type === 'events').length,
    ]).toEqual([1, true, 4]);
  });

  it('forgives an observer that reads again before cutOffMs', () => {
    let now = 0;
    const hub = new ObserverHub('x', () => '{"type":"snapshot"}', {
      cutOffMs: 10_000,
      now: () => now,
    });
    const o = new FakeConn();
    hub.add(o);
    for (const [t, full] of [
      [0, true],
      [6000, false],
      [12_000, true],
      [21_000, true],
    ] as const) {
      now = t;
      o.full = full;
      offer(hub, '{"kind":"send"}', true);
      hub.flush();
    }
    expect(o.closedWith).toBeNull();
  });

  it('keeps an observer that stays backed up but reads (its backlog shrinks): it is resynchronised, not cut off', () => {
    let now = 0;
    const hub = new ObserverHub('x', () => '{"type":"snapshot"}', {
      cutOffMs: 10_000,
      now: () => now,
    });
    const slow = new FakeConn();
    const stuck = new FakeConn();
    hub.add(slow);
    hub.add(stuck);
    slow.full = stuck.full = true;
    for (let t = 0; t <= 30_000; t += 1000) {
      now = t;
      slow.backlog = 8_000_000 - t * 100; // drains 100 KB a second, never below the bound here
      stuck.backlog = 8_000_000;
      offer(hub, '{"kind":"send"}', true);
      hub.flush();
    }
    expect([slow.closedWith, stuck.closedWith !== null]).toEqual([null, true]);
    slow.full = false;
    offer(hub, '{"kind":"send"}', true);
    hub.flush();
    expect(slow.frames.at(-1)?.type).toBe('snapshot');
  });

  it('an observer backed up when a broadcast went out gets a snapshot instead, even in a quiet lab', async () => {
    const hub = new ObserverHub('x', () => '{"type":"snapshot"}', { intervalMs: 5 });
    const o = new FakeConn();
    hub.add(o);
    o.full = true;
    hub.broadcast('{"type":"fabric"}');
    o.full = false;
    // No trace event follows: the hub still serves the observer that missed a frame.
    await expect.poll(() => o.frames.map((f) => f.type)).toEqual(['snapshot', 'snapshot']);
    await hub.close();
  });
});

describe('an observer that stops reading, over either transport', () => {
  /** Observes `lab`, then stops reading its socket; returns its TCP socket (destroy it when done). */
  async function stalledObserver(
    h: Harness,
    transport: 'ws' | 'socketio',
    lab: string,
  ): Promise<NetSocket> {
    let tcp: NetSocket;
    if (transport === 'ws') {
      const ws = new WebSocket(h.wsUrl);
      ws.on('error', () => {});
      await new Promise((r) => ws.once('open', r));
      ws.send(JSON.stringify({ type: 'observe', lab }));
      await new Promise<void>((r) => ws.once('message', () => r()));
      tcp = (ws as unknown as { _socket: NetSocket })._socket;
    } else {
      const socket = ioClient(h.url, {
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
      });
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.emit('frame', { type: 'observe', lab });
      await new Promise<void>((r) => socket.once('frame', () => r()));
      tcp = (socket.io.engine.transport as unknown as { ws: { _socket: NetSocket } }).ws._socket;
    }
    tcp.pause();
    return tcp;
  }

  it.each(['ws', 'socketio'] as const)(
    'is cut off over %s once backed up for cutOffMs, and counted; the lab carries on',
    async (transport) => {
      const h = await startRelay({ bots: false, observers: { cutOffMs: 500 } });
      harnesses.push(h);
      expect(
        (await h.api('POST', '/api/labs', { name: 'o', size: 2, detector: 'none' })).status,
      ).toBe(201);
      const tcp = await stalledObserver(h, transport, 'o');
      const { session } = from(h, '10.0.0.9');
      session.onFrame({ type: 'join', lab: 'o', id: 0 }, false);
      const message = { type: 'BIG', pad: 'b'.repeat(15_000) };
      // At most 64 MiB of 15 KB messages (the lab's byte budget's burst), until the observer is cut off.
      for (let i = 0; i < 4000 && h.relay.counters.get('observer-cut-off') === 0; i++) {
        session.onFrame({ type: 'send', to: 1, message }, false);
        if (i % 20 === 0) await new Promise((r) => setTimeout(r, 5));
      }
      await waitFor(
        () => h.relay.counters.get('observer-cut-off') === 1,
        10_000,
        'the observer cut off',
      );
      expect(h.relay.labs.get('o')!.observers.size).toBe(0);
      tcp.destroy();
      expect((await h.api('GET', '/api/health')).body.ok).toBe(true);
    },
    30_000,
  );
});
