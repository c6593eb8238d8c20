// Unit tests of the relay's parts on a manual clock: one timer queue per lab (never a timer per
// message) that stands still while paused, the fabric's FIFO, reordering and burst loss,
// Lamport and vector clocks, bounded delivery to slow receivers, and bounded observer batches.
import { describe, expect, it } from 'vitest';
import { DEFAULT_FABRIC, DEFAULT_LINK } from '@shared/protocol/lab-config.ts';
import { createRng } from '@shared/sim/rng.ts';
import { ClockBook } from '../../server/trace/logical-clocks.ts';
import { Network, networkRandom } from '@shared/sim/network.ts';
import { ObserverHub } from '../../server/lab/observers.ts';
import { Scheduler } from '../../server/lab/scheduler.ts';
import { FakeConn, manualLab, offer, tempDir } from '../helpers/relay-lab.ts';
import { ManualClock } from '../helpers/manual-clock.ts';

type Entry = { at: number; seq: number; n: number };

describe('scheduler', () => {
  it('serves 1,000 messages from one armed timer at a time, in due order', () => {
    const clock = new ManualClock();
    const out: Entry[] = [];
    const s = new Scheduler<Entry>(clock, (e) => out.push(e));
    const rnd = createRng(3);
    let maxPending = 0;
    for (let n = 0; n < 1000; n++) {
      s.push({ at: 10 + Math.floor(rnd() * 500), n });
      maxPending = Math.max(maxPending, clock.pending);
    }
    clock.advance(600);
    expect(maxPending).toBe(1);
    expect(out).toHaveLength(1000);
    for (let i = 1; i < out.length; i++) expect(out[i]!.at).toBeGreaterThanOrEqual(out[i - 1]!.at);
    // A timer is re-armed only when a new head arrives or a batch is served: far fewer than one per message.
    expect(clock.armed).toBeLessThan(600);
  });

  it('stands still while paused, keeping the remaining delay', () => {
    const clock = new ManualClock();
    const out: number[] = [];
    const s = new Scheduler<Entry>(clock, (e) => out.push(e.n));
    s.push({ at: s.now() + 100, n: 1 });
    clock.advance(40);
    s.pause();
    clock.advance(500);
    expect(out).toEqual([]);
    s.resume();
    clock.advance(59);
    expect(out).toEqual([]);
    clock.advance(1);
    expect(out).toEqual([1]);
  });

  it('keeps serving when a handler throws', () => {
    const clock = new ManualClock();
    const errors: unknown[] = [];
    const out: number[] = [];
    const s = new Scheduler<Entry>(
      clock,
      (e) => {
        if (e.n === 1) throw new Error('boom');
        out.push(e.n);
      },
      (err) => errors.push(err),
    );
    for (const n of [1, 2, 3]) s.push({ at: 5, n });
    clock.advance(10);
    expect(out).toEqual([2, 3]);
    expect(errors).toHaveLength(1);
  });

  it('serves a message due now at once, without a timer, but never ahead of one due earlier', () => {
    const clock = new ManualClock();
    const out: number[] = [];
    const s = new Scheduler<Entry>(
      clock,
      (e) => out.push(e.n),
      () => {},
      () => 10,
    );
    clock.advance(100);
    s.push({ at: 100, n: 1 });
    expect(out).toEqual([1]);
    expect(clock.armed).toBe(0);
    expect([s.size, s.bytes]).toEqual([0, 0]);
    // Held while the lab is paused: due order is kept for when it resumes.
    s.pause();
    s.push({ at: 90, n: 2 });
    s.resume();
    s.push({ at: 95, n: 3 });
    expect(out).toEqual([1]);
    clock.advance(1);
    expect(out).toEqual([1, 2, 3]);
    expect([s.size, s.bytes]).toEqual([0, 0]);
  });

  it('serves a message due now at once while only later ones are held, and gives each entry its own sequence number', () => {
    const clock = new ManualClock();
    const out: Entry[] = [];
    const s = new Scheduler<Entry>(clock, (e) => out.push(e));
    clock.advance(100);
    s.push({ at: 150, n: 1 });
    s.push({ at: 100, n: 2 });
    expect(out.map((e) => e.n)).toEqual([2]);
    expect(s.size).toBe(1);
    clock.advance(50);
    expect(out.map((e) => e.n)).toEqual([2, 1]);
    expect(out[0]!.seq).toBeGreaterThan(out[1]!.seq);
  });

  it('holds what a handler pushes while it serves, for the timer (no re-entry)', () => {
    const clock = new ManualClock();
    const out: number[] = [];
    const s: Scheduler<Entry> = new Scheduler<Entry>(clock, (e) => {
      out.push(e.n);
      if (e.n < 3) s.push({ at: s.now(), n: e.n + 1 });
      // Served at once, 2 would be in `out` before this line ran for 1.
      out.push(-e.n);
    });
    s.push({ at: 0, n: 1 });
    expect(out).toEqual([1, -1]);
    clock.advance(1);
    expect(out).toEqual([1, -1, 2, -2, 3, -3]);
  });
});

describe('fabric', () => {
  it('keeps a link FIFO under jitter, and lets jitter reorder when reordering is on', () => {
    const arrivals = (reorder: boolean) => {
      const f = new Network(
        { ...DEFAULT_FABRIC, link: { ...DEFAULT_LINK, delay: 10, jitter: 50 }, reorder },
        networkRandom(1),
      );
      return Array.from({ length: 200 }, (_, i) => {
        const fate = f.decide(0, 1, i);
        return fate.kind === 'deliver' ? fate.at : NaN;
      });
    };
    const fifo = arrivals(false);
    for (let i = 1; i < fifo.length; i++) expect(fifo[i]!).toBeGreaterThanOrEqual(fifo[i - 1]!);
    const loose = arrivals(true);
    expect(loose.some((t, i) => i > 0 && t < loose[i - 1]!)).toBe(true);
  });

  it('burst loss (Gilbert model): long-run rate p and mean burst length L over 200,000 messages', () => {
    const f = new Network(
      {
        ...DEFAULT_FABRIC,
        link: { ...DEFAULT_LINK, loss: 0.1, lossMode: 'burst', burstLength: 4 },
      },
      networkRandom(9),
    );
    const lost = Array.from({ length: 200_000 }, (_, i) => f.decide(2, 3, i).kind === 'drop');
    const n = lost.filter(Boolean).length;
    const bursts = lost.filter((x, i) => x && !lost[i - 1]).length;
    expect(n / lost.length).toBeGreaterThan(0.09);
    expect(n / lost.length).toBeLessThan(0.11);
    expect(n / bursts).toBeGreaterThan(3.7);
    expect(n / bursts).toBeLessThan(4.3);
  });

  it('scales delays by the time scale and drops across a partition; ids in no group share one', () => {
    const f = new Network(
      { ...DEFAULT_FABRIC, link: { ...DEFAULT_LINK, delay: 20 }, timeScale: 3 },
      networkRandom(1),
    );
    expect(f.decide(0, 1, 100)).toEqual({ kind: 'deliver', at: 160, dupAt: null });
    f.setPartition([[0, 1]]);
    expect(f.decide(0, 2, 0)).toEqual({ kind: 'drop', reason: 'partition' });
    expect(f.decide(2, 3, 0).kind).toBe('deliver');
  });
});

describe('clocks', () => {
  it('a delivery merges the sender stamp and ticks: Lamport max+1, vector entrywise max', () => {
    const book = new ClockBook(true);
    book.tick(1);
    book.tick(1);
    const sent = book.tick(1);
    expect(sent).toEqual({ lamport: 3, vector: { '1': 3 } });
    book.tick(2);
    expect(book.receive(2, sent)).toEqual({ lamport: 4, vector: { '1': 3, '2': 2 } });
    expect(new ClockBook(false).tick(5)).toEqual({ lamport: 1 });
  });
});

describe('lab', () => {
  const tmp = tempDir('relay-units-');

  const makeLab = (name: string, clock: ManualClock) => manualLab(tmp.path, name, { clock }).lab;

  it('drops instead of queueing for a receiver that cannot keep up, with reason overflow', async () => {
    const clock = new ManualClock();
    const lab = makeLab('overflow', clock);
    const a = new FakeConn();
    const b = new FakeConn();
    const pa = lab.join(a, { id: 0 });
    expect(lab.join(b, { id: 1 }).ok).toBe(true);
    if (!pa.ok) throw new Error('join');
    b.full = true;
    for (let i = 0; i < 5; i++) lab.send(pa.value, 1, { type: 'FLOOD' });
    clock.advance(20);
    b.full = false;
    lab.send(pa.value, 1, { type: 'OK' });
    clock.advance(20);
    expect(
      b.frames
        .filter((f) => f.type === 'deliver')
        .map((f) => f.type === 'deliver' && f.message.type),
    ).toEqual(['OK']);
    expect(
      lab.stats.snapshot(0, {
        coordinators: {},
        processes: { up: 0, crashed: 0, absent: 0 },
        relay: {},
      }).drops,
    ).toEqual({ overflow: 5 });
    await lab.close();
  });

  it('stamps sends and deliveries with the processes clocks', async () => {
    const clock = new ManualClock();
    const lab = makeLab('stamps', clock);
    const a = new FakeConn();
    const b = new FakeConn();
    const observer = new FakeConn();
    const pa = lab.join(a, { id: 0 });
    lab.join(b, { id: 1 });
    if (!pa.ok) throw new Error('join');
    lab.observers.add(observer);
    lab.send(pa.value, 1, { type: 'HELLO' });
    clock.advance(20);
    lab.observers.flush();
    // Observers are sent events once the trace holds them.
    await lab.observers.drained();
    const batch = observer.frames.find((f) => f.type === 'events');
    if (batch?.type !== 'events') throw new Error('no batch');
    const [send, deliver] = batch.events;
    expect(send).toMatchObject({ kind: 'send', from: 0, lamport: 2, vector: { '0': 2 } });
    expect(deliver).toMatchObject({
      kind: 'deliver',
      to: 1,
      lamport: 3,
      vector: { '0': 2, '1': 2 },
    });
    await lab.close();
  });
});

describe('observer hub', () => {
  it('samples message events past the per-batch bound, never state events, and counts what it left out', () => {
    const hub = new ObserverHub('x', () => '{"type":"snapshot"}', { maxMessageEvents: 10 });
    const o = new FakeConn();
    hub.add(o);
    for (let i = 0; i < 100; i++) offer(hub, JSON.stringify({ seq: i, kind: 'send' }), true);
    offer(hub, JSON.stringify({ seq: 100, kind: 'crash' }), false);
    hub.flush();
    const batch = o.frames[1];
    expect(batch?.type === 'events' && [batch.events.length, batch.skipped]).toEqual([11, 90]);
    expect(batch?.type === 'events' && batch.events.at(-1)!.kind).toBe('crash');
  });

  it('skips batches for a backed-up observer and sends it a fresh snapshot once it drains', () => {
    let version = 0;
    const hub = new ObserverHub('x', () =>
      JSON.stringify({ type: 'snapshot', version: ++version }),
    );
    const slow = new FakeConn();
    const fast = new FakeConn();
    hub.add(slow);
    hub.add(fast);
    slow.full = true;
    for (let round = 0; round < 3; round++) {
      offer(hub, '{"kind":"send"}', true);
      hub.flush();
    }
    expect(slow.frames).toHaveLength(1);
    expect(fast.frames.filter((f) => f.type === 'events')).toHaveLength(3);
    slow.full = false;
    offer(hub, '{"kind":"send"}', true);
    hub.flush();
    expect(slow.frames.map((f) => f.type)).toEqual(['snapshot', 'snapshot']);
    expect(hub.missedBatches).toBe(1);
  });
});
