// The relay's per-message fast paths must not change what it says: live vector clocks (dense
// arrays, written by hand) give the same trace text as the reference ClockBook; the hand-written
// send/deliver trace lines are exactly JSON.stringify of the event (docs/PROTOCOL.md, "Observers
// and the trace": field order, clocks last); due-now timers run before a 1 ms timer and can be
// cleared; the per-link stats are bounded yet the totals and the omitted count stay exact;
// a burst of deliveries to one corked peer (ws, socket.io) arrives complete and in send order.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '@shared/sim/rng.ts';
import { realClock } from '../../server/clock/clock.ts';
import { LiveClocks, type LiveStamp } from '../../server/trace/live-clocks.ts';
import { ClockBook, type Stamp } from '../../server/trace/logical-clocks.ts';
import { MAX_CORKED, TickCork } from '../../server/transport/cork.ts';
import { StatsTracker } from '../../server/lab/stats-tracker.ts';
import { delivered, joinAs, startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';
import { FakeConn, manualLab, tempDir } from '../helpers/relay-lab.ts';

describe('live clocks', () => {
  it('agree with ClockBook on 2,000 random events, ids first seen out of order', () => {
    const rnd = createRng(11);
    const ids = [40, 3, 17, 0, 9, 25, 1];
    const live = new LiveClocks(true);
    const ref = new ClockBook(true);
    const held: { live: LiveStamp; ref: Stamp }[] = [];
    for (let n = 0; n < 2000; n++) {
      const p = ids[Math.floor(rnd() * ids.length)]!;
      let a: LiveStamp;
      let b: Stamp;
      if (held.length > 0 && rnd() < 0.5) {
        const m = held.splice(Math.floor(rnd() * held.length), 1)[0]!;
        a = live.receive(p, m.live);
        b = ref.receive(p, m.ref);
      } else {
        a = live.tick(p);
        b = ref.tick(p);
        held.push({ live: a, ref: b });
      }
      expect(live.stamp(a)).toEqual(b);
      expect(`{${live.json(a)}}`).toBe(JSON.stringify(b));
    }
  });

  it("a delivery's view (no copy, good until the next event) encodes as the copying receive does", () => {
    const rnd = createRng(5);
    const ids = [7, 2, 30, 11];
    const viewing = new LiveClocks(true);
    const copying = new LiveClocks(true);
    const held: { a: LiveStamp; b: LiveStamp }[] = [];
    for (let n = 0; n < 500; n++) {
      const p = ids[Math.floor(rnd() * ids.length)]!;
      if (held.length > 0 && rnd() < 0.5) {
        const m = held.splice(Math.floor(rnd() * held.length), 1)[0]!;
        expect(viewing.json(viewing.receiveView(p, m.a))).toBe(
          copying.json(copying.receive(p, m.b)),
        );
      } else held.push({ a: viewing.tick(p), b: copying.tick(p) });
    }
  });

  it('carry Lamport clocks only when the lab is too large for vectors', () => {
    const live = new LiveClocks(false);
    const s = live.receive(2, live.tick(1));
    expect(live.json(s)).toBe('"lamport":2');
    expect(live.stamp(s)).toEqual({ lamport: 2 });
  });
});

describe('trace lines of send and deliver', () => {
  const tmp = tempDir('relay-hot-');

  it('are JSON.stringify of the event, clocks last, and the deliver frame carries the payload', async () => {
    const { lab, clock } = manualLab(tmp.path, 'hot', { delay: 5 });
    const conns = [new FakeConn(), new FakeConn(), new FakeConn()];
    const entries = conns.map((c, i) => {
      const r = lab.join(c, { id: i });
      if (!r.ok) throw new Error('join');
      return r.value;
    });
    const payload = {
      type: 'ELECTION',
      election: 1,
      note: 'quote " and \\ and é',
      nested: { list: [1, 2] },
    };
    lab.send(entries[2]!, 0, payload);
    lab.send(entries[0]!, 1, { type: 'OK' });
    clock.advance(10);
    await lab.close();
    const lines = (await readFile(join(tmp.path, 'hot.jsonl'), 'utf8')).split('\n').filter(Boolean);
    const messageLines = lines.filter((l) => /"kind":"(send|deliver)"/.test(l));
    expect(messageLines).toHaveLength(4);
    for (const line of messageLines) expect(line).toBe(JSON.stringify(JSON.parse(line)));
    const first = JSON.parse(messageLines[0]!);
    expect(Object.keys(first)).toEqual([
      'seq',
      't',
      'kind',
      'msg',
      'from',
      'to',
      'type',
      'message',
      'lamport',
      'vector',
    ]);
    expect(first.message).toEqual(payload);
    const deliver = JSON.parse(
      messageLines.find((l) => l.includes('"kind":"deliver"') && l.includes('"to":0'))!,
    );
    expect(deliver.vector).toEqual({ '0': 3, '2': 2 });
    expect(conns[0]!.frames.at(-1)).toEqual({ type: 'deliver', from: 2, msg: 1, message: payload });
  });
});

describe('real clock', () => {
  it('runs a due-now timer before a 1 ms one, and clears either kind', async () => {
    const order: string[] = [];
    realClock.setTimeout(() => order.push('1ms'), 1);
    realClock.setTimeout(() => order.push('now'), 0);
    realClock.clearTimeout(realClock.setTimeout(() => order.push('cleared-now'), 0));
    realClock.clearTimeout(realClock.setTimeout(() => order.push('cleared-1ms'), 1));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['now', '1ms']);
  });
});

describe('the tick cork', () => {
  /** A socket that only counts: how many frames went out in each flush, and its cork depth. */
  function countingSocket() {
    const s = { destroyed: false, depth: 0, pending: 0, flushes: [] as number[] };
    const sock = {
      get destroyed() {
        return s.destroyed;
      },
      cork: () => void s.depth++,
      uncork: () => {
        s.depth--;
        if (s.depth === 0 && s.pending > 0) {
          s.flushes.push(s.pending);
          s.pending = 0;
        }
      },
      write: () => void s.pending++,
    };
    return { s, sock };
  }

  it(`holds at most ${MAX_CORKED} frames of a burst corked, flushes the rest on the next tick, in order and balanced`, async () => {
    const { s, sock } = countingSocket();
    const cork = new TickCork();
    for (let i = 0; i < 40; i++) {
      cork.before(sock as unknown as Socket);
      sock.write();
    }
    // Two full batches went out during the burst; the last 8 wait for the tick to end.
    expect(s.flushes).toEqual([MAX_CORKED, MAX_CORKED]);
    expect(s.depth).toBe(1);
    await new Promise((r) => process.nextTick(r));
    expect(s.flushes).toEqual([MAX_CORKED, MAX_CORKED, 40 - 2 * MAX_CORKED]);
    expect(s.depth).toBe(0);
    // A fresh tick corks afresh.
    cork.before(sock as unknown as Socket);
    sock.write();
    await new Promise((r) => process.nextTick(r));
    expect(s.flushes.at(-1)).toBe(1);
  });
});

describe('corked ws sends', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRelay({ rateLimits: { rate: 100_000, burst: 100_000 } });
  });
  afterAll(async () => {
    await h.close();
  });

  for (const transport of ['ws', 'socketio'] as const) {
    it(`a burst of 500 deliveries to one ${transport} peer arrives complete and in send order`, async () => {
      const lab = `burst-${transport}`;
      const r = await h.api('POST', '/api/labs', {
        name: lab,
        size: 2,
        detector: 'none',
        fabric: { link: { delay: 0, jitter: 0 } },
      });
      expect(r.status).toBe(201);
      const a = await joinAs(h, transport, lab, 0);
      const b = await joinAs(h, transport, lab, 1);
      for (let i = 0; i < 500; i++) a.c.send({ type: 'send', to: 1, message: { type: 'PING', i } });
      await waitFor(() => delivered(b.c).length === 500, 5000, 'deliveries');
      expect(delivered(b.c).map((d) => d.frame.message['i'])).toEqual(
        Array.from({ length: 500 }, (_, i) => i),
      );
      await a.c.close();
      await b.c.close();
    });
  }
});

describe('stats per link', () => {
  const none = { coordinators: {}, processes: { up: 0, crashed: 0, absent: 0 }, relay: {} };

  it('keep counters for the first links only, yet exact totals and an exact count of the links left out', () => {
    const stats = new StatsTracker(3);
    // 6 senders x 6 receivers, each link used twice: 36 distinct links.
    for (let round = 0; round < 2; round++)
      for (let from = 0; from < 6; from++)
        for (let to = 0; to < 6; to++) {
          stats.send(from * 1000, to * 1000, 'PING');
          if (to % 2 === 0) stats.deliver(from * 1000, to * 1000);
          else stats.drop(from * 1000, to * 1000, 'loss');
        }
    const s = stats.snapshot(0, none);
    expect(s.messages).toMatchObject({
      sent: 72,
      delivered: 36,
      dropped: 36,
      byType: { PING: 72 },
    });
    expect(s.links).toHaveLength(3);
    expect(s.linksOmitted).toBe(33);
    for (const l of s.links)
      expect(l).toMatchObject({
        sent: 2,
        delivered: l.to % 2000 === 0 ? 2 : 0,
        dropped: l.to % 2000 === 0 ? 0 : 2,
      });
    expect(stats.snapshot(0, none, 1).linksOmitted).toBe(35);
    stats.reset();
    stats.send(1, 2, 'PING');
    expect(stats.snapshot(0, none)).toMatchObject({ links: [{ from: 1, to: 2, sent: 1 }] });
    expect(stats.snapshot(0, none).linksOmitted).toBeUndefined();
  });
});
