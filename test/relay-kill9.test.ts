// Issue 16: kill -9 under traffic, then a restart on the same data folder. Every event an
// observer saw is in the trace afterwards with the same sequence number and content; no
// sequence number is used twice; every line parses; the crashed ids and the partition the
// instructor set are back; the bots rejoin and the lab carries on.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { nodeChannel } from '@shared/lab-client/node-channel.ts';
import { clusterApi, freePort, startRelayProc, type RelayProc } from '../scripts/cluster/procs.ts';
import { waitFor } from './helpers/relay-harness.ts';

const TOKEN = 'kill9-token';
const api = clusterApi(TOKEN);
const cleanups: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('kill -9 under traffic', () => {
  it('keeps every event an observer saw, reuses no sequence number, and restores crashes and the partition', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'kill9-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    let relay: RelayProc = await startRelayProc({ id: 'k', port, dataDir, token: TOKEN });
    cleanups.push(() => relay.kill('SIGKILL'));
    const timing = { transmission: 20, processing: 2, heartbeatInterval: 40, heartbeatTimeout: 400 };
    expect((await api(relay.url, 'POST', '/api/labs', { name: 'k9', size: 8, algorithm: 'bully', timing })).status).toBe(201);

    const seen = new Map<number, string>();
    const ws = new WebSocket(relay.url.replace('http', 'ws') + '/ws');
    ws.on('open', () => ws.send(JSON.stringify({ type: 'observe', lab: 'k9' })));
    ws.on('message', (d) => {
      const f = JSON.parse(String(d));
      if (f.type === 'events') for (const e of f.events) seen.set(e.seq, JSON.stringify(e));
    });
    ws.on('error', () => {});
    const fleet = new BotFleet({ lab: 'k9', count: 8, channel: () => nodeChannel(relay.url, 'ws') });
    cleanups.push(() => fleet.stop());
    await fleet.start();
    await waitFor(() => fleet.status().agreed && fleet.status().coordinator === 7, 20_000, 'agreement on 7');
    expect((await api(relay.url, 'POST', '/api/labs/k9/processes/2/crash')).status).toBe(200);
    expect((await api(relay.url, 'POST', '/api/labs/k9/partition', { groups: [[0, 1, 2, 3, 4, 5, 6, 7]] })).status).toBe(200);
    // Heartbeats every 40 ms from seven processes: the kill lands in the middle of writes.
    const before = seen.size;
    await waitFor(() => seen.size > before + 300, 10_000, 'traffic seen by the observer');
    await relay.kill('SIGKILL');
    ws.terminate();
    const sawBeforeKill = new Map(seen);

    relay = await startRelayProc({ id: 'k', port, dataDir, token: TOKEN });
    const snap = (await api(relay.url, 'GET', '/api/labs/k9')).body;
    expect(snap.processes.find((p: { id: number }) => p.id === 2).status).toBe('crashed');
    expect(snap.partition).toEqual([[0, 1, 2, 3, 4, 5, 6, 7]]);
    await waitFor(async () => (await api(relay.url, 'GET', '/api/labs/k9/stats')).body.coordinators['7'] === 7, 20_000, 'the bots back, agreeing');

    const text = await readFile(join(dataDir, 'k9.jsonl'), 'utf8');
    const events = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { seq: number });
    const bySeq = new Map(events.map((e) => [e.seq, JSON.stringify(e)]));
    expect(bySeq.size).toBe(events.length);
    const lost = [...sawBeforeKill].filter(([seq, e]) => bySeq.get(seq) !== e).map(([seq]) => seq);
    expect(lost).toEqual([]);
    expect(sawBeforeKill.size).toBeGreaterThan(300);
  }, 60_000);
});
