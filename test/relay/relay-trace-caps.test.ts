// Issue 23, "the trace caps do not bound disk use": past its cap a trace stopped writing message
// events only, so one connection sending reports wrote 374 MB in 15 s against a 1 MB cap and a
// 2 MB disk budget; and the 200 deviations journaled per student started over at each rejoin.
// Now every event kind is counted, not written, past the cap (or the budget) plus FULL_ALLOWANCE,
// and the per-student caps belong to the lab's id until a reset.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Conn } from '../../server/lab/conn.ts';
import { FULL_ALLOWANCE } from '../../server/trace/trace-store.ts';
import { parseTrace, startRelay, type Harness } from '../helpers/relay-harness.ts';

const harnesses: Harness[] = [];
afterAll(async () => {
  for (const h of harnesses) await h.close();
});
const MiB = 2 ** 20;

/** An in-process connection (no socket limits): what a flood at any rate would deliver. */
function inProcess(h: Harness) {
  const got: string[] = [];
  const conn: Conn = {
    id: -1,
    transport: 'server',
    sendText: (t) => void got.push(t),
    overloaded: () => false,
    close: () => {},
  };
  return { session: h.relay.session(conn), got };
}

describe('trace caps', () => {
  it('cover every event kind: a flood of reports, mode changes, faults and hand frames stays within the cap plus the allowance', async () => {
    const h = await startRelay({
      traceMaxBytes: MiB,
      diskBudgetBytes: 2 * MiB,
      rateLimits: { rate: 1e9, burst: 1e9 },
    });
    harnesses.push(h);
    expect(
      (await h.api('POST', '/api/labs', { name: 'caps', size: 64, detector: 'none' })).status,
    ).toBe(201);
    const pad = 'p'.repeat(60);
    // 64 students (the per-id cap on faults does not stop 64 of them) for 30,000 rounds: about 10 MB of events uncapped.
    const students = Array.from({ length: 64 }, (_, id) => {
      const s = inProcess(h);
      s.session.onFrame({ type: 'join', lab: 'caps', id }, false);
      return s;
    });
    for (let i = 0; i < 30_000; i++) {
      const { session } = students[i % 64]!;
      session.onFrame(
        {
          type: 'report',
          report: {
            role: Math.floor(i / 64) % 2 ? 'leader' : 'follower',
            coordinator: i % 64,
            electing: false,
            detail: { note: pad },
          },
        },
        false,
      );
      if (i % 64 === 0) session.onFrame({ type: 'mode', mode: i % 128 ? 'hand' : 'auto' }, false);
      if (i % 50 === 0)
        session.onFrame({ type: 'fault', error: pad, event: 'message:X', restarted: true }, false);
      if (i % 50 === 25)
        session.onFrame(
          { type: 'hand', action: 'Elect', deviations: [{ rule: 'bully.answer', text: pad }] },
          false,
        );
      if (i % 1000 === 0) await new Promise((r) => setImmediate(r));
    }
    const lab = h.relay.labs.get('caps')!;
    await lab.deps.store.flush();
    const path = join(h.dataDir, 'caps.jsonl');
    // The note at the edge is the only line past the allowance.
    expect((await stat(path)).size).toBeLessThanOrEqual(MiB + FULL_ALLOWANCE + 1024);
    const stats = (await h.api('GET', '/api/labs/caps/stats')).body;
    expect(stats.trace.full).toBe(true);
    expect(stats.trace.unwritten.report).toBeGreaterThan(10_000);
    expect(stats.trace.unwritten.note).toBeGreaterThan(0);
    expect((await h.api('GET', '/api/health')).body.traces.full).toEqual(['caps']);
    const events = parseTrace(await readFile(path, 'utf8'));
    expect(events.filter((e) => e.kind === 'note' && e.text.startsWith('trace full'))).toHaveLength(
      1,
    );
    // Every event kept its sequence number: what is in the file is in order, and the last seq the lab gave is past it.
    expect(events.every((e, i) => i === 0 || e.seq > events[i - 1]!.seq)).toBe(true);
    expect(lab.lastSeq).toBeGreaterThan(events.at(-1)!.seq + 10_000);
  }, 30_000);

  // Deviations are the relay's own coach's now (class-figures.ts caps them per id: relay-claims.test.ts).
  it('journal at most 20 faults per id, however often she leaves and rejoins', async () => {
    const h = await startRelay({ rateLimits: { rate: 1e9, burst: 1e9 } });
    harnesses.push(h);
    expect(
      (await h.api('POST', '/api/labs', { name: 'rejoin', size: 2, detector: 'none' })).status,
    ).toBe(201);
    for (let visit = 0; visit < 3; visit++) {
      // A new connection each time, without the resume token: the relay sees a new holder of id 0.
      const { session, got } = inProcess(h);
      session.onFrame({ type: 'join', lab: 'rejoin', id: 0 }, false);
      expect(got.some((t) => t.includes('"joined"'))).toBe(true);
      for (let i = 0; i < 15; i++)
        session.onFrame({ type: 'fault', error: 'e', event: 'message:X', restarted: true }, false);
      session.onFrame({ type: 'leave' }, false);
      session.close();
    }
    await h.relay.labs.get('rejoin')!.deps.store.flush();
    const events = parseTrace(await readFile(join(h.dataDir, 'rejoin.jsonl'), 'utf8'));
    expect(events.filter((e) => e.kind === 'fault')).toHaveLength(20);
    // A reset is a fresh trace: the caps start over.
    expect((await h.api('POST', '/api/labs/rejoin/reset')).status).toBe(200);
    const { session } = inProcess(h);
    session.onFrame({ type: 'join', lab: 'rejoin', id: 0 }, false);
    session.onFrame({ type: 'fault', error: 'e', event: 'message:X', restarted: true }, false);
    await h.relay.labs.get('rejoin')!.deps.store.flush();
    const fresh = parseTrace(await readFile(join(h.dataDir, 'rejoin.jsonl'), 'utf8'));
    expect(fresh.filter((e) => e.kind === 'fault')).toHaveLength(1);
  });
});
