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
import {
  clusterApi,
  freePort,
  startRelayProc,
  type RelayProc,
} from '../../scripts/cluster/procs.ts';
import { waitFor } from '../helpers/relay-harness.ts';

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
    const timing = {
      transmission: 20,
      processing: 2,
      heartbeatInterval: 40,
      heartbeatTimeout: 400,
    };
    expect(
      (
        await api(relay.url, 'POST', '/api/labs', {
          name: 'k9',
          size: 8,
          algorithm: 'bully',
          timing,
        })
      ).status,
    ).toBe(201);

    const seen = new Map<number, string>();
    const ws = new WebSocket(relay.url.replace('http', 'ws') + '/ws');
    ws.on('open', () => ws.send(JSON.stringify({ type: 'observe', lab: 'k9' })));
    ws.on('message', (d) => {
      const f = JSON.parse(String(d));
      if (f.type === 'events') for (const e of f.events) seen.set(e.seq, JSON.stringify(e));
    });
    ws.on('error', () => {});
    const fleet = new BotFleet({
      lab: 'k9',
      count: 8,
      channel: () => nodeChannel(relay.url, 'ws'),
    });
    cleanups.push(() => fleet.stop());
    await fleet.start();
    await waitFor(
      () => fleet.status().agreed && fleet.status().coordinator === 7,
      20_000,
      'agreement on 7',
    );
    expect((await api(relay.url, 'POST', '/api/labs/k9/processes/2/crash')).status).toBe(200);
    expect(
      (
        await api(relay.url, 'POST', '/api/labs/k9/partition', {
          groups: [[0, 1, 2, 3, 4, 5, 6, 7]],
        })
      ).status,
    ).toBe(200);
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
    await waitFor(
      async () => (await api(relay.url, 'GET', '/api/labs/k9/stats')).body.coordinators['7'] === 7,
      20_000,
      'the bots back, agreeing',
    );

    const text = await readFile(join(dataDir, 'k9.jsonl'), 'utf8');
    const events = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { seq: number });
    const bySeq = new Map(events.map((e) => [e.seq, JSON.stringify(e)]));
    expect(bySeq.size).toBe(events.length);
    const lost = [...sawBeforeKill].filter(([seq, e]) => bySeq.get(seq) !== e).map(([seq]) => seq);
    expect(lost).toEqual([]);
    expect(sawBeforeKill.size).toBeGreaterThan(300);
  }, 60_000);

  // Issue 23: past its size cap a trace is lean (message events are counted, not written), so
  // the file's last event is far behind the numbers observers saw. The fence record
  // (server/lab/lab-fence.ts) reserves numbers on disk in blocks before they are used.
  it('reuses no sequence number or message id an observer saw, with a lean trace', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'kill9-lean-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const env = { TRACE_MAX_BYTES: '20000' };
    let relay: RelayProc = await startRelayProc({ id: 'k', port, dataDir, token: TOKEN, env });
    cleanups.push(() => relay.kill('SIGKILL'));
    const timing = {
      transmission: 20,
      processing: 2,
      heartbeatInterval: 40,
      heartbeatTimeout: 400,
    };
    expect(
      (
        await api(relay.url, 'POST', '/api/labs', {
          name: 'lean',
          size: 6,
          algorithm: 'bully',
          timing,
        })
      ).status,
    ).toBe(201);

    const watch = (url: string) => {
      const seen = { seqs: [] as number[], msgs: [] as number[], lean: false };
      const ws = new WebSocket(url.replace('http', 'ws') + '/ws');
      ws.on('open', () => ws.send(JSON.stringify({ type: 'observe', lab: 'lean' })));
      ws.on('message', (d) => {
        const f = JSON.parse(String(d));
        if (f.type !== 'events') return;
        for (const e of f.events) {
          seen.seqs.push(e.seq);
          if (typeof e.msg === 'number') seen.msgs.push(e.msg);
          if (e.kind === 'note' && /size cap/.test(e.text)) seen.lean = true;
        }
      });
      ws.on('error', () => {});
      return { seen, ws };
    };
    const before = watch(relay.url);
    const fleet = new BotFleet({
      lab: 'lean',
      count: 6,
      channel: () => nodeChannel(relay.url, 'ws'),
    });
    cleanups.push(() => fleet.stop());
    await fleet.start();
    // Well past the cap: thousands of numbers handed out that the file does not hold.
    await waitFor(
      () => before.seen.lean && before.seen.msgs.length > 1500,
      30_000,
      'a lean trace under traffic',
    );
    await relay.kill('SIGKILL');
    before.ws.terminate();
    const maxSeq = Math.max(...before.seen.seqs);
    const maxMsg = Math.max(...before.seen.msgs);
    const onDisk = (await readFile(join(dataDir, 'lean.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { seq: number });
    // The file alone would restart the numbering below what was seen (what went wrong before).
    expect(Math.max(...onDisk.map((e) => e.seq))).toBeLessThan(maxSeq);

    relay = await startRelayProc({ id: 'k', port, dataDir, token: TOKEN, env });
    const after = watch(relay.url);
    await waitFor(() => after.seen.msgs.length > 200, 30_000, 'traffic after the restart');
    after.ws.terminate();
    expect(Math.min(...after.seen.seqs)).toBeGreaterThan(maxSeq);
    expect(Math.min(...after.seen.msgs)).toBeGreaterThan(maxMsg);
    // Every number seen in the two runs, once.
    const seqs = [...before.seen.seqs, ...after.seen.seqs];
    expect(new Set(seqs).size).toBe(seqs.length);
  }, 90_000);
});
