import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALGORITHM_NAMES } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { parseTraceFile, serializeTrace, type ParsedTrace } from '@shared/protocol/trace-file.ts';
import { finalState, replayIndex, stateAt } from '@shared/analysis/replay.ts';
import { simulate, type SimulationSpec } from '@shared/sim/simulator.ts';

function roundTrip(spec: SimulationSpec) {
  const r = simulate(spec);
  const text = serializeTrace(
    { source: 'simulator', algorithm: spec.algorithm.name, ids: [...spec.ids], seed: r.seed },
    r.trace,
  );
  const parsed = parseTraceFile(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return { r, trace: parsed.trace };
}

const ids = [0, 1, 2, 3, 4, 5, 6, 7];

describe('replay', () => {
  it.each(ALGORITHM_NAMES)(
    'replay: a %s trace with loss, jitter, crashes and a partition replays to the final states the simulator reported',
    (name) => {
      const { r, trace } = roundTrip({
        algorithm: getAlgorithm(name),
        ids,
        seed: 11,
        link: { delay: 60, jitter: 40, drop: 0.05 },
        dropUntil: 8000,
        crashes: [
          { id: 7, at: 1000 },
          { id: 2, at: 3000 },
        ],
        recoveries: [{ id: 2, at: 6000 }],
        partitions: [
          {
            at: 4000,
            groups: [
              [0, 1, 2],
              [3, 4, 5, 6, 7],
            ],
          },
          { at: 7000, groups: null },
        ],
        until: 8000,
      });
      const end = finalState(trace);
      const up = end.processes.filter((p) => p.status === 'up').map((p) => p.id);
      expect(up).toEqual(r.live);
      expect(end.coordinators).toEqual(r.coordinatorByNode);
      for (const id of r.live)
        expect(end.processes.find((p) => p.id === id)!.report).toEqual(r.reports[id]);
      expect(end.processes.find((p) => p.id === 7)!.status).toBe('crashed');
      expect(end.applied).toBe(trace.events.length);
    },
  );

  it('replay: Figure 6-20 (000): right after 4 holds its election, its three ELECTIONs are in flight and 7 is down', () => {
    const { trace } = roundTrip({
      algorithm: getAlgorithm('bully'),
      ids,
      detector: 'none',
      crashes: [{ id: 7, at: 0 }],
      elections: [{ id: 4, at: 0 }],
    });
    const electAt = trace.events.findIndex((e) => e.kind === 'elect');
    const firstDeliver = trace.events.findIndex((e) => e.kind === 'deliver' || e.kind === 'drop');
    const s = stateAt(trace, firstDeliver);
    expect(s.inFlight.map((f) => [f.from, f.to, f.type])).toEqual([
      [4, 5, 'ELECTION'],
      [4, 6, 'ELECTION'],
      [4, 7, 'ELECTION'],
    ]);
    expect(s.processes.find((p) => p.id === 7)!.status).toBe('crashed');
    expect(s.coordinators[4]).toBeNull();
    // Before the election everyone still believes 7.
    expect(new Set(Object.values(stateAt(trace, electAt).coordinators))).toEqual(new Set([7]));
    // At the end 6 won and nothing is in flight.
    const end = finalState(trace);
    expect(new Set(Object.values(end.coordinators))).toEqual(new Set([6]));
    expect(end.inFlight).toEqual([]);
  });

  it('replay: folding from checkpoints gives the same state as folding from the start, at every index', () => {
    const { trace } = roundTrip({
      algorithm: getAlgorithm('ring'),
      ids,
      seed: 3,
      link: { delay: 50, jitter: 50 },
      crashes: [{ id: 7, at: 500 }],
      until: 6000,
    });
    const index = replayIndex(trace, 7);
    expect(index.checkpoints.length).toBe(Math.floor(trace.events.length / 7) + 1);
    for (let i = 0; i <= trace.events.length; i += 3)
      expect(stateAt(trace, i, index)).toEqual(stateAt(trace, i));
    expect(stateAt(trace, trace.events.length + 50)).toEqual(finalState(trace));
    expect(stateAt(trace, -4).applied).toBe(0);
  });

  it('replay: the simulate CLI --trace file parses and replays to the coordinators the CLI printed', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'replay-')), 'bully.jsonl');
    const out = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/simulate.ts',
        '--algorithm',
        'bully',
        '--nodes',
        '6',
        '--crash',
        '5',
        '--seed',
        '4',
        '--jitter',
        '30',
        '--trace',
        file,
        '--json',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    const printed = JSON.parse(out);
    const parsed = parseTraceFile(readFileSync(file, 'utf8'));
    expect(parsed.ok).toBe(true);
    const trace = (parsed as { trace: ParsedTrace }).trace;
    expect(trace.header).toMatchObject({
      kind: 'header',
      version: 1,
      source: 'simulator',
      algorithm: 'bully',
      seed: 4,
    });
    expect(finalState(trace).coordinators).toEqual(printed.coordinatorByNode);
  });

  // A leave makes a process `absent`, as in the relay's snapshot and the live dashboard (one fold,
  // @shared/analysis/lab-fold.ts); replay used to say `gone`, which nothing else knew.
  it('replay: a relay trace without header: processes appear on join, leave is absent, duplicates fly with their original body', () => {
    const lines = [
      { seq: 0, t: 0, kind: 'join', node: 3 },
      { seq: 1, t: 1, kind: 'join', node: 9 },
      {
        seq: 2,
        t: 2,
        kind: 'report',
        node: 9,
        report: { role: 'coordinator', coordinator: 9, electing: false },
      },
      {
        seq: 3,
        t: 3,
        kind: 'send',
        msg: 1,
        from: 9,
        to: 3,
        type: 'HEARTBEAT',
        message: { type: 'HEARTBEAT' },
      },
      { seq: 4, t: 3, kind: 'duplicate', msg: 2, of: 1, from: 9, to: 3, type: 'HEARTBEAT' },
      { seq: 5, t: 4, kind: 'deliver', msg: 1, from: 9, to: 3, type: 'HEARTBEAT' },
      { seq: 7, t: 5, kind: 'leave', node: 9 },
    ];
    const parsed = parseTraceFile(lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(parsed.ok).toBe(true);
    const trace = (parsed as { trace: ParsedTrace }).trace;
    expect(trace.header).toBeNull();
    const mid = stateAt(trace, 6);
    expect(mid.inFlight).toEqual([
      { msg: 2, from: 9, to: 3, type: 'HEARTBEAT', sentAt: 3, message: { type: 'HEARTBEAT' } },
    ]);
    expect(mid.coordinators).toEqual({ 3: null, 9: 9 });
    const end = finalState(trace);
    expect(end.processes.map((p) => [p.id, p.status])).toEqual([
      [3, 'up'],
      [9, 'absent'],
    ]);
    expect(end.coordinators).toEqual({ 3: null });
  });

  it('replay: a malformed file yields problems with line numbers, not an exception', () => {
    const good = { seq: 1, t: 0, kind: 'elect', node: 1 };
    const text = [
      JSON.stringify({ kind: 'header', version: 99, source: 'simulator' }),
      '{not json',
      JSON.stringify(good),
      JSON.stringify({ ...good, seq: 1 }),
      JSON.stringify({ seq: 2, t: 0, kind: 'teleport', node: 1 }),
      JSON.stringify({
        seq: 3,
        t: 0,
        kind: 'drop',
        msg: 1,
        from: 1,
        to: 2,
        type: 'OK',
        reason: 'gremlins',
      }),
    ].join('\n');
    const r = parseTraceFile(text);
    expect(r.ok).toBe(false);
    const problems = (r as { problems: { line: number; message: string }[] }).problems;
    expect(problems.map((p) => p.line)).toEqual([1, 2, 4, 5, 6]);
    expect(problems[0]!.message).toMatch(/version 99/);
    expect(problems[2]!.message).toMatch(/does not increase/);
    expect(problems[4]!.message).toMatch(/reason/);
  });
});

describe('replay: hand-played processes', () => {
  it("counts each process's deviations from the reference up to the cursor, across checkpoints, and a reset clears them", () => {
    const text = [
      '{"kind":"header","version":1,"source":"relay","algorithm":"bully","ids":[1,2,3]}',
      '{"seq":0,"t":0,"kind":"join","node":3}',
      '{"seq":1,"t":10,"kind":"deviation","node":3,"rule":"bully.answer","text":"no OK to 1 within UB: 000: …","action":null}',
      '{"seq":2,"t":20,"kind":"deviation","node":3,"rule":"bully.declare","text":"declared herself coordinator: 003: …","action":"Declare myself coordinator"}',
      '{"seq":3,"t":30,"kind":"deviation","node":2,"rule":"bully.hold","text":"…","action":null}',
      '{"seq":4,"t":40,"kind":"control","action":"reset"}',
    ].join('\n');
    const parsed = parseTraceFile(text);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const index = replayIndex(parsed.trace, 2);
    expect(stateAt(parsed.trace, 1).deviations).toEqual({});
    expect(stateAt(parsed.trace, 3, index).deviations).toEqual({ 3: 2 });
    expect(stateAt(parsed.trace, 4, index).deviations).toEqual({ 2: 1, 3: 2 });
    expect(finalState(parsed.trace).deviations).toEqual({});
  });
});
