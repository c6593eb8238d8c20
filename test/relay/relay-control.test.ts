// Integration: the instructor's controls over REST. Pause holds messages, the in-flight list can
// be read, step delivers or drops exactly the chosen one, resume releases the rest; every change
// needs the token; reset and reconfigure restart the processes; ids and resume tokens behave as
// issue 3 states (a second live claim is refused, a resume token gets the id back).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InFlightInfo } from '@shared/protocol/frames.ts';
import {
  connect,
  delivered,
  joinAs,
  sleep,
  startRelay,
  waitFor,
  type Harness,
} from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay({ resumeGraceMs: 300 });
});
afterAll(async () => {
  await h.close();
});

const create = async (name: string, body: Record<string, unknown> = {}) => {
  const r = await h.api('POST', '/api/labs', { name, size: 4, detector: 'none', ...body });
  expect(r.status).toBe(201);
  return r.body;
};

describe('pause and step', () => {
  it('holds messages while paused; step delivers exactly the chosen one, drops another by hand; resume releases the rest', async () => {
    await create('step', { fabric: { link: { delay: 5 } } });
    const a = await joinAs(h, 'ws', 'step', 0);
    const b = await joinAs(h, 'socketio', 'step', 1);
    expect((await h.api('POST', '/api/labs/step/pause')).body.paused).toBe(true);
    for (const type of ['FIRST', 'SECOND', 'THIRD'])
      a.c.send({ type: 'send', to: 1, message: { type } });
    let held: InFlightInfo[] = [];
    await waitFor(
      async () => {
        held = (await h.api('GET', '/api/labs/step/inflight')).body.messages;
        return held.length === 3;
      },
      5000,
      'three held messages',
    );
    await sleep(40);
    expect(delivered(b.c)).toHaveLength(0);
    expect(held.map((m) => m.type)).toEqual(['FIRST', 'SECOND', 'THIRD']);

    const second = held[1]!;
    const stepped = await h.api('POST', '/api/labs/step/step', {
      msg: second.msg,
      action: 'deliver',
    });
    expect(stepped.body).toMatchObject({ msg: second.msg, outcome: 'delivered', type: 'SECOND' });
    await waitFor(() => delivered(b.c).length === 1, 5000, 'the stepped message');
    expect(delivered(b.c)[0]!.frame.msg).toBe(second.msg);

    const dropped = await h.api('POST', '/api/labs/step/step', {
      msg: held[0]!.msg,
      action: 'drop',
    });
    expect(dropped.body).toMatchObject({ outcome: 'dropped', reason: 'manual' });
    expect((await h.api('POST', '/api/labs/step/step', { msg: held[0]!.msg })).body.code).toBe(
      'NO_SUCH_MESSAGE',
    );
    await sleep(40);
    expect(delivered(b.c)).toHaveLength(1);

    await h.api('POST', '/api/labs/step/resume');
    await waitFor(() => delivered(b.c).length === 2, 5000, 'the rest after resume');
    expect(delivered(b.c).map((d) => d.frame.message.type)).toEqual(['SECOND', 'THIRD']);
    expect((await h.api('POST', '/api/labs/step/step', {})).body.code).toBe('NOT_PAUSED');
    await Promise.all([a.c.close(), b.c.close()]);
  });

  it('keeps the remaining delay of a held message across a pause', async () => {
    await create('hold', { fabric: { link: { delay: 150 } } });
    const a = await joinAs(h, 'ws', 'hold', 0);
    const b = await joinAs(h, 'ws', 'hold', 1);
    const t0 = performance.now();
    a.c.send({ type: 'send', to: 1, message: { type: 'SLOW' } });
    await sleep(50);
    await h.api('POST', '/api/labs/hold/pause');
    await sleep(200);
    await h.api('POST', '/api/labs/hold/resume');
    await waitFor(() => delivered(b.c).length === 1, 5000, 'delivery');
    // 150 ms of delay plus about 200 ms paused.
    expect(delivered(b.c)[0]!.at - t0).toBeGreaterThan(330);
    await Promise.all([a.c.close(), b.c.close()]);
  });
});

describe('authorisation', () => {
  it('refuses every control without the instructor token, and allows reads', async () => {
    await create('auth');
    const controls: [string, string, unknown?][] = [
      ['POST', '/api/labs', { name: 'sneaky' }],
      ['PUT', '/api/labs/auth', { algorithm: 'ring' }],
      ['DELETE', '/api/labs/auth'],
      ['PUT', '/api/labs/auth/fabric', { link: { loss: 1 } }],
      ['POST', '/api/labs/auth/partition', { groups: [[0], [1]] }],
      ['DELETE', '/api/labs/auth/partition'],
      ['POST', '/api/labs/auth/processes/1/crash'],
      ['POST', '/api/labs/auth/processes/1/recover'],
      ['POST', '/api/labs/auth/processes/1/elect'],
      ['POST', '/api/labs/auth/pause'],
      ['POST', '/api/labs/auth/step', {}],
      ['POST', '/api/labs/auth/resume'],
      ['POST', '/api/labs/auth/reset'],
      ['POST', '/api/labs/auth/bots', { count: 1 }],
      ['DELETE', '/api/labs/auth/bots'],
    ];
    for (const [method, path, body] of controls) {
      for (const token of [null, 'wrong-token']) {
        const r = await h.api(method, path, body, { token });
        expect(r.status, `${method} ${path} with ${token}`).toBe(401);
        expect(r.body.code).toBe('UNAUTHORIZED');
      }
    }
    const snap = await h.api('GET', '/api/labs/auth', undefined, { token: null });
    expect(snap.status).toBe(200);
    expect(snap.body.config.algorithm).toBe('bully');
    expect(snap.body.paused).toBe(false);
    expect((await h.api('GET', '/api/labs/sneaky')).status).toBe(404);
    for (const path of [
      '/api/health',
      '/api/labs',
      '/api/labs/auth/stats',
      '/api/labs/auth/trace',
      '/api/labs/auth/inflight',
      '/api/algorithms',
    ]) {
      expect((await h.api('GET', path, undefined, { token: null })).status, path).toBe(200);
    }
  });

  it('answers bad request bodies with 400 and the offending fields', async () => {
    const r = await h.api('POST', '/api/labs', { name: 'x', size: -3, bogus: true });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('BAD_REQUEST');
    expect(r.body.details.join(' ')).toMatch(/size/);
    const j = await h.api('POST', '/api/labs', '{"name": ');
    expect(j.status).toBe(400);
    expect(j.body.code).toBe('BAD_JSON');
    expect(
      (await h.api('POST', '/api/labs', { name: 'ring-bad', ids: [1, 2, 3], ring: [1, 2] })).status,
    ).toBe(400);
    expect((await h.api('POST', '/api/labs/nolab/processes/1/crash')).body.code).toBe(
      'UNKNOWN_LAB',
    );
    await create('ids');
    expect((await h.api('POST', '/api/labs/ids/processes/77/crash')).body.code).toBe(
      'UNKNOWN_PROCESS',
    );
    expect((await h.api('POST', '/api/labs/ids/processes/1/elect')).body.code).toBe(
      'PROCESS_NOT_UP',
    );
    expect((await h.api('POST', '/api/labs', { name: 'ids' })).body.code).toBe('LAB_EXISTS');
  });
});

describe('server-side bots', () => {
  it('are mounted on the relay API: POST starts them on free ids as transport "server", DELETE removes them', async () => {
    await create('botlab', { size: 3 });
    const r = await h.api('POST', '/api/labs/botlab/bots', { count: 2 });
    expect(r.status).toBe(201);
    expect(r.body.started).toEqual([0, 1]);
    const procs = (await h.api('GET', '/api/labs/botlab')).body.processes;
    expect(procs.map((p: { transport: string | null }) => p.transport)).toEqual([
      'server',
      'server',
      null,
    ]);
    expect((await h.api('DELETE', '/api/labs/botlab/bots')).body.stopped).toEqual([0, 1]);
    await waitFor(
      async () =>
        (await h.api('GET', '/api/labs/botlab')).body.processes.every(
          (p: { status: string }) => p.status === 'absent',
        ),
      5000,
      'bots gone',
    );
  });
});

describe('ids and resume tokens', () => {
  it('refuses a second live claim on an id; the resume token gets the id back after a reconnect', async () => {
    await create('claims');
    const first = await joinAs(h, 'ws', 'claims', 2);
    const rival = await connect(h, 'socketio');
    rival.send({ type: 'join', lab: 'claims', id: 2, ref: 'r1' });
    const refused = await rival.next((f) => f.type === 'error');
    expect(refused).toMatchObject({ code: 'ID_TAKEN', ref: 'r1' });
    // Next free id goes to the lowest unclaimed one.
    rival.send({ type: 'join', lab: 'claims' });
    const j = await rival.next((f) => f.type === 'joined');
    expect(j.type === 'joined' && j.id).toBe(0);

    await first.c.close();
    // Dropped, not left: the id is held for its token.
    const thief = await connect(h, 'ws');
    thief.send({ type: 'join', lab: 'claims', id: 2 });
    expect(await thief.next((f) => f.type === 'error')).toMatchObject({ code: 'ID_TAKEN' });
    const back = await connect(h, 'ws');
    back.send({ type: 'join', lab: 'claims', resume: first.resume });
    const again = await back.next((f) => f.type === 'joined');
    expect(again.type === 'joined' && again.id).toBe(2);
    await Promise.all([rival.close(), thief.close(), back.close()]);
  });

  it('frees a dropped id once the grace period is over', async () => {
    await create('grace');
    const a = await joinAs(h, 'ws', 'grace', 1);
    await a.c.close();
    await sleep(400);
    const b = await joinAs(h, 'socketio', 'grace', 1);
    expect(b.id).toBe(1);
    await b.c.close();
  });
});

describe('reset and reconfigure', () => {
  it('PUT /api/labs/:lab changes the algorithm and restarts every process with the new config', async () => {
    await create('reconf');
    const a = await joinAs(h, 'ws', 'reconf', 0);
    const b = await joinAs(h, 'socketio', 'reconf', 1);
    const r = await h.api('PUT', '/api/labs/reconf', {
      algorithm: 'ring',
      ring: [3, 2, 1, 0],
      timing: { transmission: 40 },
    });
    expect(r.status).toBe(200);
    for (const c of [a.c, b.c]) {
      const f = await c.next((f) => f.type === 'restart');
      expect(f.type === 'restart' && f.config).toMatchObject({
        algorithm: 'ring',
        ring: [3, 2, 1, 0],
        timing: { transmission: 40 },
      });
    }
    await Promise.all([a.c.close(), b.c.close()]);
  });

  it('a time scale stretches delays and the processes timing alike', async () => {
    await create('scale', { fabric: { link: { delay: 20 } }, timing: { transmission: 30 } });
    const a = await joinAs(h, 'ws', 'scale', 0);
    const b = await joinAs(h, 'ws', 'scale', 1);
    await h.api('PUT', '/api/labs/scale/fabric', { timeScale: 5 });
    const f = await a.c.next((f) => f.type === 'restart');
    expect(f.type === 'restart' && f.config.timing.transmission).toBe(150);
    const t0 = performance.now();
    a.c.send({ type: 'send', to: 1, message: { type: 'SLOW' } });
    await waitFor(() => delivered(b.c).length === 1, 5000, 'scaled delivery');
    expect(delivered(b.c)[0]!.at - t0).toBeGreaterThanOrEqual(99);
    await Promise.all([a.c.close(), b.c.close()]);
  });

  it('reset discards held messages, heals, recovers, archives the trace and starts a fresh one', async () => {
    await create('reset', { fabric: { link: { delay: 5 } } });
    const a = await joinAs(h, 'ws', 'reset', 0);
    const b = await joinAs(h, 'ws', 'reset', 1);
    await h.api('POST', '/api/labs/reset/pause');
    a.c.send({ type: 'send', to: 1, message: { type: 'HELD' } });
    await h.api('POST', '/api/labs/reset/processes/3/crash');
    await h.api('POST', '/api/labs/reset/partition', { groups: [[0], [1, 2, 3]] });
    await waitFor(
      async () => (await h.api('GET', '/api/labs/reset/inflight')).body.total === 1,
      5000,
      'held',
    );
    const r = await h.api('POST', '/api/labs/reset/reset');
    expect(r.status).toBe(200);
    expect(r.body.archived).toMatch(/^reset-.*\.jsonl$/);
    expect(r.body.snapshot).toMatchObject({ paused: false, inFlight: 0, partition: null });
    expect(r.body.snapshot.processes[3].status).toBe('absent');
    await a.c.next((f) => f.type === 'restart');
    const fresh = (await h.api('GET', '/api/labs/reset/trace')).text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(fresh[0]).toMatchObject({ seq: 0, kind: 'control', action: 'reset' });
    await sleep(30);
    expect(delivered(b.c)).toHaveLength(0);
    await Promise.all([a.c.close(), b.c.close()]);
  });
});
