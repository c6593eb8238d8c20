// One fold of the trace (@shared/analysis/lab-fold.ts): a relay lab driven through joins,
// reports, crashes, leaves, a partition and a time-scale change is seen the same by the relay's
// own snapshot, by the live dashboard's model fed the observer stream, and by replay folding the
// trace file; and the stats rebuilt from the trace alone equal the relay's.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Report } from '@shared/algorithms/algorithm.ts';
import { finalState } from '@shared/analysis/replay.ts';
import type { ServerFrame } from '@shared/protocol/frames.ts';
import { parseTraceFile } from '@shared/protocol/trace-file.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import {
  crash,
  elect,
  partition,
  pauseProcess,
  recover,
  resumeProcess,
  setFabric,
} from '../../server/lab/lab-control.ts';
import { StatsTracker } from '../../server/lab/stats-tracker.ts';
import { LabModel } from '../../client/src/utils/lab-model.ts';
import { snapshotOf } from '../helpers/client-lab-fixtures.ts';
import { FakeConn, manualLab, tempDir } from '../helpers/relay-lab.ts';

const report = (coordinator: number | null, electing = false): Report => ({
  role: electing ? 'electing' : 'follower',
  coordinator,
  electing,
});

describe('one fold: the relay, the live model and replay agree', () => {
  const tmp = tempDir('lab-fold-');

  it('joins, reports, a crashed process leaving and coming back, a leave, a partition, a restart by time scale', async () => {
    const { lab, clock, path } = manualLab(tmp.path, 'fold', { size: 5, resumeGraceMs: 0 });
    const observer = new FakeConn();
    lab.observers.add(observer);
    const conns = [0, 1, 2, 3].map(() => new FakeConn());
    const entries = conns.map((c, id) => {
      const r = lab.join(c, { id });
      if (!r.ok) throw new Error('join');
      return r.value;
    });
    for (const e of entries) lab.report(e, report(3));
    clock.advance(5);
    lab.send(entries[0]!, 1, { type: 'PING' });
    lab.report(entries[2]!, report(null, true));
    elect(lab, 2);
    crash(lab, 1);
    clock.advance(20);
    // A crashed process that leaves stays crashed (the relay's rule), and so when it comes back.
    lab.leave(conns[1]!, 1, true);
    const back = new FakeConn();
    if (!lab.join(back, { id: 1 }).ok) throw new Error('rejoin');
    // A live process that leaves is absent: the same word everywhere (replay used to say `gone`).
    lab.leave(conns[3]!, 3, true);
    partition(lab, [
      [0, 1],
      [2, 3, 4],
    ]);
    lab.report(entries[0]!, report(0));
    // A new time scale restarts every process: their reports are gone until they report again.
    setFabric(lab, { timeScale: 2 });
    lab.report(entries[2]!, report(2));
    recover(lab, 1);
    lab.observers.flush();
    const relay = lab.snapshot();
    await lab.close();

    const frames = observer.frames;
    const model = new LabModel();
    model.applySnapshot((frames[0] as Extract<ServerFrame, { type: 'snapshot' }>).snapshot);
    const streamed: TraceEvent[] = [];
    for (const f of frames.slice(1)) if (f.type === 'events') streamed.push(...f.events);
    model.applyEvents(streamed);

    const parsed = parseTraceFile(await readFile(path, 'utf8'));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const replayed = finalState(parsed.trace);

    const view = (ps: Iterable<{ id: number; status: string; report: Report | null }>) =>
      [...ps]
        .filter((p) => p.status !== 'absent' || p.report)
        .map((p) => [p.id, p.status, p.report?.coordinator ?? null])
        .sort((a, b) => Number(a[0]) - Number(b[0]));
    const expected = view(relay.processes);
    expect(expected).toEqual([
      [0, 'up', null],
      [1, 'up', null],
      [2, 'up', 2],
    ]);
    expect(view(model.list())).toEqual(expected);
    expect(view(replayed.processes)).toEqual(expected);
    expect(replayed.processes.find((p) => p.id === 3)?.status).toBe('absent');
    expect(model.partition).toEqual(relay.partition);
    expect(replayed.partition).toEqual(relay.partition);
    expect(model.inFlight).toBe(relay.inFlight);
    expect(replayed.inFlight).toHaveLength(relay.inFlight);

    // The stats are a consumer of the trace: the trace file alone gives the relay's figures.
    const rebuilt = new StatsTracker();
    for (const e of parsed.trace.events) rebuilt.observe(e);
    const extra = { coordinators: {}, processes: { up: 0, crashed: 0, absent: 0 }, relay: {} };
    expect(rebuilt.snapshot(0, extra)).toEqual(lab.stats.snapshot(0, extra));
    expect(lab.stats.snapshot(0, extra)).toMatchObject({
      messages: { sent: 1 },
      election: { active: false, startedAt: 5 },
    });
  });

  it('per-process pauses: paused, resumed, ended by a crash; a message held for a paused process is in flight everywhere', async () => {
    const { lab, clock, path } = manualLab(tmp.path, 'fold-pause', { size: 4 });
    const observer = new FakeConn();
    lab.observers.add(observer);
    const entries = [0, 1, 2, 3].map((id) => {
      const r = lab.join(new FakeConn(), { id });
      if (!r.ok) throw new Error('join');
      return r.value;
    });
    for (const e of entries) lab.report(e, report(3));
    pauseProcess(lab, 1);
    pauseProcess(lab, 2);
    pauseProcess(lab, 3);
    lab.send(entries[0]!, 1, { type: 'PING' });
    clock.advance(50);
    resumeProcess(lab, 2);
    crash(lab, 3);
    lab.observers.flush();
    const relay = lab.snapshot();
    await lab.close();

    const model = new LabModel();
    model.applySnapshot(
      (observer.frames[0] as Extract<ServerFrame, { type: 'snapshot' }>).snapshot,
    );
    model.applyEvents(observer.frames.flatMap((f) => (f.type === 'events' ? f.events : [])));
    const parsed = parseTraceFile(await readFile(path, 'utf8'));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const replayed = finalState(parsed.trace);

    const view = (
      ps: Iterable<{ id: number; status: string; paused?: true; report: Report | null }>,
    ) =>
      [...ps]
        .map((p) => [p.id, p.status, p.paused === true, p.report?.coordinator ?? null])
        .sort((a, b) => Number(a[0]) - Number(b[0]));
    const expected = view(relay.processes);
    expect(expected).toEqual([
      [0, 'up', false, 3],
      [1, 'up', true, 3],
      [2, 'up', false, 3],
      [3, 'crashed', false, null],
    ]);
    expect(view(model.list())).toEqual(expected);
    expect(view(replayed.processes)).toEqual(expected);
    expect(relay.inFlight).toBe(1);
    expect(model.inFlight).toBe(1);
    expect(replayed.inFlight).toHaveLength(1);
  });

  it('a snapshot and the events after it give the relay snapshot taken later', () => {
    const m = new LabModel();
    m.applySnapshot(snapshotOf([0, 1]));
    m.applyEvents([
      { seq: 0, t: 1, kind: 'crash', node: 1 },
      { seq: 1, t: 2, kind: 'leave', node: 1 },
      { seq: 2, t: 3, kind: 'join', node: 1 },
      { seq: 3, t: 4, kind: 'leave', node: 0 },
    ]);
    expect(m.list().map((p) => [p.id, p.status, p.kind])).toEqual([
      [0, 'absent', null],
      [1, 'crashed', null],
    ]);
  });
});
