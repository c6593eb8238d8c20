// The instructor's per-process pause (issue 29, "pause is SIGSTOP and resume is SIGCONT"): while
// paused a process gets nothing (its messages wait in its own queue, within the lab's held caps,
// and come in order at resume), may send nothing (PROCESS_PAUSED), and is told with `paused` and
// `resumed` frames; the trace journals `pause` and `resume`; a crash or a reset ends the pause.
// Then bots over real sockets: a paused bot's timers stand still, so it starts no election while
// paused, and the others go on without it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LabProcess, wsChannel } from '@shared/lab-client/lab-client.ts';
import type { ErrorFrame } from '@shared/protocol/errors.ts';
import * as control from '../../server/lab/lab-control.ts';
import { FakeConn, manualLab, tempDir } from '../helpers/relay-lab.ts';
import {
  delivered,
  joinAs,
  labTrace,
  SAFE_TIMING,
  startRelay,
  waitFor,
  type Harness,
} from '../helpers/relay-harness.ts';

const dir = tempDir('pause-');

function pausedLab(name: string) {
  const { lab, clock } = manualLab(dir.path, name, { size: 3, delay: 10 });
  const conns = [new FakeConn(), new FakeConn(), new FakeConn()];
  conns.forEach((c, i) => expect(lab.join(c, { id: i }).ok).toBe(true));
  return { lab, clock, conns };
}

const deliveredTypes = (c: FakeConn) =>
  c.frames.flatMap((f) => (f.type === 'deliver' ? [f.message.type] : []));

describe('the relay holds a paused process', () => {
  it('holds what comes due for it, counts it, and delivers it in order after the resumed frame', () => {
    const { lab, clock, conns } = pausedLab('order');
    const r = control.pauseProcess(lab, 1);
    expect(r.ok && r.value).toMatchObject({ paused: true, held: 0, status: 'up' });
    expect(conns[1]!.frames.at(-1)).toEqual({ type: 'paused' });
    for (const type of ['A', 'B', 'C']) lab.send(lab.processes.get(0)!, 1, { type });
    lab.send(lab.processes.get(0)!, 2, { type: 'OTHER' });
    clock.advance(50);
    expect(deliveredTypes(conns[1]!)).toEqual([]);
    expect(deliveredTypes(conns[2]!)).toEqual(['OTHER']);
    expect(lab.info(lab.processes.get(1)!).held).toBe(3);
    // Counted as in flight (no deliver journaled yet) and against the lab's held caps.
    expect(lab.snapshot().inFlight).toBe(3);
    expect(lab.pausedHolds.size).toBe(3);

    const resumed = control.resumeProcess(lab, 1);
    expect(resumed.ok && resumed.value.paused).toBeUndefined();
    const after = conns[1]!.frames.slice(conns[1]!.frames.findIndex((f) => f.type === 'resumed'));
    expect(after.map((f) => (f.type === 'deliver' ? f.message.type : f.type))).toEqual([
      'resumed',
      'A',
      'B',
      'C',
    ]);
    expect(lab.pausedHolds.size).toBe(0);
    expect(lab.snapshot().inFlight).toBe(0);
  });

  it('a crash ends the pause and drops what waited (receiver-crashed); recover finds it unpaused', () => {
    const { lab, clock, conns } = pausedLab('crash');
    control.pauseProcess(lab, 2);
    lab.send(lab.processes.get(0)!, 2, { type: 'X' });
    clock.advance(50);
    control.crash(lab, 2);
    expect(lab.processes.get(2)!.paused).toBe(false);
    expect(lab.pausedHolds.size).toBe(0);
    expect(control.pauseProcess(lab, 2)).toMatchObject({
      ok: false,
      error: { code: 'PROCESS_NOT_UP' },
    });
    const rec = control.recover(lab, 2);
    expect(rec.ok && rec.value.paused).toBeUndefined();
    expect(deliveredTypes(conns[2]!)).toEqual([]);
  });

  it('reset ends every pause and drops what waited (reset)', async () => {
    const { lab, clock } = pausedLab('reset');
    control.pauseProcess(lab, 1);
    lab.send(lab.processes.get(0)!, 1, { type: 'X' });
    clock.advance(50);
    await control.reset(lab);
    expect(lab.processes.get(1)!.paused).toBe(false);
    expect(lab.pausedHolds.size).toBe(0);
  });

  it('what waits for a paused process counts towards the lab’s held cap: past it, a send is dropped as overflow', () => {
    const { lab, clock } = pausedLab('cap');
    lab.config = { ...lab.config, limits: { maxHeld: 1000, maxHeldBytes: 2 ** 20 } };
    control.pauseProcess(lab, 1);
    for (let i = 0; i < 1000; i++) lab.send(lab.processes.get(0)!, 1, { type: 'X' });
    clock.advance(50);
    expect(lab.pausedHolds.size).toBe(1000);
    lab.send(lab.processes.get(0)!, 2, { type: 'Y' });
    expect(lab.scheduler.size).toBe(0); // dropped as overflow, not held
    control.resumeProcess(lab, 1);
    lab.send(lab.processes.get(0)!, 2, { type: 'Y' });
    expect(lab.scheduler.size).toBe(1);
  });
});

describe('over REST and the sockets', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRelay();
  });
  afterAll(async () => {
    await h.close();
  });

  it('pause and resume need the token and a known id; a paused process’s send is refused; the trace journals both', async () => {
    expect(
      (
        await h.api('POST', '/api/labs', {
          name: 'rest',
          size: 3,
          detector: 'none',
          fabric: { link: { delay: 5 } },
        })
      ).status,
    ).toBe(201);
    const a = await joinAs(h, 'ws', 'rest', 0);
    const b = await joinAs(h, 'socketio', 'rest', 1);
    for (const token of [null, 'wrong-token']) {
      for (const action of ['pause', 'resume']) {
        const r = await h.api('POST', `/api/labs/rest/processes/1/${action}`, undefined, { token });
        expect(r.status).toBe(401);
        expect(r.body.code).toBe('UNAUTHORIZED');
      }
    }
    for (const bad of ['9', 'x', '-1']) {
      const r = await h.api('POST', `/api/labs/rest/processes/${bad}/pause`);
      expect([r.status, r.body.code]).toEqual([404, 'UNKNOWN_PROCESS']);
    }
    expect((await h.api('POST', '/api/labs/nowhere/processes/1/resume')).body.code).toBe(
      'UNKNOWN_LAB',
    );

    const p = await h.api('POST', '/api/labs/rest/processes/1/pause');
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ id: 1, paused: true, held: 0 });
    await b.c.next((f) => f.type === 'paused');
    // A paused process handles nothing: the instructor's elect is refused too.
    expect((await h.api('POST', '/api/labs/rest/processes/1/elect')).body.code).toBe(
      'PROCESS_NOT_UP',
    );
    a.c.send({ type: 'send', to: 1, message: { type: 'ONE' } });
    a.c.send({ type: 'send', to: 1, message: { type: 'TWO' } });
    await waitFor(
      async () => (await h.api('GET', '/api/labs/rest/processes/1')).body.held === 2,
      5000,
      'two held for 1',
    );
    b.c.send({ type: 'send', to: 0, message: { type: 'WHILE_PAUSED' }, ref: 'r1' });
    const err = await b.c.next<ErrorFrame>((f) => f.type === 'error');
    expect(err).toMatchObject({ code: 'PROCESS_PAUSED', ref: 'r1' });
    expect(delivered(b.c)).toHaveLength(0);
    const snap = (await h.api('GET', '/api/labs/rest')).body;
    expect(snap.processes[1]).toMatchObject({ status: 'up', paused: true, held: 2 });

    expect((await h.api('POST', '/api/labs/rest/processes/1/resume')).body.paused).toBeUndefined();
    await waitFor(() => delivered(b.c).length === 2, 5000, 'the held messages');
    expect(delivered(b.c).map((d) => d.frame.message.type)).toEqual(['ONE', 'TWO']);
    const trace = await labTrace(h, 'rest');
    const kinds = trace
      .filter((e) => e.kind === 'pause' || e.kind === 'resume')
      .map((e) => [e.kind, 'node' in e ? e.node : null]);
    expect(kinds).toEqual([
      ['pause', 1],
      ['resume', 1],
    ]);
    // The refused send never entered the network.
    expect(trace.some((e) => e.kind === 'send' && e.type === 'WHILE_PAUSED')).toBe(false);
    await Promise.all([a.c.close(), b.c.close()]);
  });

  it('a bot paused past the coordinator timeout starts no election while paused; the others elect without it', async () => {
    const name = 'bots';
    const ids = [1, 2, 3];
    expect(
      (
        await h.api('POST', '/api/labs', {
          name,
          algorithm: 'bully',
          ids,
          timing: SAFE_TIMING,
          detector: 'heartbeat',
          fabric: { link: { delay: 5 } },
        })
      ).status,
    ).toBe(201);
    const errors: string[] = [];
    const procs = ids.map(
      (id) =>
        new LabProcess({
          lab: name,
          id,
          kind: 'bot',
          channel: wsChannel(h.wsUrl, WebSocket),
          onEvent: (e) => e.kind === 'error' && errors.push(`${id}: ${e.error.code}`),
        }),
    );
    try {
      await Promise.all(procs.map((p) => p.start()));
      const [p1, p2] = procs as [LabProcess, LabProcess, LabProcess];
      await waitFor(
        () => procs.every((p) => p.report?.coordinator === 3 && !p.report.electing),
        15_000,
        'agreement on 3',
      );

      await h.api('POST', `/api/labs/${name}/processes/1/pause`);
      await waitFor(() => p1.status === 'paused', 5000, 'process 1 told it is paused');
      const frozen = p1.host!.timerList().map((t) => t.name);
      expect(frozen.length).toBeGreaterThan(0);
      await h.api('POST', `/api/labs/${name}/processes/3/crash`);
      // 2 notices and takes over; 1 is paused far past the heartbeat timeout (900 ms).
      await waitFor(
        () => p2.report?.coordinator === 2 && !p2.report.electing,
        15_000,
        '2 takes over',
      );
      await waitFor(
        async () => (await h.api('GET', `/api/labs/${name}/processes/1`)).body.held > 0,
        5000,
        'the COORDINATOR held for 1',
      );
      expect(p1.report).toMatchObject({ coordinator: 3, electing: false });
      expect(p1.host!.timerList().map((t) => t.name)).toEqual(frozen);

      await h.api('POST', `/api/labs/${name}/processes/1/resume`);
      await waitFor(
        () => p1.report?.coordinator === 2 && !p1.report.electing && p2.report?.coordinator === 2,
        15_000,
        '1 learns of 2 after resume',
      );
      const trace = await labTrace(h, name);
      const pausedAt = trace.find((e) => e.kind === 'pause')!.seq;
      const resumedAt = trace.find((e) => e.kind === 'resume')!.seq;
      // While paused, 1 sent nothing and reported nothing: its timers did not run.
      expect(
        trace.filter(
          (e) =>
            e.seq > pausedAt &&
            e.seq < resumedAt &&
            ((e.kind === 'send' && e.from === 1) || (e.kind === 'report' && e.node === 1)),
        ),
      ).toEqual([]);
      expect(errors.filter((e) => e.includes('PROCESS_PAUSED'))).toEqual([]);
    } finally {
      for (const p of procs) p.stop();
    }
  });
});
