// "Restart the job" (issue 28: the work-schedule lesson runs live): POST /api/labs/:lab/job/restart
// (token) starts the lab's work schedule again from a fresh task list while the processes keep
// the coordinator they agree on, as the simulator's run starts (003's static sharing: the
// coordinator splits the whole job up front again, tasks 0 to K-1). The trace says
// `control restart-job`; no election follows. Refused: no token, no workload, an unknown lab.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import {
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

const TASKS = 8;
const restart = (lab: string, token?: null) =>
  h.api('POST', `/api/labs/${lab}/job/restart`, undefined, { token });
const assigns = (events: TraceEvent[]) =>
  events.filter((e) => e.kind === 'send' && e.type === 'WORK_ASSIGN').length;

describe('restart the job', () => {
  it('splits the same job again from task 0, the coordinator kept and no election held', async () => {
    const lab = 'job-restart';
    const made = await h.api('POST', '/api/labs', {
      name: lab,
      size: 4,
      timing: SAFE_TIMING,
      fabric: { link: { delay: 5, jitter: 0 } },
      workload: {
        tasks: TASKS,
        size: 100,
        taskMs: 100,
        sharing: 'static',
        fencing: true,
        slow: [],
      },
    });
    expect(made.status).toBe(201);
    expect((await h.api('POST', `/api/labs/${lab}/bots`, { count: 4 })).body.started).toHaveLength(
      4,
    );
    // The first split (every task assigned once), then the coordinator everyone names.
    await waitFor(async () => assigns(await labTrace(h, lab)) >= TASKS, 15_000, 'the first split');
    const coordinatorOf = async () => {
      const ps = (await h.api('GET', `/api/labs/${lab}`)).body.processes as {
        report: { coordinator: number | null; electing: boolean } | null;
      }[];
      const named = new Set(ps.map((p) => (p.report?.electing ? -1 : p.report?.coordinator)));
      return named.size === 1 ? [...named][0] : undefined;
    };
    await waitFor(async () => (await coordinatorOf()) === 3, 15_000, 'all to name 3');

    expect((await restart(lab, null)).status).toBe(401);
    const ok = await restart(lab);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ coordinator: 3 });
    await waitFor(
      async () => {
        const t = await labTrace(h, lab);
        const from = t.findIndex((e) => e.kind === 'control' && e.action === 'restart-job');
        return from >= 0 && assigns(t.slice(from)) >= TASKS;
      },
      15_000,
      'the second split',
    );
    const trace = await labTrace(h, lab);
    const from = trace.findIndex((e) => e.kind === 'control' && e.action === 'restart-job');
    const after = trace.slice(from);
    expect(trace[from]).toMatchObject({ kind: 'control', action: 'restart-job', restart: true });
    // The new job from its start: 3 assigns task 0 first, each task once, with nobody electing.
    const split = after
      .filter((e) => e.kind === 'send' && e.type === 'WORK_ASSIGN')
      .slice(0, TASKS);
    expect(split.map((e) => (e.kind === 'send' ? e.from : -1))).toEqual(Array(TASKS).fill(3));
    expect(
      split.map((e) => (e.kind === 'send' ? Number(e.message['task']) : -1)).sort((a, b) => a - b),
    ).toEqual([...Array(TASKS).keys()]);
    expect(after.some((e) => e.kind === 'elect')).toBe(false);
    expect(after.some((e) => e.kind === 'report' && e.report.electing)).toBe(false);
  }, 40_000);

  it('is refused for a lab without a workload (409 NO_WORKLOAD) and an unknown lab (404)', async () => {
    expect((await h.api('POST', '/api/labs', { name: 'no-work', size: 3 })).status).toBe(201);
    const none = await restart('no-work');
    expect(none.status).toBe(409);
    expect(none.body).toMatchObject({ code: 'NO_WORKLOAD' });
    expect((await restart('nowhere')).body.code).toBe('UNKNOWN_LAB');
  });
});
