// Integration: the relay's fabric over real sockets. Delays are measured at the receiver against
// the send time on the same machine; loss rates are checked against binomial bounds for a fixed
// seed; partitions, directed link rules, crashes and recovery behave as issue 3 states.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import {
  connect,
  delivered,
  joinAs,
  labTrace,
  sleep,
  startRelay,
  waitFor,
  type FrameClient,
  type Harness,
} from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay({ rateLimits: { rate: 100_000, burst: 100_000 } });
});
afterAll(async () => {
  await h.close();
});

async function lab(name: string, body: Record<string, unknown> = {}) {
  const r = await h.api('POST', '/api/labs', {
    name,
    size: 4,
    detector: 'none',
    seed: 42,
    ...body,
  });
  expect(r.status).toBe(201);
}

const trace = (name: string) => labTrace(h, name);

function sendMany(c: FrameClient, to: number, n: number, type = 'PING') {
  const at: number[] = [];
  for (let i = 0; i < n; i++) {
    at.push(performance.now());
    c.send({ type: 'send', to, message: { type, i } });
  }
  return at;
}

describe('relay delivery', () => {
  it('delivers after the link delay: never early; the relay serves it and the receiver sees it within 25 and 35 ms (medians)', async () => {
    await lab('delay', { fabric: { link: { delay: 80, jitter: 0 } } });
    const a = await joinAs(h, 'ws', 'delay', 0);
    const b = await joinAs(h, 'socketio', 'delay', 1);
    const c = await joinAs(h, 'ws', 'delay', 2);
    const sent: Record<number, number[]> = { 1: [], 2: [] };
    // 40 messages to each receiver, 5 ms apart; the first 5 of each warm up the path and are not measured.
    for (let i = 0; i < 40; i++) {
      for (const to of [1, 2]) {
        sent[to]!.push(performance.now());
        a.c.send({ type: 'send', to, message: { type: 'PING', i } });
      }
      await sleep(5);
    }
    await waitFor(
      () => delivered(b.c).length === 40 && delivered(c.c).length === 40,
      4000,
      'deliveries',
    );
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    // End to end, on the test's clock: never early. The tolerances are for a two-core CI machine
    // that runs browser tests beside this one; the benchmark measures the real accuracy
    // (delay error p99 under 5 ms, docs/BOTS_AND_BENCH.md).
    const endToEnd = [b.c, c.c].flatMap((x, k) =>
      delivered(x)
        .map((d, i) => d.at - sent[k + 1]![i]!)
        .slice(5),
    );
    expect(Math.min(...endToEnd)).toBeGreaterThanOrEqual(79);
    expect(median(endToEnd)).toBeLessThan(115);
    // The relay's own journal: deliver minus send per message, from its single timer queue.
    const events = await trace('delay');
    const sendT = new Map(
      events.filter((e) => e.kind === 'send').map((e) => [(e as { msg: number }).msg, e.t]),
    );
    const served = events
      .filter((e) => e.kind === 'deliver')
      .map((e) => e.t - sendT.get((e as { msg: number }).msg)!);
    expect(served).toHaveLength(80);
    expect(Math.min(...served)).toBeGreaterThanOrEqual(79.9);
    expect(median(served)).toBeLessThan(105);
    // The relay stamps the sender: a deliver names who sent it.
    expect(delivered(b.c)[0]!.frame.from).toBe(0);
    await Promise.all([a.c.close(), b.c.close(), c.c.close()]);
  });

  it('keeps each link FIFO under jitter unless reordering is on', async () => {
    await lab('fifo', { fabric: { link: { delay: 5, jitter: 40 } } });
    const a = await joinAs(h, 'ws', 'fifo', 0);
    const b = await joinAs(h, 'ws', 'fifo', 1);
    sendMany(a.c, 1, 60);
    await waitFor(() => delivered(b.c).length === 60, 3000, 'fifo deliveries');
    const order = delivered(b.c).map((d) => d.frame.message['i'] as number);
    expect(order).toEqual([...order].sort((x, y) => x - y));

    expect((await h.api('PUT', '/api/labs/fifo/fabric', { reorder: true })).status).toBe(200);
    b.c.received.length = 0;
    sendMany(a.c, 1, 60);
    await waitFor(() => delivered(b.c).length === 60, 3000, 'reordered deliveries');
    const reordered = delivered(b.c).map((d) => d.frame.message['i'] as number);
    expect(reordered).not.toEqual([...reordered].sort((x, y) => x - y));
    await Promise.all([a.c.close(), b.c.close()]);
  });

  it('loses messages at the configured rate: 2000 sends at p = 0.3 stay within 4 standard deviations', async () => {
    await lab('loss', { fabric: { link: { delay: 1, loss: 0.3 } } });
    const a = await joinAs(h, 'ws', 'loss', 0);
    const b = await joinAs(h, 'ws', 'loss', 1);
    const n = 2000;
    sendMany(a.c, 1, n);
    const stats = async () => (await h.api('GET', '/api/labs/loss/stats')).body;
    await waitFor(
      async () => {
        const s = await stats();
        return s.messages.delivered + s.messages.dropped === n;
      },
      5000,
      'all fates',
    );
    const s = await stats();
    const sd = Math.sqrt(n * 0.3 * 0.7);
    expect(Math.abs(s.drops.loss - n * 0.3)).toBeLessThan(4 * sd);
    const link = s.links.find((l: { from: number; to: number }) => l.from === 0 && l.to === 1);
    expect(link).toMatchObject({ sent: n, dropped: s.drops.loss, delivered: n - s.drops.loss });
    await waitFor(() => delivered(b.c).length === n - s.drops.loss, 3000, 'deliveries');
    const top = (await h.api('GET', '/api/labs/loss/stats?links=0')).body;
    expect([top.links.length, top.linksOmitted]).toEqual([0, s.links.length]);
    await Promise.all([a.c.close(), b.c.close()]);
  });

  it('loses in bursts of the configured mean length, with the configured long-run rate', async () => {
    await lab('burst', {
      fabric: { link: { delay: 1, loss: 0.2, lossMode: 'burst', burstLength: 5 } },
    });
    const a = await joinAs(h, 'ws', 'burst', 0);
    const b = await joinAs(h, 'ws', 'burst', 1);
    const n = 4000;
    sendMany(a.c, 1, n);
    let events: TraceEvent[] = [];
    await waitFor(
      async () => {
        events = await trace('burst');
        return events.filter((e) => e.kind === 'deliver' || e.kind === 'drop').length === n;
      },
      8000,
      'all fates',
    );
    const fates = events
      .filter((e) => e.kind === 'send')
      .map((s) => events.some((e) => e.kind === 'drop' && e.msg === (s as { msg: number }).msg));
    const lost = fates.filter(Boolean).length;
    const bursts = fates.filter((x, i) => x && !fates[i - 1]).length;
    // Correlated losses: allow a wider band than the independent case.
    expect(lost / n).toBeGreaterThan(0.14);
    expect(lost / n).toBeLessThan(0.26);
    expect(lost / bursts).toBeGreaterThan(3.5);
    expect(lost / bursts).toBeLessThan(6.5);
    await Promise.all([a.c.close(), b.c.close()]);
  });

  it('gives the same fates for the same seed', async () => {
    const fatesOf = async (name: string) => {
      await lab(name, { fabric: { link: { delay: 1, loss: 0.5, duplicate: 0.1 } }, seed: 7 });
      const a = await joinAs(h, 'ws', name, 0);
      const b = await joinAs(h, 'ws', name, 1);
      sendMany(a.c, 1, 200);
      let events: TraceEvent[] = [];
      await waitFor(
        async () => {
          events = await trace(name);
          return events.filter((e) => e.kind === 'deliver' || e.kind === 'drop').length >= 200;
        },
        5000,
        'fates',
      );
      await Promise.all([a.c.close(), b.c.close()]);
      return events
        .filter((e) => e.kind === 'drop' || e.kind === 'duplicate')
        .map((e) => `${e.kind}:${(e as { msg: number }).msg}`);
    };
    const one = await fatesOf('seed-a');
    const two = await fatesOf('seed-b');
    expect(one.length).toBeGreaterThan(50);
    expect(two).toEqual(one);
  });

  it('duplicates messages: each copy arrives with its own id and the trace names the original', async () => {
    await lab('dup', { fabric: { link: { delay: 1, duplicate: 1 } } });
    const a = await joinAs(h, 'ws', 'dup', 0);
    const b = await joinAs(h, 'socketio', 'dup', 1);
    sendMany(a.c, 1, 10);
    await waitFor(() => delivered(b.c).length === 20, 3000, 'duplicates');
    const events = await trace('dup');
    const dups = events.filter((e) => e.kind === 'duplicate') as Extract<
      TraceEvent,
      { kind: 'duplicate' }
    >[];
    expect(dups).toHaveLength(10);
    const sends = new Set(
      events.filter((e) => e.kind === 'send').map((e) => (e as { msg: number }).msg),
    );
    for (const d of dups) expect(sends.has(d.of)).toBe(true);
    await Promise.all([a.c.close(), b.c.close()]);
  });
});

describe('relay partitions and directed links', () => {
  it('drops messages across partition groups, delivers within, and heals', async () => {
    await lab('part', { fabric: { link: { delay: 2 } } });
    const p = await Promise.all(
      [0, 1, 2, 3].map((id) => joinAs(h, id % 2 ? 'socketio' : 'ws', 'part', id)),
    );
    expect(
      (
        await h.api('POST', '/api/labs/part/partition', {
          groups: [
            [0, 1],
            [2, 3],
          ],
        })
      ).status,
    ).toBe(200);
    p[0]!.c.send({ type: 'send', to: 1, message: { type: 'IN' } });
    p[0]!.c.send({ type: 'send', to: 2, message: { type: 'ACROSS' } });
    p[3]!.c.send({ type: 'send', to: 1, message: { type: 'ACROSS' } });
    await waitFor(() => delivered(p[1]!.c).length === 1, 5000, 'in-group delivery');
    await sleep(50);
    expect(delivered(p[2]!.c)).toHaveLength(0);
    expect(delivered(p[1]!.c).map((d) => d.frame.message.type)).toEqual(['IN']);
    const snap = (await h.api('GET', '/api/labs/part')).body;
    expect(snap.processes.map((x: { group: number }) => x.group)).toEqual([0, 0, 1, 1]);
    expect((await h.api('DELETE', '/api/labs/part/partition')).status).toBe(200);
    p[0]!.c.send({ type: 'send', to: 2, message: { type: 'HEALED' } });
    await waitFor(() => delivered(p[2]!.c).length === 1, 5000, 'healed delivery');
    const drops = (await trace('part')).filter((e) => e.kind === 'drop');
    expect(drops.map((d) => (d as { reason: string }).reason)).toEqual(['partition', 'partition']);
    await Promise.all(p.map((x) => x.c.close()));
  });

  it('applies a directed override to one direction only', async () => {
    await lab('directed', { fabric: { link: { delay: 2 }, links: [{ from: 0, to: 1, loss: 1 }] } });
    const a = await joinAs(h, 'ws', 'directed', 0);
    const b = await joinAs(h, 'ws', 'directed', 1);
    sendMany(a.c, 1, 5);
    sendMany(b.c, 0, 5);
    await waitFor(() => delivered(a.c).length === 5, 5000, 'reverse direction');
    await sleep(30);
    expect(delivered(b.c)).toHaveLength(0);
    await Promise.all([a.c.close(), b.c.close()]);
  });

  it('rejects a partition naming ids outside the lab', async () => {
    await lab('badpart');
    const r = await h.api('POST', '/api/labs/badpart/partition', { groups: [[0, 99]] });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('BAD_REQUEST');
  });
});

describe('relay crashes', () => {
  it('a crashed process is told, gets nothing, its sends are dropped; on recover it gets the config to restart', async () => {
    await lab('crash', { fabric: { link: { delay: 2 } } });
    const a = await joinAs(h, 'ws', 'crash', 0);
    const b = await joinAs(h, 'socketio', 'crash', 1);
    const r = await h.api('POST', '/api/labs/crash/processes/1/crash');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('crashed');
    await b.c.next((f) => f.type === 'crashed');
    a.c.send({ type: 'send', to: 1, message: { type: 'TO_CRASHED' } });
    b.c.send({ type: 'send', to: 0, message: { type: 'FROM_CRASHED' } });
    await sleep(50);
    expect(delivered(b.c)).toHaveLength(0);
    expect(delivered(a.c)).toHaveLength(0);
    const reasons = (await trace('crash'))
      .filter((e) => e.kind === 'drop')
      .map((e) => (e as { reason: string }).reason);
    expect(reasons.sort()).toEqual(['receiver-crashed', 'sender-crashed']);
    await h.api('POST', '/api/labs/crash/processes/1/recover');
    const rec = await b.c.next((f) => f.type === 'recovered');
    expect(rec.type === 'recovered' && rec.config.algorithm).toBe('bully');
    a.c.send({ type: 'send', to: 1, message: { type: 'AFTER' } });
    await waitFor(() => delivered(b.c).length === 1, 5000, 'delivery after recovery');
    await Promise.all([a.c.close(), b.c.close()]);
  });

  it('a process crashed while away stays crashed when it rejoins', async () => {
    await lab('crash-away');
    await h.api('POST', '/api/labs/crash-away/processes/2/crash');
    const c = await connect(h, 'ws');
    c.send({ type: 'join', lab: 'crash-away', id: 2 });
    const j = await c.next((f) => f.type === 'joined');
    expect(j.type === 'joined' && j.status).toBe('crashed');
    await c.close();
  });
});
