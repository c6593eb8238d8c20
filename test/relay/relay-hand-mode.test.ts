// Hand mode against a real relay (docs/RUN_A_CLASS.md): a process played by hand never sends by
// itself, the trace shows a send from it only after a click, the coach's deviations are journaled
// as their own events and counted per process, switching back to auto restarts the reference
// cleanly, and the instructor's play settings reach the tabs (on join and live).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { HandRunner } from '@shared/coach/hand-runner.ts';
import { LabProcess, wsChannel, type LabProcessEvent } from '@shared/lab-client/lab-client.ts';
import type { Play } from '@shared/protocol/lab-config.ts';
import type { ServerFrame } from '@shared/protocol/frames.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import {
  joinAs,
  labTrace,
  SAFE_TIMING,
  startRelay,
  waitFor,
  type Harness,
} from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

const TIMING = SAFE_TIMING;
const UB = 2 * TIMING.transmission + TIMING.processing;
const trace = (lab: string) => labTrace(h, lab);
const sendsFrom = (events: TraceEvent[], id: number) =>
  events.filter(
    (e): e is Extract<TraceEvent, { kind: 'send' }> => e.kind === 'send' && e.from === id,
  );

describe('hand mode at the relay', () => {
  it('sends nothing until she clicks; her click goes out as is; the coach marks what she let pass; auto restarts the reference', async () => {
    const lab = 'hand-bully';
    expect(
      (
        await h.api('POST', '/api/labs', {
          name: lab,
          algorithm: 'bully',
          ids: [1, 2, 3, 4, 5],
          timing: TIMING,
          detector: 'heartbeat',
          fabric: { link: { delay: 5 } },
        })
      ).status,
    ).toBe(201);
    let runner: HandRunner | null = null;
    const proc: LabProcess = new LabProcess({
      lab,
      id: 4,
      kind: 'human',
      channel: wsChannel(h.wsUrl, WebSocket),
    });
    proc.setMode('hand', (config, io, listener) => {
      runner = new HandRunner({
        algorithm: getAlgorithm(config.algorithm),
        io,
        listener,
        seed: config.seed,
        autoBeat: true,
        onHand: (a, d) => proc.sendHand(a, d),
      });
      return runner;
    });
    expect(await proc.start()).toBe(4);
    expect(
      (await h.api('POST', `/api/labs/${lab}/bots`, { count: 4, ids: [1, 2, 3, 5] })).status,
    ).toBeLessThan(300);
    // The bots hold their start elections; the lower ones' ELECTIONs reach her and queue.
    await waitFor(
      () => runner?.view().queue.some((q) => q.message?.type === 'ELECTION') ?? false,
      5000,
      'an ELECTION queued',
    );
    await new Promise((r) => setTimeout(r, 3 * UB));
    let events = await trace(lab);
    expect(sendsFrom(events, 4)).toEqual([]);
    expect(
      (await h.api('GET', `/api/labs/${lab}`)).body.processes.find(
        (p: { id: number }) => p.id === 4,
      ).mode,
    ).toBe('hand');

    // Its UB long past, the ELECTION's item has expired (issue 24: an OK for an election that
    // is over). She answers it all the same: exactly that OK leaves, and the relay counts her click.
    const item = runner!.view().queue.find((q) => q.message?.type === 'ELECTION')!;
    expect(item.expired).toBe('too late to matter: the election it belonged to is over');
    const ok = item.offers.find((o) => o.key.startsWith('ok-'))!;
    runner!.act(ok);
    await waitFor(
      async () => sendsFrom(await trace(lab), 4).length === 1,
      3000,
      'her OK in the trace',
    );
    events = await trace(lab);
    expect(sendsFrom(events, 4).map((e) => `${e.type}->${e.to}`)).toEqual([`OK->${item.from}`]);
    // The start election she never held, and the answers she let pass, are marked with 000/003's rules.
    await waitFor(
      async () => (await trace(lab)).some((e) => e.kind === 'deviation' && e.node === 4),
      3000,
      'a deviation journaled',
    );
    const deviations = (await trace(lab)).filter(
      (e): e is Extract<TraceEvent, { kind: 'deviation' }> => e.kind === 'deviation',
    );
    expect(deviations.every((d) => d.node === 4 && d.rule.startsWith('bully.'))).toBe(true);
    const info = (await h.api('GET', `/api/labs/${lab}`)).body.processes.find(
      (p: { id: number }) => p.id === 4,
    );
    expect(info.hand.actions).toBe(1);
    expect(info.hand.deviations).toBe(deviations.length);

    // Back to auto: the reference starts from scratch (003: "a process holds an election on
    // start"), sends by itself, and the lab agrees on 5.
    const before = sendsFrom(await trace(lab), 4).length;
    proc.setMode('auto');
    await waitFor(
      () => proc.report?.coordinator === 5 && !proc.report.electing,
      8000,
      'the reference settles on 5',
    );
    const after = sendsFrom(await trace(lab), 4);
    expect(after.length).toBeGreaterThan(before);
    expect(after.slice(before).some((e) => e.type === 'ELECTION' && e.to === 5)).toBe(true);
    expect(
      (await h.api('GET', `/api/labs/${lab}`)).body.processes.find(
        (p: { id: number }) => p.id === 4,
      ).mode,
    ).toBe('auto');
    proc.stop();
  }, 30_000);

  it('tells every process the play settings on join and live; refuses a bad body, a missing token and a malformed hand frame', async () => {
    const lab = 'hand-play';
    expect((await h.api('POST', '/api/labs', { name: lab, size: 3 })).status).toBe(201);
    const plays: Play[] = [];
    const proc = new LabProcess({
      lab,
      id: 1,
      kind: 'human',
      channel: wsChannel(h.wsUrl, WebSocket),
      onEvent: (e: LabProcessEvent) => e.kind === 'play' && plays.push(e.play),
    });
    await proc.start();
    await waitFor(() => plays.length === 1, 3000, 'play on join');
    expect(plays[0]).toEqual({ students: false, hand: [], hints: false });
    expect(
      (await h.api('PUT', `/api/labs/${lab}/play`, { students: true }, { token: null })).status,
    ).toBe(401);
    expect((await h.api('PUT', `/api/labs/${lab}/play`, { students: 'yes' })).status).toBe(400);
    const r = await h.api('PUT', `/api/labs/${lab}/play`, {
      students: true,
      hints: true,
      hand: [2, 99],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ students: true, hints: true, hand: [2] });
    await waitFor(() => plays.length === 2, 3000, 'play told live');
    expect(plays[1]).toEqual({ students: true, hints: true, hand: [2] });
    expect((await h.api('GET', `/api/labs/${lab}`)).body.config.play).toEqual({
      students: true,
      hints: true,
      hand: [2],
    });
    proc.stop();

    const { c } = await joinAs(h, 'ws', lab, 2);
    c.send({ type: 'hand', action: 'x', deviations: [{ rule: 'NOT A RULE', text: '' }] });
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'BAD_FRAME' });
    c.send({
      type: 'hand',
      action: 'x',
      deviations: Array.from({ length: 9 }, () => ({ rule: 'bully.answer', text: 't' })),
    });
    expect(await c.next((f) => f.type === 'error', 3000, c.received.length)).toMatchObject({
      code: 'BAD_FRAME',
    });
    await c.close();
  });

  it('reaches a human pace: at time scale 100 the default timing gives UB = 2T + M = 21 s in the config a tab runs with', async () => {
    const lab = 'hand-scale';
    expect(
      (await h.api('POST', '/api/labs', { name: lab, size: 3, fabric: { timeScale: 100 } })).status,
    ).toBe(201);
    const { c } = await joinAs(h, 'ws', lab, 0);
    const joined = c.received.find((r) => r.frame.type === 'joined')!.frame as Extract<
      ServerFrame,
      { type: 'joined' }
    >;
    expect(2 * joined.config.timing.transmission + joined.config.timing.processing).toBe(21_000);
    await c.close();
  });

  it("counts the checker findings that named each process (the class board's column)", async () => {
    const lab = 'hand-findings';
    const timing = {
      transmission: 20,
      processing: 5,
      heartbeatInterval: 50,
      heartbeatTimeout: 150,
    };
    expect(
      (await h.api('POST', '/api/labs', { name: lab, ids: [0, 1, 2], timing, detector: 'none' }))
        .status,
    ).toBe(201);
    const a = await joinAs(h, 'ws', lab, 1);
    const b = await joinAs(h, 'ws', lab, 2);
    // Two processes lead at once: split brain (a safety finding naming both).
    a.c.send({ type: 'report', report: { role: 'coordinator', coordinator: 1, electing: false } });
    b.c.send({ type: 'report', report: { role: 'coordinator', coordinator: 2, electing: false } });
    await waitFor(
      async () =>
        ((await h.api('GET', `/api/labs/${lab}`)).body.processes.find(
          (p: { id: number }) => p.id === 1,
        ).findings ?? 0) > 0,
      5000,
      'a finding counted',
    );
    const procs = (await h.api('GET', `/api/labs/${lab}`)).body.processes as {
      id: number;
      findings?: number;
    }[];
    expect(procs.find((p) => p.id === 2)!.findings).toBeGreaterThan(0);
    expect(procs.find((p) => p.id === 0)!.findings).toBeUndefined();
    await a.c.close();
    await b.c.close();
  });
});
