// Integration: what the relay records and streams. Observers get a snapshot, then batches at no
// more than 20 a second that account for every event (sent or counted as skipped); the trace
// survives a relay restart and continues its sequence; the ShiViz export parses with ShiViz's
// default regex and its vector clocks are consistent (one tick per host event, receives
// dominate their sends).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServerFrame } from '@shared/protocol/frames.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { SHIVIZ_REGEX } from '../../server/trace/shiviz.ts';
import {
  connect,
  delivered,
  joinAs,
  sleep,
  startRelay,
  waitFor,
} from '../helpers/relay-harness.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const parseTrace = (text: string): TraceEvent[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TraceEvent);

describe('observers', () => {
  it('get a snapshot, then batches at most 20 a second that account for every event', async () => {
    const h = await startRelay({
      rateLimits: { rate: 100_000, burst: 100_000 },
      observers: { maxMessageEvents: 300 },
    });
    await h.api('POST', '/api/labs', {
      name: 'watch',
      size: 3,
      detector: 'none',
      fabric: { link: { delay: 1 } },
    });
    const a = await joinAs(h, 'ws', 'watch', 0);
    const b = await joinAs(h, 'ws', 'watch', 1);
    const observers = await Promise.all([connect(h, 'socketio'), connect(h, 'ws')]);
    for (const o of observers) o.send({ type: 'observe', lab: 'watch', ref: 9 });
    const snaps = await Promise.all(observers.map((o) => o.next((f) => f.type === 'snapshot')));
    for (const s of snaps) {
      expect(s.type === 'snapshot' && s.ref).toBe(9);
      expect(
        s.type === 'snapshot' &&
          s.snapshot.processes.filter((p) => p.status === 'up').map((p) => p.id),
      ).toEqual([0, 1]);
    }
    const startSeq = snaps[0]!.type === 'snapshot' ? snaps[0]!.snapshot.seq! : -1;
    const t0 = performance.now();
    // About 6,000 messages over a second: send, deliver for each.
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 300; i++) a.c.send({ type: 'send', to: 1, message: { type: 'LOAD' } });
      await sleep(50);
    }
    await waitFor(() => delivered(b.c).length === 6000, 5000, 'all deliveries');
    const elapsed = (performance.now() - t0) / 1000;
    await sleep(150);
    const total = parseTrace((await h.api('GET', '/api/labs/watch/trace')).text).filter(
      (e) => e.seq > startSeq,
    ).length;
    for (const o of observers) {
      const batches = o.received.filter((r) => r.frame.type === 'events') as {
        frame: Extract<ServerFrame, { type: 'events' }>;
        at: number;
      }[];
      expect(batches.length / (elapsed + 0.2)).toBeLessThanOrEqual(20);
      const seen = batches.reduce((n, r) => n + r.frame.events.length + r.frame.skipped, 0);
      expect(seen).toBe(total);
      const seqs = batches.flatMap((r) => r.frame.events.map((e) => e.seq));
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(seqs[0]).toBeGreaterThan(startSeq);
    }
    // The lab itself was not slowed down: every message arrived.
    expect(delivered(b.c)).toHaveLength(6000);
    await Promise.all([a.c.close(), b.c.close(), ...observers.map((o) => o.close())]);
    await h.close();
  });
});

describe('trace persistence', () => {
  it('keeps the lab and its trace across a relay restart and continues sequence numbers and clocks', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'relay-restart-'));
    dirs.push(dataDir);
    const first = await startRelay({ dataDir });
    await first.api('POST', '/api/labs', {
      name: 'keep',
      size: 3,
      detector: 'none',
      fabric: { link: { delay: 1 } },
    });
    const a = await joinAs(first, 'ws', 'keep', 0);
    const b = await joinAs(first, 'socketio', 'keep', 1);
    for (let i = 0; i < 50; i++) a.c.send({ type: 'send', to: 1, message: { type: 'BEFORE', i } });
    await waitFor(() => delivered(b.c).length === 50, 3000, 'deliveries');
    const before = parseTrace((await first.api('GET', '/api/labs/keep/trace')).text);
    await Promise.all([a.c.close(), b.c.close()]);
    // Graceful close writes what is still buffered (the leave events above).
    await first.close();

    const second = await startRelay({ dataDir });
    const labs = (await second.api('GET', '/api/labs')).body;
    expect(labs.map((l: { name: string }) => l.name)).toContain('keep');
    const reloaded = parseTrace((await second.api('GET', '/api/labs/keep/trace')).text);
    expect(reloaded.slice(0, before.length)).toEqual(before);
    expect(reloaded.slice(-2).map((e) => e.kind)).toEqual(['leave', 'leave']);
    const lastLamport0 = Math.max(
      ...reloaded
        .filter((e) => ('node' in e && e.node === 0) || (e.kind === 'send' && e.from === 0))
        .map((e) => e.lamport ?? 0),
    );

    const c = await joinAs(second, 'ws', 'keep', 0);
    const d = await joinAs(second, 'ws', 'keep', 1);
    c.c.send({ type: 'send', to: 1, message: { type: 'AFTER' } });
    await waitFor(() => delivered(d.c).length === 1, 3000, 'delivery after restart');
    const after = parseTrace((await second.api('GET', '/api/labs/keep/trace')).text);
    expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i));
    const send = after.find((e) => e.kind === 'send' && e.type === 'AFTER')!;
    expect(send.lamport).toBeGreaterThan(lastLamport0);
    expect(send.t).toBeGreaterThan(reloaded.at(-1)!.t);
    expect((send as { msg: number }).msg).toBeGreaterThan(50);
    await Promise.all([c.c.close(), d.c.close()]);
    await second.close();
  });

  it('serves the trace from a given seq on', async () => {
    const h = await startRelay();
    await h.api('POST', '/api/labs', { name: 'since', size: 2, detector: 'none' });
    const a = await joinAs(h, 'ws', 'since', 0);
    const b = await joinAs(h, 'ws', 'since', 1);
    a.c.send({ type: 'send', to: 1, message: { type: 'X' } });
    await waitFor(() => delivered(b.c).length === 1, 5000, 'delivery');
    const all = parseTrace((await h.api('GET', '/api/labs/since/trace')).text);
    const tail = parseTrace((await h.api('GET', '/api/labs/since/trace?since=1')).text);
    expect(tail).toEqual(all.filter((e) => e.seq > 1));
    expect((await h.api('GET', '/api/labs/since/trace?format=xml')).status).toBe(400);
    await Promise.all([a.c.close(), b.c.close()]);
    await h.close();
  });
});

describe('ShiViz export', () => {
  it('parses with ShiViz default regex; each host ticks once per event and receives dominate their sends', async () => {
    const h = await startRelay();
    await h.api('POST', '/api/labs', {
      name: 'shiviz',
      size: 3,
      detector: 'none',
      fabric: { link: { delay: 2, duplicate: 0.2, loss: 0.1 } },
    });
    const p = await Promise.all(
      [0, 1, 2].map((id) => joinAs(h, id === 1 ? 'socketio' : 'ws', 'shiviz', id)),
    );
    for (let i = 0; i < 30; i++)
      p[i % 3]!.c.send({ type: 'send', to: (i + 1) % 3, message: { type: 'M', i } });
    p[2]!.c.send({
      type: 'report',
      report: { role: 'coordinator', coordinator: 2, electing: false },
    });
    await sleep(100);
    const r = await h.api('GET', '/api/labs/shiviz/trace?format=shiviz');
    expect(r.status).toBe(200);
    const re = new RegExp(SHIVIZ_REGEX, 'g');
    const events = [...r.text.matchAll(re)].map((m) => ({
      host: m.groups!['host']!,
      clock: JSON.parse(m.groups!['clock']!) as Record<string, number>,
      event: m.groups!['event']!,
    }));
    expect(events.length).toBe(r.text.split('\n').filter(Boolean).length / 2);
    const trace = parseTrace((await h.api('GET', '/api/labs/shiviz/trace')).text);
    const last = new Map<string, Record<string, number>>();
    const sends = new Map<string, Record<string, number>>();
    for (const e of events) {
      const prev = last.get(e.host) ?? {};
      expect(e.clock[e.host]).toBe((prev[e.host] ?? 0) + 1);
      for (const [k, v] of Object.entries(prev)) expect(e.clock[k]!).toBeGreaterThanOrEqual(v);
      last.set(e.host, e.clock);
      // The trace's words (describeEvent): `0 sends M to 1 (#5)`, `1 receives M from 0 (#5)`.
      const msg = /\(#(\d+)\)/.exec(e.event)?.[1];
      if (/^\d+ sends /.test(e.event)) sends.set(msg!, e.clock);
      if (/^\d+ receives /.test(e.event)) {
        const dup = trace.find((t) => t.kind === 'duplicate' && String(t.msg) === msg) as
          { of: number } | undefined;
        const sent = sends.get(dup ? String(dup.of) : msg!);
        expect(sent).toBeDefined();
        for (const [k, v] of Object.entries(sent!)) expect(e.clock[k]!).toBeGreaterThanOrEqual(v);
      }
    }
    expect(events.some((e) => / receives /.test(e.event))).toBe(true);
    expect(events.some((e) => e.event.startsWith('2 is coordinator, coordinator 2'))).toBe(true);
    await Promise.all(p.map((x) => x.c.close()));
    await h.close();
  });
});
