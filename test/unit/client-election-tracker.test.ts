import { describe, expect, it } from 'vitest';
import { bully } from '@shared/algorithms/bully.ts';
import { simulate } from '@shared/sim/simulator.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { windowFigures } from '../../client/src/utils/election-tracker.ts';
import { LabModel } from '../../client/src/utils/lab-model.ts';
import { snapshotOf } from '../helpers/client-lab-fixtures.ts';

const ids = [0, 1, 2, 3, 4];

/** 002, Bully analysis: the lowest id detects the coordinator's crash (worst case). */
function worstCaseBully() {
  return simulate({
    algorithm: bully,
    ids,
    detector: 'none',
    crashes: [{ id: 4, at: 0 }],
    elections: [{ id: 0, at: 1 }],
    seed: 1,
    link: { delay: 10, jitter: 0, drop: 0 },
  });
}

function modelFed(trace: TraceEvent[], batch = 7): LabModel {
  const m = new LabModel();
  m.applySnapshot(snapshotOf(ids));
  for (let i = 0; i < trace.length; i += batch) m.applyEvents(trace.slice(i, i + batch));
  return m;
}

describe('election tracker', () => {
  it('finds the election in a Bully trace: from the elect event to the last process settling', () => {
    const run = worstCaseBully();
    const m = modelFed(run.trace);
    const w = m.tracker.shown!;
    expect(m.tracker.current).toBeNull();
    expect(w.start).toBe(run.trace.find((e) => e.kind === 'elect')!.t);
    expect(w.end! - w.start).toBe(run.electionTime);
    expect(w.trigger).toContain('elect');
  });

  it('counts the messages each type sent in the window, as the relay trace has them', () => {
    const run = worstCaseBully();
    const w = modelFed(run.trace).tracker.shown!;
    expect(w.sent).toEqual(run.messages.byType);
    // 002: N(N-1)/2 ELECTION messages when the lowest id detects the failure (N = 5 ids).
    expect(w.sent.ELECTION).toBe((5 * 4) / 2);
  });

  it('mean one-way latency comes from matched send and deliver events', () => {
    const w = modelFed(worstCaseBully().trace).tracker.shown!;
    const f = windowFigures(w, 10_000);
    expect(f.meanLatency).toBe(10); // every link delays exactly 10 ms in this run
    expect(f.finished).toBe(true);
    expect(w.dropped).toBe(4); // the four ELECTIONs to the crashed 4
  });

  it('keeps the crash that set the election off, and the whole election, for the space-time diagram', () => {
    const run = worstCaseBully();
    const w = modelFed(run.trace).tracker.shown!;
    expect(w.events[0]).toMatchObject({ kind: 'crash', node: 4 });
    expect(w.events.filter((e) => e.kind === 'send')).toHaveLength(run.messages.total);
  });

  it('batching does not change the result: one event at a time and all at once agree', () => {
    const run = worstCaseBully();
    const a = modelFed(run.trace, 1).tracker.shown!;
    const b = modelFed(run.trace, run.trace.length).tracker.shown!;
    expect({ ...a, serial: 0 }).toEqual({ ...b, serial: 0 });
  });

  it('a non-election message in a settled lab opens no election', () => {
    const m = new LabModel();
    m.applySnapshot(snapshotOf([1, 2]));
    const r = (node: number, t: number) => ({
      seq: t,
      t,
      kind: 'report' as const,
      node,
      report: { role: node === 2 ? 'coordinator' : 'follower', coordinator: 2, electing: false },
    });
    m.applyEvents([r(1, 1), r(2, 2)]);
    m.applyEvents([
      {
        seq: 3,
        t: 3,
        kind: 'send',
        msg: 1,
        from: 1,
        to: 2,
        type: 'SLAVE_LEAVE',
        message: { type: 'SLAVE_LEAVE' },
      },
    ]);
    expect(m.tracker.shown).toBeNull();
    expect(m.agreement().settled).toBe(true);
  });

  it('heartbeats never open an election', () => {
    const m = new LabModel();
    m.applySnapshot(snapshotOf([1, 2]));
    m.applyEvents([
      {
        seq: 1,
        t: 1,
        kind: 'send',
        msg: 1,
        from: 2,
        to: 1,
        type: 'HEARTBEAT',
        message: { type: 'HEARTBEAT' },
      },
    ]);
    expect(m.tracker.current).toBeNull();
  });

  it('messages of a finished election that land later still end their arrows', () => {
    const m = new LabModel();
    m.applySnapshot(snapshotOf([1, 2]));
    const r = (
      seq: number,
      node: number,
      role: string,
      coordinator: number | null,
      electing: boolean,
    ) => ({ seq, t: seq, kind: 'report' as const, node, report: { role, coordinator, electing } });
    m.applyEvents([
      r(1, 1, 'electing', null, true),
      { seq: 2, t: 2, kind: 'send', msg: 7, from: 2, to: 1, type: 'OK', message: { type: 'OK' } },
      r(3, 2, 'coordinator', 2, false),
      r(4, 1, 'follower', 2, false),
      { seq: 5, t: 5, kind: 'deliver', msg: 7, from: 2, to: 1, type: 'OK' },
    ]);
    const w = m.tracker.shown!;
    expect(w.end).toBe(4);
    expect(w.delivered).toBe(1);
    expect(w.events.at(-1)).toMatchObject({ kind: 'deliver', msg: 7 });
  });

  it('events the relay sampled out during an election are counted against that election only', () => {
    const m = new LabModel();
    m.applySnapshot(snapshotOf(ids));
    m.applyEvents([], 40); // before any election: nobody to blame
    const run = worstCaseBully();
    m.applyEvents(run.trace.slice(0, 20), 7); // mid-election
    expect(m.tracker.current!.sampledOut).toBe(7);
    m.applyEvents(run.trace.slice(20));
    expect(m.tracker.shown!.sampledOut).toBe(7);
  });

  it('a reset of the lab forgets the election on show', () => {
    const m = modelFed(worstCaseBully().trace);
    m.applyEvents([{ seq: 999, t: 3, kind: 'control', action: 'reset' }]);
    expect(m.tracker.shown).toBeNull();
    expect(m.needsSnapshot).toBe(true);
    expect(m.now).toBe(3); // the relay's timeline restarted
  });
});

describe('election tracker with a work schedule (issue 27)', () => {
  it("a settled lab's task orders and results open no election window; the election's figures leave them out", () => {
    const m = new LabModel();
    m.applySnapshot(snapshotOf(ids));
    const send = (seq: number, type: string): TraceEvent => ({
      seq,
      t: seq * 10,
      kind: 'send',
      msg: seq,
      from: 4,
      to: 0,
      type,
      message: { type, token: 1, task: 0, reportTo: 4 },
    });
    m.applyEvents([send(1, 'WORK_ASSIGN'), send(2, 'WORK_STORE'), send(3, 'WORK_HOLD')]);
    expect(m.tracker.shown).toBeNull();
    const fig = windowFigures(
      {
        serial: 1,
        start: 0,
        end: 10,
        trigger: '',
        sent: { ELECTION: 3, WORK_ASSIGN: 5 },
        dropped: 0,
        delivered: 0,
        latencySum: 0,
        sawElecting: true,
        events: [],
        truncated: 0,
        sampledOut: 0,
      },
      10,
    );
    expect([fig.electionMessages, fig.backgroundMessages]).toEqual([3, 5]);
  });
});
