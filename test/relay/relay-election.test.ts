// Integration: full elections through the relay, with processes split between socket.io and raw
// WebSocket, each running the real algorithm in shared/lab-client/lab-client.ts's LabProcess with real
// timers. Issue 3: "a full Bully and Ring election across mixed socket.io and raw WebSocket
// processes elects the highest live id". Then the coordinator is crashed over REST and the
// survivors elect the next highest (000: "the process with the highest id becomes coordinator").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import type { AlgorithmName } from '@shared/algorithms/algorithm.ts';
import {
  LabProcess,
  socketIoChannel,
  wsChannel,
  type LabProcessEvent,
} from '@shared/lab-client/lab-client.ts';
import { SAFE_TIMING, startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

const TIMING = SAFE_TIMING;
const SETTLE_MS = 15_000;

async function runLab(
  name: string,
  algorithm: AlgorithmName,
  ids: number[],
  onEvent?: (id: number, e: LabProcessEvent) => void,
): Promise<LabProcess[]> {
  const r = await h.api('POST', '/api/labs', {
    name,
    algorithm,
    ids,
    timing: TIMING,
    detector: 'heartbeat',
    fabric: { link: { delay: 5, jitter: 5 } },
  });
  expect(r.status).toBe(201);
  const procs = ids.map(
    (id, i) =>
      new LabProcess({
        lab: name,
        id,
        kind: 'bot',
        onEvent: (e) => onEvent?.(id, e),
        channel: i % 2 === 0 ? wsChannel(h.wsUrl, WebSocket) : socketIoChannel(h.url),
      }),
  );
  expect(await Promise.all(procs.map((p) => p.start()))).toEqual(ids);
  return procs;
}

const agreeOn = (procs: LabProcess[], leader: number) =>
  procs.every((p) => p.report?.coordinator === leader && !p.report.electing);

async function relayAgrees(name: string, leader: number, live: number): Promise<boolean> {
  const s = (await h.api('GET', `/api/labs/${name}/stats`)).body;
  return s.coordinators[String(leader)] === live && s.processes.up === live;
}

describe.each(['bully', 'ring'] as const)('%s election through the relay', (algorithm) => {
  it('elects the highest live id across mixed transports, then the next highest after a crash', async () => {
    const name = `elect-${algorithm}`;
    const ids = [3, 7, 12, 20, 31, 44];
    const procs = await runLab(name, algorithm, ids);
    const transports = (await h.api('GET', `/api/labs/${name}`)).body.processes.map(
      (p: { transport: string }) => p.transport,
    );
    expect(new Set(transports)).toEqual(new Set(['ws', 'socketio']));

    await waitFor(() => agreeOn(procs, 44), SETTLE_MS, 'agreement on 44');
    await waitFor(() => relayAgrees(name, 44, 6), 5000, 'the relay to see the reports');

    expect((await h.api('POST', `/api/labs/${name}/processes/44/crash`)).status).toBe(200);
    const survivors = procs.filter((p) => p.id !== 44);
    await waitFor(() => procs[5]!.status === 'crashed', 5000, 'the crashed frame');
    await waitFor(() => agreeOn(survivors, 31), SETTLE_MS, 'agreement on 31');
    await waitFor(() => relayAgrees(name, 31, 5), 5000, 'the relay to see the new coordinator');
    const stats = (await h.api('GET', `/api/labs/${name}/stats`)).body;
    expect(stats.election.duration).toBeGreaterThan(0);
    expect(stats.election.messages).toBeGreaterThan(0);

    // Recovery: the recovered process restarts from scratch and, being highest, takes over again.
    await h.api('POST', `/api/labs/${name}/processes/44/recover`);
    await waitFor(() => agreeOn(procs, 44), SETTLE_MS, 'agreement on 44 after recovery');
    for (const p of procs) p.stop();
  }, 60_000);
});

describe('reconnecting', () => {
  it('a LabProcess whose connection drops rejoins with its resume token and keeps its id, over both transports', async () => {
    // Every WebSocket (raw or socket.io) starts as an HTTP upgrade: remember those sockets to cut them.
    const sockets = new Set<Duplex>();
    const track = (_req: unknown, s: Duplex) => sockets.add(s);
    h.relay.server.on('upgrade', track);
    const statuses: Record<number, string[]> = { 5: [], 6: [] };
    const procs = await runLab(
      'reconnect',
      'bully',
      [5, 6],
      (id, e) => e.kind === 'status' && statuses[id]!.push(e.status),
    );
    await waitFor(() => agreeOn(procs, 6), SETTLE_MS, 'agreement on 6');
    const before = { 5: statuses[5]!.length, 6: statuses[6]!.length };
    for (const s of sockets) s.destroy();
    const back = (id: 5 | 6) => {
      const seen = statuses[id]!.slice(before[id]);
      return seen.includes('connecting') && seen.at(-1) === 'up';
    };
    await waitFor(() => back(5) && back(6), SETTLE_MS, 'both back');
    expect(procs.map((p) => p.id)).toEqual([5, 6]);
    await waitFor(() => agreeOn(procs, 6), SETTLE_MS, 'agreement on 6 again');
    const trace = (await h.api('GET', '/api/labs/reconnect/trace')).text;
    // Either the relay saw the drop first (leave, then join again) or the resume took over the stale connection (neither).
    for (const id of [5, 6]) {
      const joins = trace.match(new RegExp(`"kind":"join","node":${id},`, 'g'))?.length ?? 0;
      const leaves = trace.match(new RegExp(`"kind":"leave","node":${id},`, 'g'))?.length ?? 0;
      expect(joins).toBe(leaves + 1);
    }
    const snap = (await h.api('GET', '/api/labs/reconnect')).body;
    expect(snap.processes.map((p: { status: string }) => p.status)).toEqual(['up', 'up']);
    h.relay.server.off('upgrade', track);
    for (const p of procs) p.stop();
  }, 60_000);
});

describe('refusals', () => {
  it('LabProcess.start rejects with the relay error frame when its id is taken, and ends as refused', async () => {
    const [first] = await runLab('taken', 'bully', [1]);
    const rival = new LabProcess({ lab: 'taken', id: 1, channel: wsChannel(h.wsUrl, WebSocket) });
    await expect(rival.start()).rejects.toMatchObject({ type: 'error', code: 'ID_TAKEN' });
    expect(rival.status).toBe('refused');
    first!.stop();
  });
});

describe('elect on request', () => {
  it('POST .../elect makes that process start an election now', async () => {
    const procs = await runLab('elect-now', 'bully', [1, 2, 3]);
    await waitFor(() => agreeOn(procs, 3), SETTLE_MS, 'agreement on 3');
    const before =
      (await h.api('GET', '/api/labs/elect-now/stats')).body.messages.byType.ELECTION ?? 0;
    expect((await h.api('POST', '/api/labs/elect-now/processes/1/elect')).status).toBe(200);
    await waitFor(
      async () =>
        ((await h.api('GET', '/api/labs/elect-now/stats')).body.messages.byType.ELECTION ?? 0) >=
        before + 2,
      3000,
      'new ELECTION messages',
    );
    await waitFor(() => agreeOn(procs, 3), SETTLE_MS, 'agreement on 3 again');
    const trace = (await h.api('GET', '/api/labs/elect-now/trace')).text;
    expect(trace).toContain('"kind":"elect","node":1');
    for (const p of procs) p.stop();
  }, 60_000);
});
