// Issue 16, "Every buffer has a bound, and every drop is recorded": binary socket.io frames,
// deep nesting, oversized stored messages, a paused lab flooded from several connections, a
// client that never reads, too many connections from one address, silent sockets, and browsers
// from other origins. Each is refused with a clear answer or cut off, counted, and the relay
// stays up for everyone else.
import { createConnection, type Socket as NetSocket } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { io as ioClient } from 'socket.io-client';
import WebSocket from 'ws';
import { connect, joinAs, startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

const harnesses: Harness[] = [];
afterAll(async () => {
  for (const h of harnesses) await h.close();
});
async function relay(opts: Parameters<typeof startRelay>[0] = {}): Promise<Harness> {
  const h = await startRelay(opts);
  harnesses.push(h);
  return h;
}

describe('frames the relay will not read', () => {
  it('refuses socket.io frames with binary attachments (BAD_FRAME), and closes on a large one', async () => {
    const h = await relay();
    const socket = ioClient(h.url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
    });
    const frames: { type: string; code?: string }[] = [];
    socket.on('frame', (f) => frames.push(f));
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.emit('frame', { type: 'ping', blob: Buffer.alloc(100) });
    await waitFor(() => frames.some((f) => f.code === 'BAD_FRAME'), 3000, 'BAD_FRAME');
    // One megabyte of attachment: past the socket's buffer cap, the connection goes.
    const closed = new Promise<void>((r) => socket.once('disconnect', () => r()));
    socket.emit('frame', { type: 'ping', blob: Buffer.alloc(1024 * 1024) });
    await closed;
    expect((await h.api('GET', '/api/health')).body.ok).toBe(true);
  });

  it.each(['ws', 'socketio'] as const)(
    'refuses frames nested deeper than 32 levels over %s',
    async (transport) => {
      const h = await relay();
      const c = await connect(h, transport);
      let deep: unknown = { type: 'x' };
      for (let i = 0; i < 40; i++) deep = { type: 'x', deep };
      c.send({ type: 'ping', deep });
      const err = await c.next((f) => f.type === 'error');
      expect(err).toMatchObject({
        code: 'BAD_FRAME',
        message: 'A frame nests at most 32 levels deep',
      });
      await c.close();
    },
  );

  it('measures a message as it will be stored, whatever carried it (an in-process session has no socket limit)', async () => {
    const h = await relay();
    expect(
      (await h.api('POST', '/api/labs', { name: 'big', size: 2, detector: 'none' })).status,
    ).toBe(201);
    const got: string[] = [];
    const session = h.relay.session({
      id: -1,
      transport: 'server',
      sendText: (t) => void got.push(t),
      overloaded: () => false,
      close: () => {},
    });
    session.onFrame({ type: 'join', lab: 'big', id: 0 }, false);
    session.onFrame(
      { type: 'send', to: 1, message: { type: 'BIG', pad: 'x'.repeat(20_000) } },
      false,
    );
    await waitFor(() => got.some((t) => t.includes('FRAME_TOO_LARGE')), 5000, 'FRAME_TOO_LARGE');
    expect((await h.api('GET', '/api/labs/big/stats')).body.messages.sent).toBe(0);
  });
});

describe('a paused lab flooded from several connections', () => {
  it('holds no more than its limits, drops the rest as overflow, and the instructor can raise them', async () => {
    const h = await relay({ rateLimits: { rate: 50_000, burst: 50_000 } });
    expect(
      (
        await h.api('POST', '/api/labs', {
          name: 'flood',
          size: 4,
          detector: 'none',
          limits: { maxHeld: 1000 },
        })
      ).status,
    ).toBe(201);
    await h.api('POST', '/api/labs/flood/pause');
    const heap0 = process.memoryUsage().heapUsed;
    const senders = await Promise.all([0, 1, 2].map((id) => joinAs(h, 'ws', 'flood', id)));
    const pad = 'y'.repeat(2000);
    for (const { c } of senders)
      for (let i = 0; i < 1500; i++)
        c.send({ type: 'send', to: 3, message: { type: 'FLOOD', i, pad } });
    await waitFor(
      async () => (await h.api('GET', '/api/labs/flood/stats')).body.messages.sent === 4500,
      10_000,
      'all 4,500 sends',
    );
    const stats = (await h.api('GET', '/api/labs/flood/stats')).body;
    const inflight = (await h.api('GET', '/api/labs/flood/inflight?limit=5000')).body;
    expect(inflight.total).toBe(1000);
    expect(inflight.messages).toHaveLength(1000); // capped page size
    expect(stats.drops.overflow).toBe(3500);
    // 1,000 held messages of 2 KB: the heap grew by a few MB, not by what was sent.
    expect(process.memoryUsage().heapUsed - heap0).toBeLessThan(64 * 2 ** 20);
    // Raised by the instructor: the lab takes more.
    expect((await h.api('PUT', '/api/labs/flood', { limits: { maxHeld: 2000 } })).status).toBe(200);
    senders[0]!.c.send({ type: 'send', to: 3, message: { type: 'FLOOD', i: -1 } });
    await waitFor(
      async () => (await h.api('GET', '/api/labs/flood/inflight?limit=1')).body.total === 1,
      3000,
      'one more held after raising the cap',
    );
    for (const { c } of senders) await c.close();
  });

  it('pages the in-flight list from the soonest due, without sorting the whole queue', async () => {
    const h = await relay();
    expect(
      (
        await h.api('POST', '/api/labs', {
          name: 'pages',
          size: 2,
          detector: 'none',
          fabric: { link: { delay: 1000, jitter: 500 } },
        })
      ).status,
    ).toBe(201);
    await h.api('POST', '/api/labs/pages/pause');
    const { c } = await joinAs(h, 'ws', 'pages', 0);
    for (let i = 0; i < 50; i++) c.send({ type: 'send', to: 1, message: { type: 'M', i } });
    await waitFor(
      async () => (await h.api('GET', '/api/labs/pages/inflight')).body.total === 50,
      3000,
      'held',
    );
    const all = (await h.api('GET', '/api/labs/pages/inflight?limit=50')).body.messages as {
      msg: number;
      dueIn: number;
    }[];
    const page1 = (await h.api('GET', '/api/labs/pages/inflight?limit=20')).body;
    const page2 = (await h.api('GET', `/api/labs/pages/inflight?limit=20&offset=${page1.next}`))
      .body;
    expect([...page1.messages, ...page2.messages].map((m: { msg: number }) => m.msg)).toEqual(
      all.slice(0, 40).map((m) => m.msg),
    );
    expect(all.map((m) => m.dueIn)).toEqual([...all.map((m) => m.dueIn)].sort((a, b) => a - b));
    await c.close();
  });
});

/** A raw WebSocket client that completes the handshake and then never reads again. */
function deafClient(port: number): Promise<NetSocket> {
  return new Promise((resolve, reject) => {
    const s = createConnection({ port, host: '127.0.0.1' }, () => {
      const key = randomBytes(16).toString('base64');
      s.write(
        `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
      const accept = createHash('sha1')
        .update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11')
        .digest('base64');
      s.once('data', (d) => {
        if (!d.toString().includes(accept)) return reject(new Error('no handshake'));
        s.pause(); // never read again
        resolve(s);
      });
    });
    s.on('error', () => {});
  });
}

function maskedText(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const head =
    payload.length < 126
      ? Buffer.from([0x81, 0x80 | payload.length])
      : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 255]);
  const body = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) body[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([head, mask, body]);
}

describe('a client that never reads', () => {
  it('is cut off once what the relay owes it passes the bound, and its memory goes with it', async () => {
    const h = await relay({
      maxBacklogBytes: 64 * 1024,
      rateLimits: { rate: 100_000, burst: 100_000 },
    });
    const port = new URL(h.url).port;
    const s = await deafClient(Number(port));
    const closed = new Promise<void>((r) => s.once('close', () => r()));
    // Each bad frame earns an error answer with the paths of its mistakes.
    const bad = maskedText(
      JSON.stringify({
        type: 'join',
        lab: 1,
        id: 'x',
        name: 5,
        kind: 'robot',
        resume: 7,
        ref: [],
        extra: 1,
        more: 2,
      }),
    );
    for (let i = 0; i < 20_000 && !s.destroyed; i++) s.write(bad);
    await waitFor(
      async () => (await h.api('GET', '/api/health')).body.counters['cut-off'] >= 1,
      15_000,
      'cut off',
    );
    s.resume();
    await Promise.race([closed, new Promise((r) => setTimeout(r, 3000))]);
    expect((await h.api('GET', '/api/health')).body.connections.ws).toBe(0);
    s.destroy();
  }, 30_000);
});

describe('a peer that closes in the same breath', () => {
  it('frames it was owed after its close frame are not written after the close (RFC 6455, 5.5.1) but counted as frames-to-gone-peer', async () => {
    const h = await relay();
    const port = Number(new URL(h.url).port);
    const s = await deafClient(port);
    s.resume();
    const closed = new Promise<void>((r) => s.once('close', () => r()));
    // Three bad frames (each earns an error answer) and a close frame, in one write: the relay
    // reads them in one go and the answers are still queued when the close comes.
    const bad = maskedText(JSON.stringify({ type: 'join', lab: 1 }));
    const close = Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]);
    s.write(Buffer.concat([bad, bad, bad, close]));
    await Promise.race([closed, new Promise((r) => setTimeout(r, 3000))]);
    s.destroy();
    await waitFor(
      async () => (await h.api('GET', '/api/health')).body.counters['frames-to-gone-peer'] === 3,
      3000,
      'three frames counted',
    );
  });
});

describe('connections', () => {
  it('caps connections from one address and reaps silent ones, while others are served', async () => {
    const h = await relay({ net: { maxConnectionsPerIp: 20, firstRequestMs: 400 } });
    const port = Number(new URL(h.url).port);
    const sockets: NetSocket[] = [];
    const closedAt: number[] = [];
    const t0 = Date.now();
    for (let i = 0; i < 30; i++) {
      const s = createConnection({ port, host: '127.0.0.1', localAddress: '127.0.0.2' });
      s.on('error', () => {});
      s.on('close', () => closedAt.push(Date.now() - t0));
      sockets.push(s);
    }
    // Another address is served at once.
    expect((await h.api('GET', '/api/health')).status).toBe(200);
    await waitFor(() => closedAt.length === 30, 5000, 'every silent socket closed');
    expect((await h.api('GET', '/api/health')).body.counters['connections-refused-per-ip']).toBe(
      10,
    );
    expect((await h.api('GET', '/api/health')).body.counters['connections-timed-out']).toBe(20);
    expect(Math.max(...closedAt)).toBeLessThan(3000);
  });

  it('lets browsers from other origins do nothing, and processes without an Origin everything', async () => {
    const h = await relay();
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(h.wsUrl, { headers: { Origin: 'http://evil.example' } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => {});
    });
    expect(refused).toBe(403);
    const local = new WebSocket(h.wsUrl, { headers: { Origin: 'http://localhost:5173' } });
    await new Promise((r, j) => (local.once('open', r), local.once('error', j)));
    local.close();
    const sio = ioClient(h.url, {
      transports: ['polling'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { Origin: 'http://evil.example' },
    });
    await new Promise<void>((r) => sio.once('connect_error', () => r()));
    sio.close();
    const post = await fetch(`${h.url}/api/labs`, {
      method: 'POST',
      headers: {
        Origin: 'http://evil.example',
        'content-type': 'application/json',
        authorization: 'Bearer test-token-0123',
      },
      body: '{"name":"x"}',
    });
    expect(post.status).toBe(403);
    expect(((await post.json()) as { code: string }).code).toBe('ORIGIN_NOT_ALLOWED');
    expect((await h.api('POST', '/api/labs', { name: 'no-origin', size: 2 })).status).toBe(201);
  });

  it('takes ALLOWED_ORIGINS instead of localhost when it is set', async () => {
    const h = await relay({ net: { allowedOrigins: ['https://class.example'] } });
    const status = (origin: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(h.wsUrl, { headers: { Origin: origin } });
        ws.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => (ws.close(), resolve(101)));
        ws.on('error', () => {});
      });
    expect(await status('https://class.example')).toBe(101);
    expect(await status('http://localhost:5173')).toBe(403);
    expect(await status(h.url)).toBe(101); // its own origin, always
  });
});
