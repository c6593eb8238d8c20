// Server-side bots (server/lab/bots.ts): the instructor tops up a lab from the control API.
// Issue: "POST /api/labs/:lab/bots with a count, DELETE to remove them". The bots run the same
// LabProcess as a tab over an in-process session, so they elect like any process (000: the
// highest live id becomes coordinator).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { nodeChannel } from '@shared/lab-client/node-channel.ts';
import { startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

const TIMING = { transmission: 30, processing: 5, heartbeatInterval: 100, heartbeatTimeout: 350 };
let h: Harness;

beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

/** The relay's REST API, where server/relay.ts mounts the bot routes. */
const call = (method: string, path: string, body?: unknown, token?: string | null) =>
  h.api(method, path, body, token === undefined ? {} : { token });

const coordinatorsAt = async (lab: string) =>
  (await h.api('GET', `/api/labs/${lab}/stats`)).body.coordinators as Record<string, number>;

describe('server-side bots', () => {
  it('top up a lab on the lowest free ids, elect with the remote processes, and leave on DELETE', async () => {
    const lab = 'topup';
    expect(
      (
        await h.api('POST', '/api/labs', {
          name: lab,
          size: 6,
          timing: TIMING,
          detector: 'heartbeat',
          fabric: { link: { delay: 5, jitter: 0 } },
        })
      ).status,
    ).toBe(201);
    const remote = new BotFleet({ lab, channel: () => nodeChannel(h.url, 'ws'), count: 2 });
    expect((await remote.start()).joined).toEqual([0, 1]);

    const post = await call('POST', `/api/labs/${lab}/bots`, { count: 3 });
    expect(post.status).toBe(201);
    expect(post.body).toEqual({ requested: 3, started: [2, 3, 4], refused: [] });
    await waitFor(
      async () => (await coordinatorsAt(lab))['4'] === 5,
      8000,
      'all five agreeing on 4',
    );
    const snapshot = (await h.api('GET', `/api/labs/${lab}`)).body;
    expect(
      snapshot.processes
        .filter((p: { transport: string }) => p.transport === 'server')
        .map((p: { id: number }) => p.id),
    ).toEqual([2, 3, 4]);

    // Named ids; then the lab is full.
    expect(
      (await call('POST', `/api/labs/${lab}/bots`, { count: 1, ids: [5] })).body.started,
    ).toEqual([5]);
    await waitFor(
      async () => (await coordinatorsAt(lab))['5'] === 6,
      8000,
      'all six agreeing on 5',
    );
    const full = await call('POST', `/api/labs/${lab}/bots`, { count: 1 });
    expect([full.status, full.body.code]).toEqual([409, 'LAB_FULL']);
    expect((await call('GET', `/api/labs/${lab}/bots`)).body.ids).toEqual([2, 3, 4, 5]);

    // DELETE: the server bots leave; the two remote processes elect the higher of them.
    expect((await call('DELETE', `/api/labs/${lab}/bots`)).body).toEqual({
      lab,
      stopped: [2, 3, 4, 5],
    });
    await waitFor(
      () => remote.status().agreed && remote.status().coordinator === 1,
      8000,
      'the remote pair agreeing on 1',
    );
    const after = (await h.api('GET', `/api/labs/${lab}`)).body.processes;
    expect(
      after.filter((p: { status: string }) => p.status === 'up').map((p: { id: number }) => p.id),
    ).toEqual([0, 1]);
    remote.stop();
  });

  it('a crashed server bot stops, and recovers by holding an election it wins', async () => {
    const lab = 'crashbot';
    await h.api('POST', '/api/labs', {
      name: lab,
      size: 3,
      timing: TIMING,
      detector: 'heartbeat',
      fabric: { link: { delay: 2, jitter: 0 } },
    });
    expect((await call('POST', `/api/labs/${lab}/bots`, { count: 3 })).body.started).toEqual([
      0, 1, 2,
    ]);
    await waitFor(async () => (await coordinatorsAt(lab))['2'] === 3, 8000, 'agreement on 2');
    await h.api('POST', `/api/labs/${lab}/processes/2/crash`);
    await waitFor(async () => (await coordinatorsAt(lab))['1'] === 2, 8000, 'agreement on 1');
    await h.api('POST', `/api/labs/${lab}/processes/2/recover`);
    await waitFor(async () => (await coordinatorsAt(lab))['2'] === 3, 8000, 'agreement on 2 again');
    await call('DELETE', `/api/labs/${lab}/bots`);
  });

  it('refuses without the instructor token, for unknown labs, and for ids outside the lab', async () => {
    expect((await call('POST', '/api/labs/crashbot/bots', { count: 1 }, null)).status).toBe(401);
    expect((await call('DELETE', '/api/labs/crashbot/bots', undefined, null)).status).toBe(401);
    expect((await call('POST', '/api/labs/nope/bots', { count: 1 })).body.code).toBe('UNKNOWN_LAB');
    expect((await call('POST', '/api/labs/crashbot/bots', { count: 1, ids: [99] })).body.code).toBe(
      'ID_NOT_IN_LAB',
    );
    expect((await call('POST', '/api/labs/crashbot/bots', { count: 0 })).body.code).toBe(
      'BAD_REQUEST',
    );
  });
});
