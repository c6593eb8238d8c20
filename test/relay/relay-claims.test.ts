// What the class board may believe (docs/RELIABILITY.md, "What the board vouches for"): a grade
// frame is a claim, refused when it contradicts itself and labelled claimed when kept; a
// hand-played student's actions, sends and deviations are the relay's own (its coach on what it
// delivered to her and what she sent), whatever her tab reports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DEVIATION_EVENTS } from '@shared/protocol/class-play.ts';
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { ClassFigures } from '../../server/lab/class-figures.ts';
import { JUDGE_MS } from '../../server/lab/hand-audit.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import {
  joinAs,
  labTrace,
  SAFE_TIMING,
  startRelay,
  waitFor,
  type Harness,
} from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

const info = async (lab: string, id: number) =>
  (await h.api('GET', `/api/labs/${lab}/processes/${id}`)).body as ProcessInfo &
    Record<string, unknown>;
const honest = {
  algorithm: 'bully',
  pass: false,
  passed: 11,
  total: 13,
  failing: { id: 'c1', title: 'one crash', reason: 'no COORDINATOR' },
};

describe('grade frames are claims', () => {
  for (const transport of ['ws', 'socketio'] as const) {
    it(`refuses a summary that contradicts itself and labels a kept one claimed (${transport})`, async () => {
      const lab = `claims-grade-${transport}`;
      expect((await h.api('POST', '/api/labs', { name: lab, size: 3 })).status).toBe(201);
      const { c } = await joinAs(h, transport, lab, 1);
      const forged = [
        [
          { ...honest, pass: true, passed: 200, total: 1, failing: null },
          'summary.passed: passed cannot exceed total',
        ],
        [
          { ...honest, pass: true, passed: 12, total: 13, failing: null },
          'summary.pass: pass is true only when every case passed',
        ],
        [
          { ...honest, pass: true, passed: 13, total: 13 },
          'summary.failing: pass is true only when no case failed',
        ],
      ] as const;
      for (const [summary, why] of forged) {
        const from = c.received.length;
        c.send({ type: 'grade', summary, ref: 'g' });
        const err = await c.next((f) => f.type === 'error', 3000, from);
        expect(err).toMatchObject({ code: 'BAD_FRAME', ref: 'g' });
        expect((err as { details?: string[] }).details?.join(' | ')).toContain(why);
        expect((err as { message: string }).message).toContain(why);
      }
      expect((await info(lab, 1)).claimedGrade).toBeUndefined();

      // A consistent pass is kept, but only as her tab's claim: no `grade` a reader could take for a verdict.
      c.send({
        type: 'grade',
        summary: { ...honest, pass: true, passed: 13, total: 13, failing: null },
      });
      await waitFor(
        async () => (await info(lab, 1)).claimedGrade !== undefined,
        3000,
        'the claimed grade kept',
      );
      const p = await info(lab, 1);
      expect(p.claimedGrade).toMatchObject({
        claimed: true,
        pass: true,
        passed: 13,
        total: 13,
        trace: false,
      });
      expect(p['grade']).toBeUndefined();
      expect((await h.api('GET', `/api/labs/${lab}`)).body.processes[1].claimedGrade.claimed).toBe(
        true,
      );
      await c.close();
    });
  }
});

describe("a hand-played student's figures are the relay's", () => {
  it("counts her sends and moves itself, runs its own coach on what it delivered, and keeps the tab's numbers as claims", async () => {
    const lab = 'claims-hand';
    expect(
      (
        await h.api('POST', '/api/labs', {
          name: lab,
          algorithm: 'bully',
          ids: [1, 2, 3],
          timing: SAFE_TIMING,
          detector: 'none',
          fabric: { link: { delay: 5 } },
        })
      ).status,
    ).toBe(201);
    const her = await joinAs(h, 'ws', lab, 2);
    her.c.send({ type: 'mode', mode: 'hand' });
    const low = await joinAs(h, 'ws', lab, 1);
    // 1 holds an election; her tab says nothing of it, and claims 400 clean clicks.
    low.c.send({ type: 'send', to: 2, message: { type: 'ELECTION', election: 1 } });
    for (let i = 0; i < 400; i++)
      her.c.send({ type: 'hand', action: 'answered OK', deviations: [] });
    await waitFor(
      async () => (await info(lab, 2)).hand?.claimed.clicks === 400,
      5000,
      'the claims counted',
    );
    // UB = 2T + M after the ELECTION she never answers, and after her own start election she never holds, the relay's coach marks both.
    await waitFor(
      async () => ((await info(lab, 2)).hand?.deviations ?? 0) >= 2,
      5000,
      "the relay's marks",
    );
    let p = await info(lab, 2);
    expect(p.hand).toMatchObject({ actions: 0, sends: 0, claimed: { clicks: 400, deviations: 0 } });
    const marks = (await labTrace(h, lab)).filter(
      (e): e is Extract<TraceEvent, { kind: 'deviation' }> => e.kind === 'deviation',
    );
    expect(marks.every((d) => d.node === 2)).toBe(true);
    expect(new Set(marks.map((d) => d.rule))).toEqual(new Set(['bully.answer', 'bully.hold']));
    expect(marks.find((d) => d.rule === 'bully.answer')!.action).toBe('no OK to 1 within UB');

    // Her real moves: the relay counts what reached it, one click for the two sends that come together.
    her.c.send({ type: 'send', to: 1, message: { type: 'OK', election: 1 } });
    her.c.send({ type: 'send', to: 3, message: { type: 'ELECTION', election: 1 } });
    await waitFor(async () => (await info(lab, 2)).hand?.sends === 2, 3000, 'her sends counted');
    p = await info(lab, 2);
    expect(p.hand!.actions).toBe(1);
    expect(p.hand!.claimed.clicks).toBe(400);
    await her.c.close();
    await low.c.close();
  });

  it('a new holder of the id starts with no figures of the last one', async () => {
    const lab = 'claims-holder';
    expect((await h.api('POST', '/api/labs', { name: lab, size: 3 })).status).toBe(201);
    const first = await joinAs(h, 'ws', lab, 1);
    first.c.send({ type: 'mode', mode: 'hand' });
    first.c.send({ type: 'hand', action: 'x', deviations: [] });
    await waitFor(async () => (await info(lab, 1)).hand?.claimed.clicks === 1, 3000, 'a claim');
    first.c.send({ type: 'leave' });
    await first.c.next((f) => f.type === 'left');
    const second = await joinAs(h, 'ws', lab, 1);
    expect((await info(lab, 1)).hand).toBeUndefined();
    await first.c.close();
    await second.c.close();
  });

  it('an id the instructor removes takes its figures (and its audit) with it', async () => {
    const lab = 'claims-removed';
    expect((await h.api('POST', '/api/labs', { name: lab, ids: [1, 2, 3] })).status).toBe(201);
    const her = await joinAs(h, 'ws', lab, 3);
    her.c.send({ type: 'mode', mode: 'hand' });
    her.c.send({ type: 'hand', action: 'x', deviations: [] });
    await waitFor(async () => (await info(lab, 3)).hand?.claimed.clicks === 1, 3000, 'a claim');
    expect((await h.api('PUT', `/api/labs/${lab}`, { ids: [1, 2] })).status).toBe(200);
    expect((await h.api('PUT', `/api/labs/${lab}`, { ids: [1, 2, 3] })).status).toBe(200);
    expect((await info(lab, 3)).hand).toBeUndefined();
    await her.c.close();
  });
});

describe("the relay's coach, on a manual clock", () => {
  const config = {
    algorithm: 'bully' as const,
    ids: [1, 2, 3],
    ring: [],
    timing: SAFE_TIMING,
    detector: 'none' as const,
    options: {},
    seed: 7,
  };
  const UB = 2 * SAFE_TIMING.transmission + SAFE_TIMING.processing;

  it('journals at most MAX_DEVIATION_EVENTS marks per id, and rejoining does not reset the cap', () => {
    const clock = new ManualClock();
    const journaled: string[] = [];
    const figures = new ClassFigures({
      clock,
      config: () => config,
      journal: (_id, d) => journaled.push(d.rule),
      onError: (e) => {
        throw e;
      },
    });
    // Each ELECTION its own (a repeat of one the reference still owes an OK for is answered by that one OK).
    let n = 0;
    const flood = (count: number) => {
      for (let i = 0; i < count; i++) {
        clock.advance(1);
        figures.delivered(2, 1, JSON.stringify({ type: 'ELECTION', election: ++n }));
      }
      clock.advance(UB + 2 * JUDGE_MS);
    };
    figures.start(2);
    flood(MAX_DEVIATION_EVENTS + 10);
    // Each ELECTION's missed OK (due 1 ms apart) and the start election she never held: each counted once.
    expect(figures.info(2)!.deviations).toBe(MAX_DEVIATION_EVENTS + 11);
    expect(journaled.length).toBe(MAX_DEVIATION_EVENTS);
    // Someone new takes id 2 (or she rejoins without her token): her figures start over, the cap does not.
    figures.forget(2);
    figures.start(2);
    flood(5);
    expect(figures.info(2)!.deviations).toBeGreaterThanOrEqual(5);
    expect(journaled.length).toBe(MAX_DEVIATION_EVENTS);
    figures.dispose();
    expect(clock.pending).toBe(0);
  });

  it('keeps no window: past the 600 entries her tab folds, every deadline she lets pass is still counted, once', () => {
    const clock = new ManualClock();
    const figures = new ClassFigures({
      clock,
      config: () => config,
      journal: () => {},
      onError: (e) => {
        throw e;
      },
    });
    figures.start(2);
    for (let i = 0; i < 2000; i++) {
      clock.advance(3);
      figures.delivered(2, 1, JSON.stringify({ type: 'ELECTION', election: i + 1 }));
    }
    clock.advance(UB + 2 * JUDGE_MS);
    expect(figures.info(2)!.deviations).toBe(2001);
    figures.dispose();
  });

  it("runs the lab's detector in its shadow, as her tab's coach does (issue 24): a stale ELECTION from below while 3's heartbeats come is answered OK only, and her OK is not marked", () => {
    const clock = new ManualClock();
    const marks: string[] = [];
    const hb = { ...config, detector: 'heartbeat' as const };
    const figures = new ClassFigures({
      clock,
      config: () => hb,
      journal: (_id, d) => marks.push(`${d.rule}: ${d.action}`),
      onError: (e) => {
        throw e;
      },
    });
    const beat = (ms: number) => {
      for (let t = 0; t < ms; t += SAFE_TIMING.heartbeatInterval) {
        clock.advance(SAFE_TIMING.heartbeatInterval);
        figures.delivered(2, 3, JSON.stringify({ type: 'HEARTBEAT' }));
      }
    };
    figures.start(2);
    // Her start election, answered by 3, which she then follows.
    figures.sent(2, 3, { type: 'ELECTION', election: 1, term: 1 });
    figures.delivered(2, 3, JSON.stringify({ type: 'OK', election: 1, term: 1 }));
    figures.delivered(2, 3, JSON.stringify({ type: 'COORDINATOR', term: 1 }));
    figures.reported(2, { role: 'follower', coordinator: 3, electing: false });
    beat(3 * SAFE_TIMING.heartbeatInterval);
    figures.delivered(2, 1, JSON.stringify({ type: 'ELECTION', election: 4, term: 3 }));
    figures.sent(2, 1, { type: 'OK', election: 4, term: 3 });
    beat(3 * UB + 2 * JUDGE_MS);
    expect(marks).toEqual([]);
    figures.dispose();
  });

  it("says who holds the class up by its own coach and clock (issue 24): the answers she owes, the oldest one's wait, time electing; stuck past 2 x UB of either", () => {
    const clock = new ManualClock();
    const figures = new ClassFigures({
      clock,
      config: () => config,
      journal: () => {},
      onError: (e) => {
        throw e;
      },
    });
    figures.start(2);
    const progress = () => figures.info(2)!.progress!;
    // 000: her start election, ELECTION to 3, is owed from the start.
    clock.advance(JUDGE_MS);
    expect(progress()).toEqual({ open: 1, oldestOpenMs: JUDGE_MS, electingMs: null, stuck: false });
    clock.advance(2 * UB + JUDGE_MS);
    expect(progress()).toMatchObject({ open: 1, stuck: true });
    expect(progress().oldestOpenMs).toBeGreaterThan(2 * UB);
    figures.sent(2, 3, { type: 'ELECTION', election: 1, term: 1 });
    figures.reported(2, { role: 'electing', coordinator: null, electing: true });
    // 3 answers OK: the reference now only waits for its COORDINATOR.
    figures.delivered(2, 3, JSON.stringify({ type: 'OK', election: 1, term: 1 }));
    clock.advance(JUDGE_MS);
    expect(progress()).toEqual({ open: 0, oldestOpenMs: null, electingMs: JUDGE_MS, stuck: false });
    clock.advance(2 * UB);
    expect(progress()).toMatchObject({ electingMs: JUDGE_MS + 2 * UB, stuck: true });
    figures.reported(2, { role: 'follower', coordinator: 3, electing: false });
    expect(progress()).toMatchObject({ electingMs: null });
    // Her tab gone, the figures stay and the live measure goes with the audit.
    figures.stop(2);
    expect(figures.info(2)!.progress).toBeUndefined();
    figures.dispose();
  });

  it("finds the election her coordinator's silence calls for, as her tab's detector would", () => {
    const clock = new ManualClock();
    const marks: string[] = [];
    const hb = { ...config, detector: 'heartbeat' as const };
    const figures = new ClassFigures({
      clock,
      config: () => hb,
      journal: (_id, d) => marks.push(`${d.rule}: ${d.action}`),
      onError: (e) => {
        throw e;
      },
    });
    figures.start(2);
    // She follows 3 (its COORDINATOR reached her), then 3 falls silent and she does nothing.
    figures.delivered(2, 3, JSON.stringify({ type: 'COORDINATOR' }));
    figures.reported(2, { role: 'follower', coordinator: 3, electing: false });
    clock.advance(UB + 2 * JUDGE_MS);
    const before = marks.length;
    clock.advance(SAFE_TIMING.heartbeatTimeout + UB + 2 * JUDGE_MS);
    expect(marks.slice(before)).toContain('bully.hold: no ELECTION to 3 within UB');
    figures.dispose();
  });
});
