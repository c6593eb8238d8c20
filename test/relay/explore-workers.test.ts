// `npm run explore -- --workers N`: the breadth-first search's levels split across worker threads
// (scripts/explore-workers.ts over shared/explore/shard.ts and levels.ts) give the one-thread plain
// search's answer: the same worlds (the sums of their 64-bit fingerprints), states, depth and
// transitions on labs it exhausts, the same first violation with the same shortest schedule, and
// a state bound reported as not exhaustive. Deterministic: each world keeps the first path of the
// one-thread order, whichever thread ran first. docs/CORE_SPEED.md, "Worker threads".
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createKeyer } from '@shared/explore/key.ts';
import { search } from '@shared/explore/search.ts';
import { parseExploreCli } from '../../scripts/explore.ts';
import { searchWithWorkers } from '../../scripts/explore-workers.ts';

const clock = () => performance.now();

function argsOf(algorithm: string, nodes: number, faults: string, more: string[] = []): string[] {
  const args = ['--algorithm', algorithm, '--nodes', String(nodes), '--depth', '200'];
  args.push('--states', '400000', '--seconds', '120', '--probes', '0', '--por', 'off');
  if (faults) args.push('--faults', faults);
  return [...args, ...more];
}

/** The one-thread plain search, and the sums of its worlds' fingerprints. */
function oneThread(argv: string[]) {
  const cli = parseExploreCli(argv);
  const keyer = createKeyer();
  const digest = [0, 0];
  const result = search(
    cli.setup,
    {
      ...cli.limits,
      onWorld: (w) => {
        digest[0] = (digest[0]! + keyer(w)) >>> 0;
        digest[1] = (digest[1]! + keyer.hi) >>> 0;
      },
    },
    clock,
  );
  return { cli, result, digest };
}

// Labs plain search exhausts in a test's time: several algorithms at N = 3, Bully at N = 4 with a crash.
const EXHAUSTED: [string, number, string][] = [
  ['bully', 3, 'crash,restart'],
  ['ring', 3, 'crash'],
  ['ring-active-list', 3, 'crash'],
  ['emergent', 3, 'crash'],
  ['raft', 3, ''],
  ['bully', 4, 'crash'],
];

describe('explore --workers', () => {
  for (const [algorithm, nodes, faults] of EXHAUSTED)
    it(`explore: 2 worker threads exhaust ${algorithm} N = ${nodes}${faults ? ` with ${faults}` : ''} through the same worlds, depth and transitions as one thread`, async () => {
      const argv = argsOf(algorithm, nodes, faults, ['--check', '']);
      const one = oneThread(argv);
      expect(one.result.stoppedBy).toBe('exhausted');
      const two = await searchWithWorkers(one.cli, argv, 2, clock);
      expect(two).toMatchObject({ stoppedBy: 'exhausted', exhaustive: true, bound: null });
      expect([two.states, two.depth, two.transitions]).toEqual([
        one.result.states,
        one.result.depth,
        one.result.transitions,
      ]);
      expect(two.split.digest).toEqual(one.digest);
      expect(two.split.shipped).toBeGreaterThan(0);
    }, 120_000);

  it('explore: 2 and 3 worker threads report one thread’s first violation with the same shortest schedule (000: UB = 2T + M under a slow link)', async () => {
    const argv = argsOf('bully', 4, 'slow');
    const one = oneThread(argv);
    expect(one.result.finding?.violation.property).toBe('safety');
    for (const workers of [2, 3]) {
      const r = await searchWithWorkers(one.cli, argv, workers, clock);
      expect(r.stoppedBy).toBe('found');
      expect([r.states, r.depth]).toEqual([one.result.states, one.result.depth]);
      expect(r.finding!.violation).toEqual(one.result.finding!.violation);
      expect(r.finding!.actions).toEqual(one.result.finding!.actions);
    }
  }, 120_000);

  it('explore: with a state bound the split search says exhaustive: false and names the bound, at one thread’s count', async () => {
    const argv = argsOf('ring', 4, 'crash', ['--states', '5000', '--check', '']);
    const one = oneThread(argv);
    const r = await searchWithWorkers(one.cli, argv, 2, clock);
    expect(r).toMatchObject({ stoppedBy: 'states', exhaustive: false, bound: 'states' });
    expect([r.states, r.depth]).toEqual([one.result.states, one.result.depth]);
  }, 120_000);

  it('explore: the CLI takes --workers and prints what the split cost in its JSON', () => {
    const run = spawnSync(
      'npx',
      ['tsx', 'scripts/explore.ts', ...argsOf('bully', 3, 'crash'), '--workers', '2', '--json'],
      { encoding: 'utf8', timeout: 90_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ exhaustive: true, por: null, split: { workers: 2 } });
    const bad = spawnSync('npx', ['tsx', 'scripts/explore.ts', '--workers', '0'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--workers: from 1 to 16/);
  }, 120_000);
});
