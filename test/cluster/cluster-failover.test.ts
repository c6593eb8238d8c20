// Issue 15: several relays behind one address. A real redis-server and three relays on
// 127.0.0.1 sharing one data folder: a lab created through relay A is owned by A; bots that
// connect through B and C are told `moved` and end up on A; they elect. A is killed with
// SIGKILL: another relay takes the lab within the lease time (the trace records the new owner
// and its fencing epoch), the bots resume their ids there and agree again, and no trace event
// an observer saw is lost or renumbered. A Redis restart (empty: no persistence) does not take
// the lab down: the owner takes its lease again and writes the directory back.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { io, type Socket } from 'socket.io-client';
import WebSocket from 'ws';
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { nodeChannel } from '@shared/lab-client/node-channel.ts';
import { startCluster, type ClusterHarness } from '../helpers/cluster-harness.ts';
import { waitFor } from '../helpers/relay-harness.ts';

const LEASE_MS = 1500;
const TIMING = { transmission: 30, processing: 5, heartbeatInterval: 100, heartbeatTimeout: 400 };
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** An observer that follows `moved` and keeps every event it saw, by seq. */
function observer(c: ClusterHarness, lab: string, start: string) {
  const seen = new Map<number, string>();
  const relays = c.relays.map((r) => r.url);
  let socket: Socket | null = null;
  let next = 0;
  const connect = (url: string) => {
    socket?.disconnect();
    const s = io(url, { transports: ['websocket'], reconnection: false });
    socket = s;
    s.on('connect', () => s.emit('frame', { type: 'observe', lab }));
    s.on('frame', (f: any) => {
      if (f.type === 'moved') connect(f.url);
      if (f.type === 'events') for (const e of f.events) seen.set(e.seq, JSON.stringify(e));
    });
    // The relay died: ask the next one (which answers `moved` once some relay owns the lab).
    const retry = () =>
      setTimeout(() => socket === s && connect(relays[next++ % relays.length]!), 300);
    s.on('disconnect', retry);
    s.on('connect_error', retry);
  };
  connect(start);
  return { seen, close: () => socket?.disconnect() };
}

describe('a cluster of three relays on one Redis', () => {
  it('places a lab on the relay that created it, moves bots there, fails over after kill -9 and survives a Redis restart', async () => {
    const c = await startCluster(3, LEASE_MS);
    cleanups.push(() => c.close());
    const [a, b, cc] = c.relays as [
      (typeof c.relays)[0],
      (typeof c.relays)[0],
      (typeof c.relays)[0],
    ];

    // Observers of the lab list on B (raw WebSocket) and C (socket.io) hear of a lab made on A.
    const heard = { ws: 0, io: 0 };
    const ioList = io(cc.url, { transports: ['websocket'], reconnection: false });
    ioList.on('connect', () => ioList.emit('frame', { type: 'observe-labs' }));
    ioList.on('frame', (f: { type: string }) => f.type === 'labs-changed' && heard.io++);
    const wsList = new WebSocket(b.url.replace('http', 'ws') + '/ws');
    wsList.on('open', () => wsList.send(JSON.stringify({ type: 'observe-labs' })));
    wsList.on('message', (d) => JSON.parse(String(d)).type === 'labs-changed' && heard.ws++);
    cleanups.push(
      () => void ioList.disconnect(),
      () => wsList.close(),
    );
    await waitFor(
      () => ioList.connected && wsList.readyState === WebSocket.OPEN,
      5000,
      'lab-list observers',
    );
    await new Promise((r) => setTimeout(r, 200));

    // Created through A: A owns it (placement on the creating relay), with fencing epoch 1.
    const created = await c.api(a.url, 'POST', '/api/labs', {
      name: 'cl',
      size: 6,
      algorithm: 'bully',
      timing: TIMING,
      fabric: { link: { delay: 5, jitter: 2 } },
    });
    expect(created.status).toBe(201);
    const viaB = await c.api(b.url, 'GET', '/api/labs/cl');
    expect(viaB.status).toBe(200);
    expect(viaB.url.startsWith(a.url)).toBe(true);
    await waitFor(() => heard.io > 0 && heard.ws > 0, 5000, 'labs-changed on B and C');
    // The lab list is the same from any relay and names the owner.
    const list = (await c.api(cc.url, 'GET', '/api/labs')).body as {
      name: string;
      owner: string;
    }[];
    expect(list.find((l) => l.name === 'cl')?.owner).toBe('A');

    const obs = observer(c, 'cl', b.url);
    cleanups.push(() => void obs.close());
    const relays = c.relays.map((r) => r.url);
    const fleet = (ids: number[], via: string) =>
      new BotFleet({
        lab: 'cl',
        ids,
        count: ids.length,
        channel: () => nodeChannel(via, 'ws'),
        follow: (u) => nodeChannel(u, 'socketio'),
        relays,
      });
    const f1 = fleet([0, 1, 2], b.url);
    const f2 = fleet([3, 4, 5], cc.url);
    cleanups.push(
      () => f1.stop(),
      () => f2.stop(),
    );
    expect((await f1.start()).joined).toEqual([0, 1, 2]);
    expect((await f2.start()).joined).toEqual([3, 4, 5]);
    const agreeOn = (leader: number, up: number) => async () => {
      const s = await c.api(b.url, 'GET', '/api/labs/cl/stats').catch(() => null);
      return s?.status === 200 && s.body.coordinators[String(leader)] === up;
    };
    await waitFor(agreeOn(5, 6), 10_000, 'agreement on 5 at the owner');
    await waitFor(() => obs.seen.size > 20, 5000, 'observer events');
    // The instructor crashes 0; that state must follow the lab to its next owner, from Redis.
    expect((await c.api(b.url, 'POST', '/api/labs/cl/processes/0/crash')).status).toBe(200);
    await waitFor(agreeOn(5, 5), 5000, '0 crashed');

    // kill -9 the owner. Another relay must own the lab within the lease (plus one renewal tick).
    const killedAt = Date.now();
    await a.kill('SIGKILL');
    // Only Redis knows the instructor's state now.
    await rm(join(c.dataDir, 'cl.state.json'), { force: true });
    let owner = '';
    await waitFor(
      async () => {
        for (const r of [b, cc]) {
          const s = await c.api(r.url, 'GET', '/api/cluster').catch(() => null);
          if (s?.body?.owned?.some((o: { lab: string }) => o.lab === 'cl')) owner = r.id;
        }
        return owner !== '';
      },
      LEASE_MS * 4,
      'takeover',
    );
    const takeover = Date.now() - killedAt;
    // The last renewal was at most a third of a lease before the kill, and the others are waiting
    // for the lease to run out: the takeover comes once the lease ran out, not a lease later. The
    // bound leaves the test's polling of two relays room on a loaded machine (it took 1,847 ms
    // against a bound of lease + 300 ms once at load 7); `npm run bench:cluster` measures the time.
    expect(takeover).toBeLessThan(2 * LEASE_MS);

    // The bots come back with their ids on the new owner (0 still crashed), and elect again after a crash there.
    await waitFor(agreeOn(5, 5), 15_000, 'the bots back on the new owner');
    const after = (await c.api(b.url, 'GET', '/api/labs/cl')).body;
    expect(after.processes.find((p: { id: number }) => p.id === 0).status).toBe('crashed');
    expect((await c.api(b.url, 'POST', '/api/labs/cl/processes/5/crash')).status).toBe(200);
    await waitFor(agreeOn(4, 4), 15_000, 'agreement on 4 after the takeover');

    // Nothing an observer saw is lost or renumbered, and the trace names the new owner.
    const trace = await fetch(`${b.url}/api/labs/cl/trace`, { signal: AbortSignal.timeout(5000) });
    const lines = (await trace.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const bySeq = new Map(
      lines.filter((e) => typeof e.seq === 'number').map((e) => [e.seq as number, e]),
    );
    const lost = [...obs.seen].filter(([seq, text]) => JSON.stringify(bySeq.get(seq)) !== text);
    expect(lost.map(([seq]) => seq)).toEqual([]);
    const owners = lines.filter((e) => e.kind === 'owner');
    expect(owners.map((e) => [e.relay, e.epoch])).toEqual([
      ['A', 1],
      [owner, 2],
    ]);
    expect(owners[1].previous).toBe('A');
    const seqs = lines.map((e) => e.seq).filter((s) => typeof s === 'number');
    expect(new Set(seqs).size).toBe(seqs.length);

    // Redis restarts empty: the lab keeps running, the owner takes its lease back.
    await c.redis.stop('SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    const ownerUrl = c.relays.find((r) => r.id === owner)!.url;
    expect((await c.api(ownerUrl, 'GET', '/api/labs/cl')).status).toBe(200);
    await c.redis.start();
    await waitFor(
      async () => {
        const s = await c.api(ownerUrl, 'GET', '/api/cluster').catch(() => null);
        return s?.body?.redis === true && s.body.owned.some((o: { lab: string }) => o.lab === 'cl');
      },
      10_000,
      'renewals after the Redis restart',
    );
    await waitFor(
      async () =>
        (
          (await c.api(b.id === owner ? cc.url : b.url, 'GET', '/api/labs')).body as {
            name: string;
            owner: string;
          }[]
        ).some((l) => l.name === 'cl' && l.owner === owner),
      10_000,
      'the directory written back',
    );
    expect(
      (await c.api(b.id === owner ? cc.url : b.url, 'GET', '/api/labs/cl/stats')).body.coordinators[
        '4'
      ],
    ).toBe(4);
    console.log(`[cluster] takeover after kill -9 in ${takeover} ms (lease ${LEASE_MS} ms)`);
  }, 90_000);
});
