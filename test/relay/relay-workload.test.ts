// The lab option `workload` (issue 27): 003's work schedule run by a live lab's processes.
// Validated at the REST boundary like every lab setting, published in the OpenAPI, and run by
// the relay's server-side bots over the election (shared/work/with-work.ts, `withWorkload`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { nodeChannel } from '@shared/lab-client/node-channel.ts';
import { startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';
import openapi from '../../docs/openapi.json' with { type: 'json' };

const TIMING = { transmission: 30, processing: 5, heartbeatInterval: 100, heartbeatTimeout: 350 };
const WORKLOAD = {
  tasks: 8,
  size: 100,
  taskMs: 50,
  sharing: 'dynamic',
  fencing: true,
  slow: [{ id: 0, factor: 3 }],
};
let h: Harness;

beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

interface Proc {
  id: number;
  status: string;
  report: { coordinator: number | null; detail?: Record<string, unknown> } | null;
}
const processes = async (lab: string) =>
  (await h.api('GET', `/api/labs/${lab}`)).body.processes as Proc[];
const byType = async (lab: string) =>
  (await h.api('GET', `/api/labs/${lab}/stats`)).body.messages.byType as Record<string, number>;

describe('lab option workload', () => {
  it('is refused when it does not fit its schema, naming the field', async () => {
    for (const bad of [
      { ...WORKLOAD, tasks: 0 },
      { ...WORKLOAD, sharing: 'fair' },
      { ...WORKLOAD, slow: [{ id: 1, factor: 0 }] },
      { ...WORKLOAD, extra: 1 },
    ]) {
      const r = await h.api('POST', '/api/labs', { name: 'bad-work', size: 3, workload: bad });
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toMatch(/workload/);
    }
  });

  it('is published in the OpenAPI document with the lab settings', () => {
    expect(JSON.stringify(openapi)).toMatch(/"workload"/);
  });

  it('server bots run the job over the election: the analyser keeps every task, the coordinator stamps its token', async () => {
    const lab = 'work-bots';
    const made = await h.api('POST', '/api/labs', {
      name: lab,
      size: 4,
      timing: TIMING,
      detector: 'heartbeat',
      fabric: { link: { delay: 5, jitter: 0 } },
      workload: WORKLOAD,
    });
    expect(made.status).toBe(201);
    expect(JSON.stringify(made.body)).toMatch(/"workload"/);
    expect((await h.api('POST', `/api/labs/${lab}/bots`, { count: 4 })).body.started).toEqual([
      0, 1, 2, 3,
    ]);
    await waitFor(
      async () => ((await byType(lab))['WORK_STORE'] ?? 0) >= WORKLOAD.tasks,
      15_000,
      'every result stored',
    );
    const procs = await processes(lab);
    expect(procs.find((p) => p.id === 3)?.report?.detail?.['work']).toBe('coordinator');
    expect(procs.find((p) => p.id === 2)?.report?.detail?.['work']).toBe('analyser');
    const types = await byType(lab);
    expect(types['WORK_ASSIGN']).toBeGreaterThanOrEqual(WORKLOAD.tasks);
    // PUT workload: null runs the election alone again (the update restarts every process).
    const off = await h.api('PUT', `/api/labs/${lab}`, { workload: null });
    expect(off.status).toBe(200);
    expect(JSON.stringify(off.body)).not.toMatch(/"workload"/);
    const sent = (await byType(lab))['WORK_ASSIGN']!;
    const alone = (p: Proc) =>
      p.report?.coordinator === 3 && p.report.detail?.['work'] === undefined;
    await waitFor(
      async () => (await processes(lab)).filter(alone).length === 4,
      10_000,
      'the election alone agreeing on 3',
    );
    expect((await byType(lab))['WORK_ASSIGN']).toBe(sent);
  });

  it('remote processes over WebSocket get the workload in their config frame and run the job', async () => {
    const lab = 'work-remote';
    expect(
      (
        await h.api('POST', '/api/labs', {
          name: lab,
          size: 3,
          timing: TIMING,
          fabric: { link: { delay: 5, jitter: 0 } },
          workload: { ...WORKLOAD, sharing: 'static', slow: [] },
        })
      ).status,
    ).toBe(201);
    const fleet = new BotFleet({ lab, channel: () => nodeChannel(h.url, 'ws'), count: 3 });
    expect((await fleet.start()).joined).toEqual([0, 1, 2]);
    // Static sharing: the coordinator 2 splits the job between 0 and 1, results go to 1.
    await waitFor(
      async () => ((await byType(lab))['WORK_RESULT'] ?? 0) >= WORKLOAD.tasks,
      15_000,
      'every result sent',
    );
    expect((await byType(lab))['WORK_ASSIGN']).toBe(WORKLOAD.tasks);
    fleet.stop();
  });
});
