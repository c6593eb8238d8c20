import { describe, expect, it } from 'vitest';
import { withReports, type Algorithm, type Message } from '@shared/algorithms/algorithm.ts';
import { simulate } from '@shared/sim/simulator.ts';

// A tiny gossip algorithm, only to exercise the simulator: on `elect` a process sends PING with
// a counter to every other id; receivers record the last counter seen from each sender and keep
// a timer that reports "quiet" when nothing arrives for 500 ms.
interface S {
  self: number;
  ids: readonly number[];
  seen: Record<number, number[]>;
  n: number;
  quiet: boolean;
}
const gossip: Algorithm<S, Message> = withReports<S, Message>({
  name: 'bully',
  messageTypes: ['PING'],
  init: (c) => ({ state: { self: c.self, ids: c.ids, seen: {}, n: 0, quiet: true }, effects: [] }),
  step(s, e) {
    if (e.kind === 'elect') {
      const effects = [];
      for (let k = 0; k < 20; k++)
        for (const to of s.ids)
          if (to !== s.self)
            effects.push({ kind: 'send' as const, to, message: { type: 'PING', n: s.n + k } });
      return { state: { ...s, n: s.n + 20 }, effects };
    }
    if (e.kind === 'message') {
      const list = [...(s.seen[e.from] ?? []), e.message.n as number];
      return {
        state: { ...s, seen: { ...s.seen, [e.from]: list }, quiet: false },
        effects: [{ kind: 'set-timer', name: 'quiet', after: 500 }],
      };
    }
    return { state: { ...s, quiet: true }, effects: [] };
  },
  report: (s) => ({ role: s.quiet ? 'quiet' : 'busy', coordinator: null, electing: !s.quiet }),
});

const ids = [0, 1, 2, 3];

describe('simulator', () => {
  it('simulator: the same seed yields an identical trace, a different seed a different one', () => {
    const spec = {
      algorithm: gossip,
      ids,
      link: { delay: 10, jitter: 40, drop: 0.2 },
      elections: [
        { id: 0, at: 0 },
        { id: 2, at: 5 },
      ],
    };
    const a = simulate({ ...spec, seed: 7 });
    const b = simulate({ ...spec, seed: 7 });
    const c = simulate({ ...spec, seed: 8 });
    expect(a.trace.length).toBeGreaterThan(100);
    expect(b.trace).toEqual(a.trace);
    expect(c.trace).not.toEqual(a.trace);
  });

  it('simulator: links are FIFO even with jitter larger than the gap between sends', () => {
    const r = simulate({
      algorithm: gossip,
      ids,
      link: { delay: 5, jitter: 100 },
      elections: [{ id: 0, at: 0 }],
      seed: 3,
    });
    const s = r.trace.filter((e) => e.kind === 'report');
    expect(s.length).toBeGreaterThan(0);
    const last = r.reports;
    expect(Object.keys(last).length).toBe(4);
    // Each receiver saw counters 0..19 from process 0 in send order.
    const delivered = r.trace.filter((e) => e.kind === 'deliver' && e.from === 0);
    const byReceiver = new Map<number, number[]>();
    const sends = new Map(
      r.trace.filter((e) => e.kind === 'send').map((e) => [(e as { msg: number }).msg, e]),
    );
    for (const d of delivered) {
      if (d.kind !== 'deliver') continue;
      const send = sends.get(d.msg)!;
      if (send.kind !== 'send') continue;
      byReceiver.set(d.to, [...(byReceiver.get(d.to) ?? []), send.message.n as number]);
    }
    for (const to of [1, 2, 3]) expect(byReceiver.get(to)).toEqual([...Array(20).keys()]);
  });

  it('simulator: the loss rate stays within statistical bounds for a fixed seed', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ id: i % 4, at: i }));
    const r = simulate({
      algorithm: gossip,
      ids,
      link: { delay: 10, drop: 0.3 },
      elections: many,
      seed: 11,
    });
    const rate = r.messages.dropped / r.messages.total;
    // 1200 sends; 3 standard deviations of a binomial(1200, 0.3) is about 0.04.
    expect(r.messages.total).toBe(1200);
    expect(rate).toBeGreaterThan(0.26);
    expect(rate).toBeLessThan(0.34);
    expect(r.messages.delivered + r.messages.dropped).toBe(r.messages.total);
  });

  it('simulator: a partition drops messages across groups only, and healing restores them', () => {
    const r = simulate({
      algorithm: gossip,
      ids,
      link: { delay: 10 },
      partitions: [
        {
          at: 0,
          groups: [
            [0, 1],
            [2, 3],
          ],
        },
        { at: 100, groups: null },
      ],
      elections: [
        { id: 0, at: 1 },
        { id: 0, at: 200 },
      ],
      seed: 1,
    });
    const early = r.trace.filter((e) => e.kind === 'drop' && e.t < 100);
    expect(early.length).toBe(40);
    expect(early.every((e) => e.kind === 'drop' && e.reason === 'partition' && e.to >= 2)).toBe(
      true,
    );
    expect(r.trace.filter((e) => e.kind === 'drop' && e.t >= 100)).toEqual([]);
  });

  it('simulator: a crashed process receives nothing and its timers never fire; recovery restarts it', () => {
    const r = simulate({
      algorithm: gossip,
      ids,
      link: { delay: 10 },
      elections: [{ id: 0, at: 0 }],
      crashes: [{ id: 3, at: 5 }],
      recoveries: [{ id: 3, at: 1000 }],
      seed: 1,
    });
    const toThree = r.trace.filter(
      (e) => (e.kind === 'drop' || e.kind === 'deliver') && e.to === 3,
    );
    expect(toThree.every((e) => e.kind === 'drop' && e.reason === 'receiver-crashed')).toBe(true);
    expect(toThree.length).toBe(20);
    expect(r.live).toEqual([0, 1, 2, 3]);
    expect(r.trace.some((e) => e.kind === 'recover' && e.node === 3 && e.t === 1000)).toBe(true);
  });

  it('simulator: a re-set timer replaces the earlier one, so only the last fires', () => {
    const r = simulate({
      algorithm: gossip,
      ids,
      link: { delay: 10 },
      elections: [{ id: 0, at: 0 }],
      seed: 1,
    });
    const timers = r.trace.filter((e) => e.kind === 'timer');
    expect(timers.map((e) => (e.kind === 'timer' ? e.node : -1)).sort()).toEqual([1, 2, 3]);
    expect(timers.every((e) => e.t === 510)).toBe(true);
  });

  it('simulator: stops at the horizon and says so', () => {
    const r = simulate({
      algorithm: gossip,
      ids,
      link: { delay: 10 },
      elections: [{ id: 0, at: 0 }],
      until: 200,
      seed: 1,
    });
    expect(r.truncated).toBe(true);
    expect(r.endTime).toBeLessThanOrEqual(200);
  });
});
