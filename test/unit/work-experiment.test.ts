// `npm run experiment -- --workload tasks` (issue 27; 003's static against dynamic sharing):
// makespan and results lost against workers crashed, as CSV and SVG
// (shared/experiments/work-experiment.ts). 003: static sharing's "crashed machine means missing
// results"; dynamic sharing's coordinator "checks the status of machines" and hands the task again.
import { describe, expect, it } from 'vitest';
import {
  crashSchedule,
  runWorkSweep,
  workCsv,
  WORK_COLUMNS,
} from '@shared/experiments/work-experiment.ts';
import { DEFAULT_JOB } from '@shared/work/work-job.ts';
import { parseExperimentCli, workFiles } from '../../scripts/experiment.ts';

const spec = {
  algorithms: ['bully' as const],
  n: 5,
  tasks: 12,
  taskMs: 400,
  crashes: [0, 1, 2],
  runs: 3,
  seed: 1,
  delay: 100,
};

describe('the work experiment', () => {
  const rows = runWorkSweep(spec);

  it('writes one CSV row per run with the columns the docs name, makespan and lost among them', () => {
    const lines = workCsv(rows).trim().split('\n');
    expect(lines[0]!.split(',')).toEqual([...WORK_COLUMNS]);
    expect(WORK_COLUMNS).toEqual(
      expect.arrayContaining(['sharing', 'crashes', 'lost', 'makespan_ms']),
    );
    expect(lines).toHaveLength(1 + spec.crashes.length * spec.runs * 2);
  });

  it('static sharing loses results once workers crash; dynamic sharing, on the same crash schedules, loses none', () => {
    const of = (sharing: string, crashes: number) =>
      rows.filter((r) => r.sharing === sharing && r.crashes === crashes);
    for (const c of spec.crashes) {
      expect(of('dynamic', c).every((r) => r.lost === 0 && r.completed === spec.tasks)).toBe(true);
      // Paired: the same crash schedule for both sharings.
      expect(of('static', c).map((r) => r.crashed)).toEqual(of('dynamic', c).map((r) => r.crashed));
    }
    expect(of('static', 0).every((r) => r.lost === 0)).toBe(true);
    expect(of('static', 1).reduce((s, r) => s + r.lost, 0)).toBeGreaterThan(0);
    expect(of('static', 2).reduce((s, r) => s + r.lost, 0)).toBeGreaterThan(0);
    // Without crashes static sharing is the faster (no round trip per task, no gathering).
    expect(of('static', 0)[0]!.makespanMs!).toBeLessThan(of('dynamic', 0)[0]!.makespanMs!);
  });

  it('draws makespan and lost against crashes as SVG, a series per sharing', () => {
    const files = workFiles(rows);
    expect(files.map((f) => f.file)).toEqual([
      'work.csv',
      'work-summary.md',
      'work-makespan.svg',
      'work-lost.svg',
    ]);
    for (const f of files.filter((x) => x.file.endsWith('.svg'))) {
      expect(f.text).toMatch(/^<svg/);
      expect(f.text).toMatch(/bully, static sharing/);
      expect(f.text).toMatch(/bully, dynamic sharing/);
    }
    expect(files[1]!.text).toMatch(/\| crashes \| static lost \| dynamic lost/);
  });

  it('crashes distinct processes other than the first coordinator, while static sharing still has work', () => {
    const job = { ...DEFAULT_JOB, tasks: 12, taskMs: 400 };
    const s = crashSchedule(5, job, 3, 7);
    expect(new Set(s.map((x) => x.id)).size).toBe(3);
    expect(s.every((x) => x.id !== 4 && x.at >= 200 && x.at <= 200 + 4 * 400)).toBe(true);
  });

  it('the CLI takes --workload tasks with its own defaults and refuses what it cannot run', () => {
    const { work } = parseExperimentCli(['--workload', 'tasks']);
    expect(work).toMatchObject({
      algorithms: ['bully'],
      n: 6,
      tasks: 24,
      crashes: [0, 1, 2, 3],
      runs: 5,
    });
    expect(parseExperimentCli([]).work).toBeNull();
    expect(() =>
      parseExperimentCli(['--workload', 'tasks', '--crashes', '5', '--nodes', '4']),
    ).toThrow(/--crashes/);
    expect(() => parseExperimentCli(['--workload', 'x'])).toThrow(/--workload/);
  });
});
