// `npm run simulate` with the work schedule's and the fault schedule's options (issue 27):
// scripts/simulate-work.ts, spread into scripts/simulate.ts.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseCli, runSimulation } from '../../scripts/simulate.ts';

describe('simulate CLI: work schedule', () => {
  it('--tasks prints the tasks figures; static sharing with a crashed worker loses its share, dynamic does not', () => {
    const args = [
      '--algorithm',
      'bully',
      '--nodes',
      '5',
      '--tasks',
      '12',
      '--slow',
      '1:4',
      '--crash-at',
      '2@1000',
    ];
    const dynamic = runSimulation(parseCli(args).options, false).tasks!;
    const stat = runSimulation(parseCli([...args, '--sharing', 'static']).options, false).tasks!;
    expect(dynamic).toMatchObject({ total: 12, completed: 12, lost: 0, staleAccepted: 0 });
    expect(stat.lost).toBeGreaterThan(0);
    expect(stat.completed + stat.lost).toBe(12);
    expect(dynamic.makespanMs!).toBeLessThan(stat.makespanMs!);
  });

  it('--crash-at works without --tasks: the process crashes at that virtual time and the others elect anew', () => {
    const r = runSimulation(
      parseCli(['--algorithm', 'bully', '--nodes', '4', '--crash-at', '3@2000']).options,
      true,
    );
    expect(r.tasks).toBeUndefined();
    expect(r.trace.find((e) => e.kind === 'crash')).toMatchObject({ node: 3, t: 2000 });
    expect(new Set(Object.values(r.coordinatorByNode))).toEqual(new Set([2]));
  });

  it('--partition-at and --heal-at cut and heal the lab at those times', () => {
    const r = runSimulation(
      parseCli([
        '--algorithm',
        'bully',
        '--nodes',
        '6',
        '--partition-at',
        '500:0,1,2|3,4,5',
        '--heal-at',
        '4000',
      ]).options,
      true,
    );
    expect(
      r.trace
        .filter((e) => e.kind === 'partition')
        .map((e) => [e.t, e.kind === 'partition' ? e.groups : null]),
    ).toEqual([
      [
        500,
        [
          [0, 1, 2],
          [3, 4, 5],
        ],
      ],
      [4000, null],
    ]);
  });

  it('bad work options are refused, naming the option', () => {
    expect(() => parseCli(['--tasks', '0'])).toThrow(/--tasks/);
    expect(() => parseCli(['--tasks', '4', '--sharing', 'fair'])).toThrow(/--sharing/);
    expect(() => parseCli(['--tasks', '4', '--fencing', 'maybe'])).toThrow(/--fencing/);
    expect(() => parseCli(['--tasks', '4', '--slow', '1:0'])).toThrow(/--slow/);
    expect(() => parseCli(['--nodes', '4', '--crash-at', '9@100'])).toThrow(/--crash-at: id 9/);
    expect(() => parseCli(['--nodes', '4', '--crash-at', '1-100'])).toThrow(/ID@MS/);
    expect(() => parseCli(['--heal-at', '100'])).toThrow(/--partition-at/);
    expect(() => parseCli(['--slow', '1:2'])).toThrow(/needs --tasks/);
  });

  it('--json prints a tasks object with the documented fields', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/simulate.ts',
        '--algorithm',
        'raft',
        '--nodes',
        '4',
        '--tasks',
        '6',
        '--crash-at',
        '3@700',
        '--json',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    const { tasks } = JSON.parse(out);
    expect(Object.keys(tasks).sort()).toEqual(
      [
        'completed',
        'duplicates',
        'lost',
        'makespanMs',
        'reassigned',
        'staleAccepted',
        'staleRefused',
        'total',
        'wrong',
      ].sort(),
    );
    expect(tasks).toMatchObject({ total: 6, completed: 6, lost: 0 });
  });
});
