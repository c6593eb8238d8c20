// The rules docs/PROTOCOL.md states that a process written from it alone relies on (issue 14:
// "points of PROTOCOL.md where a process written in Python from the docs alone had to guess"),
// each checked against the relay: resume tokens, the reserved id, messages during a gap,
// self-sends, reports' limits, socket.io framing, REST defaults, the JSON content type and
// `?since=` being exclusive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io } from 'socket.io-client';
import type { ServerFrame } from '@shared/protocol/frames.ts';
import {
  connect,
  joinAs,
  sleep,
  startRelay,
  TOKEN,
  waitFor,
  type Harness,
} from '../helpers/relay-harness.ts';

const GRACE_MS = 400;
let h: Harness;
beforeAll(async () => {
  h = await startRelay({ resumeGraceMs: GRACE_MS });
  expect(
    (await h.api('POST', '/api/labs', { name: 'rules', ids: [1, 2, 3, 4], detector: 'none' }))
      .status,
  ).toBe(201);
});
afterAll(async () => {
  await h.close();
});

const traceOf = async (lab: string) =>
  (await h.api('GET', `/api/labs/${lab}/trace`)).text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('resume (PROTOCOL.md, "join")', () => {
  it('keeps the token on a resume, ignores an unknown token, and reserves a dropped id for its token only', async () => {
    const a = await joinAs(h, 'ws', 'rules', 1);
    const before = Date.now();
    await a.c.close();
    // Reserved: another join for id 1 is refused as if a live process held it, and the
    // snapshot shows it absent, as a freed id.
    const other = await connect(h, 'ws');
    other.send({ type: 'join', lab: 'rules', id: 1, ref: 'x' });
    expect(await other.next((f) => f.type === 'error')).toMatchObject({
      code: 'ID_TAKEN',
      ref: 'x',
    });
    const snap = (await h.api('GET', '/api/labs/rules')).body;
    const one = snap.processes.find((p: { id: number }) => p.id === 1);
    expect(one.status).toBe('absent');
    // The roster's "since": the wall-clock time of the drop (shared/protocol/frames.ts, ProcessInfo).
    expect(one.since).toBeGreaterThanOrEqual(before);
    expect(one.since).toBeLessThanOrEqual(Date.now());

    // The token takes it back, and the same token comes back in `joined`.
    const back = await connect(h, 'ws');
    back.send({ type: 'join', lab: 'rules', id: 1, resume: a.resume });
    expect(await back.next((f) => f.type === 'joined')).toMatchObject({ id: 1, resume: a.resume });

    // An unknown token is silently ignored: a fresh join, with a new token.
    const fresh = await connect(h, 'ws');
    fresh.send({ type: 'join', lab: 'rules', resume: 'no-such-token' });
    const j = await fresh.next<Extract<ServerFrame, { type: 'joined' }>>(
      (f) => f.type === 'joined',
    );
    expect(j.id).toBe(2);
    expect(j.resume).not.toBe(a.resume);
    for (const c of [other, back, fresh]) await c.close();
  });

  it('drops messages to a process whose connection is gone as receiver-gone, and frees its id after the grace', async () => {
    const a = await joinAs(h, 'ws', 'rules', 3);
    const b = await joinAs(h, 'ws', 'rules', 4);
    await b.c.close();
    await sleep(50);
    a.c.send({ type: 'send', to: 4, message: { type: 'GAP' } });
    await waitFor(
      async () =>
        (await traceOf('rules')).some(
          (e) => e.kind === 'drop' && e.type === 'GAP' && e.reason === 'receiver-gone',
        ),
      3000,
      'the drop',
    );
    await sleep(GRACE_MS + 50);
    const c = await joinAs(h, 'ws', 'rules', 4);
    expect(c.resume).not.toBe(b.resume);
    for (const x of [a.c, c.c]) await x.close();
  });
});

describe('messages (PROTOCOL.md, "send")', () => {
  it('delivers a message a process sends to itself', async () => {
    expect(
      (await h.api('POST', '/api/labs', { name: 'self', size: 2, detector: 'none' })).status,
    ).toBe(201);
    const a = await joinAs(h, 'ws', 'self', 0);
    a.c.send({ type: 'send', to: 0, message: { type: 'ME' } });
    expect(await a.c.next((f) => f.type === 'deliver')).toMatchObject({
      from: 0,
      message: { type: 'ME' },
    });
    await a.c.close();
  });
});

describe('reports (PROTOCOL.md, "report")', () => {
  it('accepts any id in a report, and refuses an unknown field or an over-long detail value', async () => {
    const a = await joinAs(h, 'ws', 'self', 1);
    a.c.send({
      type: 'report',
      report: {
        role: 'x',
        coordinator: 999_999,
        electing: false,
        detail: { a: 1, b: 'y'.repeat(64), c: null, d: true },
      },
      ref: 1,
    });
    a.c.send({
      type: 'report',
      report: { role: 'x', coordinator: null, electing: false, extra: 1 },
      ref: 2,
    });
    a.c.send({
      type: 'report',
      report: { role: 'x', coordinator: null, electing: false, detail: { a: 'y'.repeat(65) } },
      ref: 3,
    });
    a.c.send({ type: 'report', report: { role: 'x', electing: false }, ref: 4 });
    const refused = await Promise.all(
      [2, 3, 4].map((ref) => a.c.next((f) => f.type === 'error' && f.ref === ref)),
    );
    expect(refused.map((f) => f.type === 'error' && f.code)).toEqual([
      'BAD_FRAME',
      'BAD_FRAME',
      'BAD_FRAME',
    ]);
    await waitFor(
      async () =>
        (await h.api('GET', '/api/labs/self')).body.processes[1].report?.coordinator === 999_999,
      5000,
      'the report',
    );
    expect(a.c.received.some((r) => r.frame.type === 'error' && r.frame.ref === 1)).toBe(false);
    await a.c.close();
  });
});

describe('socket.io framing (PROTOCOL.md, "Transports")', () => {
  it('reads only the first argument of a frame event and never calls an acknowledgement', async () => {
    const s = io(h.url, { transports: ['websocket'], reconnection: false, forceNew: true });
    const frames: { type: string; ref?: unknown }[] = [];
    s.on('frame', (f) => frames.push(f));
    let acked = false;
    await new Promise<void>((resolve) => s.once('connect', () => resolve()));
    s.emit(
      'frame',
      { type: 'ping', ref: 'first' },
      { type: 'ping', ref: 'second' },
      () => (acked = true),
    );
    await waitFor(() => frames.length > 0, 5000, 'pong');
    await sleep(100);
    expect(frames).toEqual([{ type: 'pong', ref: 'first' }]);
    expect(acked).toBe(false);
    s.disconnect();
  });
});

describe('REST (PROTOCOL.md, "REST API")', () => {
  it('creates a lab with the documented defaults', async () => {
    const snap = (await h.api('POST', '/api/labs', { name: 'defaults' })).body;
    expect(snap.config).toMatchObject({
      algorithm: 'bully',
      ids: [0, 1, 2, 3, 4, 5, 6, 7],
      timing: { transmission: 100, processing: 10, heartbeatInterval: 500, heartbeatTimeout: 1500 },
      detector: 'heartbeat',
      options: {},
      fabric: {
        link: { delay: 20, jitter: 0, loss: 0, duplicate: 0 },
        reorder: false,
        timeScale: 1,
      },
    });
    expect(Number.isInteger(snap.config.seed)).toBe(true);
  });

  it('refuses a body sent without the JSON content type instead of reading it as empty', async () => {
    const res = await fetch(`${h.url}/api/labs/defaults/fabric`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: '{"link":{"delay":300}}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: 'BAD_REQUEST',
      message: 'Send the body as JSON, with Content-Type: application/json',
    });
    expect((await h.api('GET', '/api/labs/defaults')).body.config.fabric.link.delay).toBe(20);
  });

  it('refuses a body over 2 MB, and gives the events after ?since=<seq>, not including it', async () => {
    const big = await h.api('POST', '/api/labs', {
      name: 'big',
      options: { pad: 'x'.repeat(2 * 1024 * 1024) },
    });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({
      code: 'FRAME_TOO_LARGE',
      message: 'Request body exceeds the size limit',
    });
    const all = await traceOf('rules');
    expect(all.length).toBeGreaterThan(3);
    const since = (await h.api('GET', '/api/labs/rules/trace?since=2')).text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).seq);
    expect(since[0]).toBe(3);
  });
});
