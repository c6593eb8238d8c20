import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseCli, runSimulation, specFor } from '../../scripts/simulate.ts';

describe('simulate CLI', () => {
  it('simulate: --initiator reproduces Figure 6-20 (7 crashed, 4 detects, 6 wins)', () => {
    const { options } = parseCli([
      '--algorithm',
      'bully',
      '--nodes',
      '8',
      '--crash',
      '7',
      '--initiator',
      '4',
    ]);
    const r = runSimulation(options, false);
    expect(r.messages.byType).toEqual({ ELECTION: 6, OK: 3, COORDINATOR: 6 });
    expect(new Set(Object.values(r.coordinatorByNode))).toEqual(new Set([6]));
    expect(Object.keys(r.coordinatorByNode)).toHaveLength(7);
  });

  it('simulate: --ids replaces 0..N-1 and ids outside the set are refused', () => {
    const { options } = parseCli(['--ids', '3,10,42', '--crash', '42', '--initiator', '3']);
    expect(runSimulation(options, false).coordinatorByNode).toEqual({ 3: 10, 10: 10 });
    expect(() => parseCli(['--nodes', '4', '--crash', '9'])).toThrow(/not among/);
    expect(() => parseCli(['--algorithm', 'paxos'])).toThrow(/--algorithm/);
    expect(() => parseCli(['--drop', '2'])).toThrow(/probability/);
  });

  it('simulate: --transmission, --link-at and --fresh replay ALGORITHMS.md "Late answers" (slow links past the declared T)', () => {
    const base = ['--nodes', '25', '--transmission', '100', '--delay', '50', '--jitter', '300'];
    const slowThenBack = [...base, '--link-at', '5000:80:20', '--until', '40000'];
    const crashed = runSimulation(
      parseCli([...slowThenBack, '--crash', '24', '--initiator', '0', '--detector', 'none'])
        .options,
      false,
    );
    // 002/003's worst case, exactly: N(N-1)/2 ELECTIONs and (N-1)(N-2)/2 OKs, then agreement on 23.
    expect(crashed.messages.byType).toMatchObject({ ELECTION: 300, OK: 276 });
    expect(crashed.agreed).toBe(true);
    const fresh = runSimulation(
      parseCli([...slowThenBack, '--fresh', '--detector', 'none']).options,
      false,
    );
    expect(fresh.messages.byType.ELECTION).toBe(300);
    expect(new Set(Object.values(fresh.coordinatorByNode))).toEqual(new Set([24]));
    // The options reach the simulator as the declared T and a link change at 5 s.
    const spec = specFor(parseCli([...slowThenBack, '--fresh']).options, false);
    expect(spec.timing).toEqual({ transmission: 100 });
    expect(spec.linkChanges).toEqual([{ at: 5000, link: { delay: 80, jitter: 20 } }]);
    expect(spec.initialCoordinator).toBeNull();
    expect(specFor(parseCli(base).options, false)).not.toHaveProperty('linkChanges');
    expect(() => parseCli(['--link-at', '5000'])).toThrow(/MS:DELAY/);
    expect(() => parseCli(['--link-at', '5000:x'])).toThrow(/--link-at delay/);
  });

  it('simulate: without --initiator every failure detector runs and the survivors still agree', () => {
    const { options } = parseCli([
      '--algorithm',
      'ring',
      '--nodes',
      '6',
      '--crash',
      '5',
      '--seed',
      '3',
    ]);
    const r = runSimulation(options, false);
    expect(new Set(Object.values(r.coordinatorByNode))).toEqual(new Set([4]));
    expect(r.truncated).toBe(true);
  });

  it('simulate: --json prints one object with the documented fields', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/simulate.ts',
        '--algorithm',
        'bully',
        '--nodes',
        '5',
        '--crash',
        '4',
        '--initiator',
        '0',
        '--seed',
        '9',
        '--json',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    const r = JSON.parse(out);
    expect(r.seed).toBe(9);
    expect(r.messages.total).toBe(10 + 6 + 3);
    expect(r.messages.byType).toEqual({ ELECTION: 10, OK: 6, COORDINATOR: 3 });
    expect(typeof r.electionTime).toBe('number');
    expect(r.coordinatorByNode).toEqual({ 0: 3, 1: 3, 2: 3, 3: 3 });
  });

  it('simulate: "agreed" means one live coordinator (002: e_i = P, P non-crashed), not merely one shared belief', () => {
    // Issue 26, item 6: an idle initiator detects nothing, every live process keeps following the crashed 7.
    const { options } = parseCli([
      '--algorithm',
      'emergent',
      '--nodes',
      '8',
      '--crash',
      '7',
      '--initiator',
      '0',
    ]);
    const r = runSimulation(options, false);
    expect(new Set(Object.values(r.coordinatorByNode))).toEqual(new Set([7]));
    expect(r.agreed).toBe(false);
    expect(r.disagreement).toMatch(/7, which is down/);
  });

  it('simulate: --json carries the warnings the text prints (README: "also in --json as warnings")', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/simulate.ts',
        '--algorithm',
        'emergent',
        '--nodes',
        '8',
        '--crash',
        '7',
        '--initiator',
        '0',
        '--json',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    const r = JSON.parse(out);
    expect(r.agreed).toBe(false);
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toMatch(/every live process believes in 7, which crashed/);
    expect(r.warnings[1]).toMatch(/initiator 0 is an idle process/);
    const fine = JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--import',
          'tsx',
          'scripts/simulate.ts',
          '--nodes',
          '5',
          '--crash',
          '4',
          '--initiator',
          '0',
          '--json',
        ],
        { encoding: 'utf8', timeout: 30_000 },
      ),
    );
    expect(fine).toMatchObject({ agreed: true, disagreement: null, warnings: [] });
  });
});
