// A student's tab in code mode (docs/STUDENT_MODULES.md): it tells the relay what it runs (`mode`)
// and its latest grade (`grade`, with the failing run's trace when it fits). The relay shows both
// in GET /api/labs/:lab (the grade as `claimedGrade`: her tab's claim), journals a mode change,
// serves the trace for the class board, refuses a malformed grade, and forgets both when someone
// new takes the id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, joinAs, startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
  expect(
    (await h.api('POST', '/api/labs', { name: 'code', size: 4, algorithm: 'bully' })).status,
  ).toBe(201);
});
afterAll(async () => {
  await h.close();
});

const TRACE =
  '{"kind":"header","version":1,"source":"explorer","algorithm":"bully","ids":[0,1,2,3]}\n{"seq":0,"t":0,"kind":"crash","node":3}\n';
const summary = {
  algorithm: 'bully',
  pass: false,
  passed: 12,
  total: 13,
  failing: {
    id: 'explore',
    title: 'explorer',
    reason: 'safety broken after 2 steps: 0 and 1 both lead',
  },
};

describe('code mode at the relay', () => {
  it('keeps the mode and the latest grade per process, shows them in the lab, and serves the failing run', async () => {
    const { c, id } = await joinAs(h, 'ws', 'code', 1);
    c.send({ type: 'mode', mode: 'code' });
    c.send({ type: 'grade', summary, trace: TRACE });
    await waitFor(
      async () =>
        (await h.api('GET', '/api/labs/code')).body.processes[id].claimedGrade !== undefined,
      3000,
      'grade kept',
    );
    const p = (await h.api('GET', '/api/labs/code')).body.processes[id];
    expect(p).toMatchObject({
      mode: 'code',
      claimedGrade: { ...summary, claimed: true, trace: true, at: expect.any(Number) },
    });
    const trace = await h.api('GET', `/api/labs/code/processes/${id}/grade-trace`);
    expect(trace.status).toBe(200);
    expect(trace.text).toBe(TRACE);
    // The mode change is in the lab's trace: replay shows when her code took over.
    await waitFor(
      async () =>
        (await h.api('GET', '/api/labs/code/trace')).text.includes(
          'runs its own module (code mode)',
        ),
      3000,
      'note journaled',
    );
    expect((await h.api('GET', '/api/labs/code/processes/0/grade-trace')).status).toBe(404);
    await c.close();
  });

  it('refuses a malformed grade or mode, and one from a connection that is no process', async () => {
    const { c } = await joinAs(h, 'ws', 'code', 2);
    c.send({ type: 'grade', summary: { ...summary, passed: -1 } });
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'BAD_FRAME' });
    c.send({ type: 'mode', mode: 'telepathy' });
    expect(await c.next((f) => f.type === 'error', 3000, c.received.length)).toMatchObject({
      code: 'BAD_FRAME',
    });
    c.send({ type: 'grade', summary, trace: 'x'.repeat(12_001) });
    expect(await c.next((f) => f.type === 'error', 3000, c.received.length)).toMatchObject({
      code: 'BAD_FRAME',
    });
    await c.close();
  });

  it('forgets the mode, grade, name and kind when someone new takes the id', async () => {
    const first = await connect(h, 'ws');
    first.send({ type: 'join', lab: 'code', id: 3, name: 'Ada', kind: 'human' });
    await first.next((f) => f.type === 'joined');
    expect((await h.api('GET', '/api/labs/code')).body.processes[3]).toMatchObject({
      name: 'Ada',
      kind: 'human',
    });
    first.send({ type: 'mode', mode: 'code' });
    first.send({ type: 'grade', summary: { ...summary, pass: true, passed: 13, failing: null } });
    await waitFor(
      async () =>
        (await h.api('GET', '/api/labs/code')).body.processes[3].claimedGrade?.pass === true,
      3000,
      'grade kept',
    );
    first.send({ type: 'leave' });
    await first.next((f) => f.type === 'left');
    // She joins with no name and no kind: none of Ada's.
    const second = await connect(h, 'ws');
    second.send({ type: 'join', lab: 'code', id: 3 });
    await second.next((f) => f.type === 'joined');
    const p = (await h.api('GET', '/api/labs/code')).body.processes[3];
    expect(p.mode).toBeUndefined();
    expect(p.claimedGrade).toBeUndefined();
    expect(p.name).toBeNull();
    expect(p.kind).toBe('external');
    await first.close();
    await second.close();
  });
});
