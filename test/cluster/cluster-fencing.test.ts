// Issue 23: fenced ownership in a cluster (docs/SCALING.md, "Fencing"). A real redis-server and
// two relays on 127.0.0.1 sharing one data folder.
// - Student load cannot cause a takeover: relay A's lab is flooded by token-less connections
//   (16 KB messages, near the per-connection rate limit) while A stays alive; B never takes any
//   of A's labs, and A never loses a lease.
// - A stale owner writes nothing: A is paused with SIGSTOP past its lease, B takes the lab over
//   (epoch 2) and the bots follow it; A is resumed with SIGCONT and finds it lost the lab. The
//   trace holds no line from A after B's `owner` event: sequence numbers only grow, file order.
// - An owner that cannot confirm its lease stops writing before the lease could run out: Redis
//   is killed under traffic, the trace stops growing, and grows again once Redis is back.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { nodeChannel } from '@shared/lab-client/node-channel.ts';
import { startCluster, type ClusterHarness } from '../helpers/cluster-harness.ts';
import { flood } from '../helpers/flood.ts';
import { waitFor } from '../helpers/relay-harness.ts';

const LEASE_MS = 1500;
const TIMING = { transmission: 30, processing: 5, heartbeatInterval: 100, heartbeatTimeout: 400 };
const cleanups: (() => Promise<void> | void)[] = [];
// Each test's cluster goes before the next starts (two clusters at once load this machine twice).
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Status = { owned: { lab: string; epoch: number }[]; lost: number; loopLateMaxMs: number };
const status = async (c: ClusterHarness, url: string): Promise<Status | null> =>
  (await c.api(url, 'GET', '/api/cluster').catch(() => null))?.body ?? null;

async function traceLines(
  c: ClusterHarness,
  lab: string,
): Promise<{ seq: number; kind: string; relay?: string; epoch?: number; text?: string }[]> {
  const text = await readFile(join(c.dataDir, `${lab}.jsonl`), 'utf8');
  // Complete lines only: the relay may be mid-write, and its last line is not whole until its newline is.
  return text
    .split('\n')
    .slice(0, -1)
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('fenced ownership', () => {
  it('keeps its leases under a token-less flood: no takeover while the owner lives', async () => {
    const c = await startCluster(2, LEASE_MS);
    cleanups.push(() => c.close());
    const [a, b] = c.relays as [(typeof c.relays)[0], (typeof c.relays)[0]];
    for (const name of ['f1', 'f2', 'f3'])
      expect(
        (await c.api(a.url, 'POST', '/api/labs', { name, size: 8, algorithm: 'bully' })).status,
      ).toBe(201);
    // An observer on the flooded lab, as in the reviewer's run.
    const obs = new WebSocket(a.url.replace('http', 'ws') + '/ws');
    obs.on('open', () => obs.send(JSON.stringify({ type: 'observe', lab: 'f1' })));
    obs.on('error', () => {});
    cleanups.push(() => obs.terminate());

    const flooding = flood({
      url: a.url,
      lab: 'f1',
      connections: 8,
      bytes: 16_000,
      perSecond: 1900,
      ms: 12_000,
    });
    let polls = 0;
    const takenByB: string[] = [];
    let done = false;
    void flooding.finally(() => (done = true));
    while (!done && polls < 200) {
      const sb = await status(c, b.url);
      for (const o of sb?.owned ?? []) if (o.lab.startsWith('f')) takenByB.push(o.lab);
      polls++;
      await new Promise((r) => setTimeout(r, 250));
    }
    const { sent } = await flooding;
    const sa = await status(c, a.url);
    console.log(
      `[fencing] flood: ${sent} messages of 16 KB sent in 12 s; A's event loop late at most ${sa?.loopLateMaxMs} ms; ${polls} polls of B`,
    );
    // At least 48 MB of student traffic, however slow the machine is.
    expect(sent).toBeGreaterThan(3000);
    expect(takenByB).toEqual([]);
    expect(sa?.lost).toBe(0);
    expect(sa?.owned.map((o) => o.lab).sort()).toEqual(['demo', 'f1', 'f2', 'f3']);
    for (const lab of ['f1', 'f2', 'f3'])
      expect(
        (await traceLines(c, lab)).filter((e) => e.kind === 'owner').map((e) => e.epoch),
      ).toEqual([1]);
  }, 90_000);

  it('refuses every write of a paused owner after another relay took its lab', async () => {
    const c = await startCluster(2, LEASE_MS);
    cleanups.push(() => c.close());
    const [a, b] = c.relays as [(typeof c.relays)[0], (typeof c.relays)[0]];
    expect(
      (
        await c.api(a.url, 'POST', '/api/labs', {
          name: 'st',
          size: 6,
          algorithm: 'bully',
          timing: TIMING,
        })
      ).status,
    ).toBe(201);
    const relays = c.relays.map((r) => r.url);
    const fleet = new BotFleet({
      lab: 'st',
      count: 6,
      channel: () => nodeChannel(a.url, 'ws'),
      follow: (u) => nodeChannel(u, 'ws'),
      relays,
    });
    cleanups.push(() => fleet.stop());
    await fleet.start();
    await waitFor(
      () => fleet.status().agreed && fleet.status().coordinator === 5,
      15_000,
      'agreement on 5',
    );
    // A has written the lab (its owner event is on disk: the trace flushes every 200 ms, sooner only for observers).
    await waitFor(
      async () => (await traceLines(c, 'st').catch(() => [])).some((e) => e.kind === 'owner'),
      10_000,
      'A writes the lab',
    );
    // Heartbeats every 100 ms from five bots: A holds unwritten events (flushed every 200 ms) when it stops.
    a.child.kill('SIGSTOP');
    let resumed = false;
    cleanups.push(() => void (resumed || a.child.kill('SIGCONT')));
    await waitFor(
      async () =>
        (await status(c, b.url))?.owned.some((o) => o.lab === 'st' && o.epoch === 2) ?? false,
      LEASE_MS * 6,
      'B takes the lab over',
    );
    // The bots' sockets to a stopped relay stay open: they leave it (A reads that on waking) and join B.
    fleet.stop();
    const onB = new BotFleet({ lab: 'st', count: 6, channel: () => nodeChannel(b.url, 'ws') });
    cleanups.push(() => onB.stop());
    await onB.start();
    await waitFor(
      async () =>
        ((await c.api(b.url, 'GET', '/api/labs/st/stats').catch(() => null))?.body?.coordinators?.[
          '5'
        ] ?? 0) >= 5,
      20_000,
      'the bots agree again on B',
    );
    a.child.kill('SIGCONT');
    resumed = true;
    // A wakes up with its timers due (trace flushes first) and learns it lost the lab.
    await waitFor(
      async () => {
        const s = await status(c, a.url);
        return s !== null && !s.owned.some((o) => o.lab === 'st') && s.lost >= 1;
      },
      10_000,
      'A lets the lab go',
    );
    // B goes on writing for a while after A woke up.
    const seen = (await traceLines(c, 'st')).length;
    await waitFor(
      async () => (await traceLines(c, 'st')).length > seen + 50,
      10_000,
      'B writes on',
    );

    const lines = await traceLines(c, 'st');
    const owners = lines.filter((e) => e.kind === 'owner').map((e) => [e.relay, e.epoch]);
    expect(owners).toEqual([
      ['A', 1],
      ['B', 2],
    ]);
    const takeover = lines.findIndex((e) => e.kind === 'owner' && e.epoch === 2);
    // Nothing from A after B's owner event (A's lines would carry its older, smaller numbers), and no number twice.
    const back = lines.slice(takeover).filter((e, i, all) => i > 0 && e.seq <= all[i - 1]!.seq);
    expect(back).toEqual([]);
    const seqs = lines.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
  }, 90_000);

  it('stops writing while its lease cannot be confirmed, and goes on once Redis is back', async () => {
    const c = await startCluster(1, LEASE_MS);
    cleanups.push(() => c.close());
    const a = c.relays[0]!;
    expect(
      (
        await c.api(a.url, 'POST', '/api/labs', {
          name: 'rd',
          size: 6,
          algorithm: 'bully',
          timing: TIMING,
        })
      ).status,
    ).toBe(201);
    const fleet = new BotFleet({ lab: 'rd', count: 6, channel: () => nodeChannel(a.url, 'ws') });
    cleanups.push(() => fleet.stop());
    await fleet.start();
    await waitFor(
      () => fleet.status().agreed && fleet.status().coordinator === 5,
      15_000,
      'agreement on 5',
    );
    const size = async () =>
      (await stat(join(c.dataDir, 'rd.jsonl')).catch(() => ({ size: 0 }))).size;
    const growing = await size();
    await waitFor(async () => (await size()) > growing, 5000, 'the trace growing under heartbeats');

    await c.redis.stop('SIGKILL');
    const killedAt = Date.now();
    // The last renewal was sent at most a quarter lease before the kill; writes stop 3/4 of a
    // lease after it, and the last flush lands within 200 ms: the size is still at 2 s.
    await new Promise((r) => setTimeout(r, 2000 - (Date.now() - killedAt)));
    const stopped = await size();
    await new Promise((r) => setTimeout(r, 1000));
    expect(await size()).toBe(stopped);
    expect(fleet.status().agreed).toBe(true);

    await c.redis.start();
    await waitFor(
      async () => (await size()) > stopped,
      10_000,
      'writes again once the lease is confirmed',
    );
    const s = await status(c, a.url);
    expect(s?.owned.some((o) => o.lab === 'rd')).toBe(true);
    expect(s?.lost).toBe(0);
    const retaken = (e: { kind: string; text?: string }) =>
      e.kind === 'note' && /taken again after Redis lost it/.test(e.text ?? '');
    await waitFor(
      async () => (await traceLines(c, 'rd')).some(retaken),
      5000,
      'the note of the lease taken again',
    );
    const lines = await traceLines(c, 'rd');
    const seqs = lines.map((e) => e.seq);
    expect(seqs.every((q, i) => i === 0 || q > seqs[i - 1]!)).toBe(true);
  }, 90_000);
});
