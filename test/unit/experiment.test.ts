import { describe, expect, it } from 'vitest';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import {
  counting,
  DETECT_AT,
  DEFAULT_SWEEP,
  runOne,
  sweepRuns,
  type SweepSpec,
} from '@shared/experiments/experiment.ts';
import { toCsv } from '@shared/experiments/experiment-tables.ts';
import { expectedFor, expectedMessages } from '@shared/analysis/formulas.ts';
import { simulate } from '@shared/sim/simulator.ts';
import { experimentFiles, parseExperimentCli, runExperiment } from '../../scripts/experiment.ts';

const tiny: SweepSpec = {
  ...DEFAULT_SWEEP,
  algorithms: ['bully', 'ring'],
  nodes: [4, 6],
  cases: ['worst'],
  runs: 2,
};

describe('experiment', () => {
  it('experiment: a sweep runs every algorithm x case x loss x N x run, each run with its own seed', () => {
    const runs = sweepRuns({ ...tiny, cases: ['worst', 'best'], drops: [0, 0.1] });
    expect(runs).toHaveLength(2 * 2 * 2 * 2 * 2);
    expect(new Set(runs.map((r) => r.seed))).toEqual(new Set([tiny.seed, tiny.seed + 1]));
    expect(
      new Set(runs.map((r) => `${r.algorithm}/${r.case}/${r.drop}/${r.n}/${r.run}`)).size,
    ).toBe(runs.length);
  });

  it('experiment: the CSV has one row per run, a column per message type, and the counts the formulas predict', () => {
    const rows = runExperiment(tiny);
    const lines = toCsv(rows).trim().split('\n');
    expect(lines).toHaveLength(1 + rows.length);
    const head = lines[0]!.split(',');
    for (const col of [
      'algorithm',
      'n',
      'case',
      'ELECTION',
      'OK',
      'COORDINATOR',
      'ACK',
      'election_T',
      'agreed',
    ])
      expect(head).toContain(col);
    const bully6 = lines
      .slice(1)
      .map((l) => l.split(','))
      .find((c) => c[0] === 'bully' && c[1] === '6')!;
    expect(Number(bully6[head.indexOf('ELECTION')])).toBe(
      expectedMessages('bully', 6, 'worst').messages.ELECTION!.mean,
    );
    expect(Number(bully6[head.indexOf('ACK')])).toBe(0);
    expect(bully6[head.indexOf('agreed')]).toBe('true');
  });

  it("experiment: the random case draws a different detector per run, and every run matches its detector's formula", () => {
    const rows = runExperiment({
      ...tiny,
      algorithms: ['bully'],
      nodes: [9],
      cases: ['random'],
      runs: 12,
    });
    expect(new Set(rows.map((r) => r.initiator)).size).toBeGreaterThan(3);
    for (const r of rows) {
      expect(r.initiator).toBeLessThan(8);
      const e = expectedFor('bully', 9, r.initiator).messages;
      expect({ ELECTION: 0, OK: 0, COORDINATOR: 0, ...r.messages }).toEqual(e);
    }
  });

  it('experiment: a loss sweep adds the agreement figure and table; without loss every run agrees', () => {
    const spec = { ...tiny, algorithms: ['bully' as const], nodes: [5], runs: 6, drops: [0, 0.3] };
    const rows = runExperiment(spec);
    expect(rows.filter((r) => r.drop === 0).every((r) => r.agreed)).toBe(true);
    expect(rows.filter((r) => r.drop === 0.3).some((r) => r.dropped > 0)).toBe(true);
    const files = experimentFiles(spec, rows);
    expect(files.map((f) => f.file)).toEqual([
      'runs.csv',
      'summary.md',
      'messages-bully-worst.svg',
      'time-worst.svg',
      'agreement.svg',
    ]);
    const agreement = files.find((f) => f.file === 'agreement.svg')!.text;
    expect(agreement.startsWith('<svg')).toBe(true);
    expect(agreement.trim().endsWith('</svg>')).toBe(true);
    // One marker per loss rate (the legend shows a line).
    expect(agreement.match(/<circle/g)).toHaveLength(2);
    expect(files.find((f) => f.file === 'summary.md')!.text).toMatch(/Agreement under loss/);
  });

  it('experiment: the message plot draws each formula beside the measured points', () => {
    const rows = runExperiment({ ...tiny, algorithms: ['bully'], runs: 1 });
    const svg = experimentFiles({ ...tiny, algorithms: ['bully'] }, rows).find(
      (f) => f.file === 'messages-bully-worst.svg',
    )!.text;
    expect(svg).toContain('ELECTION: N(N−1)/2');
    expect(svg).toContain('COORDINATOR: N−2');
    expect(svg.match(/stroke-dasharray/g)!.length).toBeGreaterThanOrEqual(3);
  });

  it('experiment: progress goes from 0 to 1 without stepping back', () => {
    const seen: number[] = [];
    runExperiment(tiny, (share) => seen.push(share));
    expect(seen[0]).toBe(0);
    expect(seen.at(-1)).toBe(1);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
  });

  it("experiment: counting only sees sends from the given time on (Raft's start-up heartbeats are not election messages)", () => {
    const counted: Record<string, number> = {};
    const r = simulate({
      algorithm: counting(getAlgorithm('raft'), DETECT_AT, counted),
      ids: [0, 1, 2, 3],
      detector: 'none',
      crashes: [{ id: 3, at: 0 }],
      elections: [{ id: 0, at: DETECT_AT }],
      trace: false,
    });
    expect(r.messages.byType.HEARTBEAT).toBe(3 + 3);
    expect(counted).toEqual({ REQUEST_VOTE: 3, VOTE: 2, HEARTBEAT: 3 });
  });

  it('experiment: the CLI refuses unknown algorithms, cases and impossible sizes', () => {
    expect(
      parseExperimentCli([
        '--algorithm',
        'bully,raft',
        '--nodes',
        '4,8',
        '--case',
        'random',
        '--runs',
        '3',
        '--drop',
        '0,0.1',
      ]).spec,
    ).toMatchObject({
      algorithms: ['bully', 'raft'],
      nodes: [4, 8],
      cases: ['random'],
      runs: 3,
      drops: [0, 0.1],
    });
    expect(() => parseExperimentCli(['--algorithm', 'paxos'])).toThrow(/--algorithm/);
    expect(() => parseExperimentCli(['--case', 'average'])).toThrow(/--case/);
    expect(() => parseExperimentCli(['--nodes', '1'])).toThrow(/--nodes/);
    expect(() => parseExperimentCli(['--drop', '1.5'])).toThrow(/--drop/);
  });

  it('experiment: the measured Bully worst case holds with jitter too (the counts do not depend on timing)', () => {
    const row = runOne({
      algorithm: 'bully',
      n: 7,
      case: 'worst',
      run: 0,
      seed: 5,
      delay: 60,
      jitter: 40,
      drop: 0,
      detector: 'none',
    });
    expect(row.messages).toEqual(expectedFor('bully', 7, 0).messages);
    expect(row.electionTimeT!).toBeLessThanOrEqual(expectedFor('bully', 7, 0).time + 1e-9);
  });
});
