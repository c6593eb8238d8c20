// The breadth-first search split into shards (shared/explore/shard.ts, levels.ts), run in this
// thread (localPool), against the one-thread plain search (bfs.ts, sleep sets off): the same
// worlds, depth, transitions, violations met, quiet outcomes, first violation and its schedule,
// and the state bound cut at the same world. docs/CORE_SPEED.md, "Worker threads".
// test/relay/explore-workers.test.ts holds the same with real worker threads.
import { describe, expect, it } from 'vitest';
import { checkAgreement, checkSafety, type Violation } from '@shared/analysis/properties.ts';
import { createKeyer } from '@shared/explore/key.ts';
import { localPool, mergeRanks } from '@shared/explore/levels.ts';
import { checker, search, searchSplit } from '@shared/explore/search.ts';
import { live, reportsOf, type ExploreSetup, type World } from '@shared/explore/world.ts';
import { parseExploreCli, type ExploreCli } from '../../scripts/explore.ts';

const clock = () => performance.now();

function lab(algorithm: string, nodes: number, faults: string, more: string[] = []): ExploreCli {
  const args = ['--algorithm', algorithm, '--nodes', String(nodes), '--depth', '200'];
  args.push('--states', '400000', '--seconds', '120', '--probes', '0', '--por', 'off');
  if (faults) args.push('--faults', faults);
  return parseExploreCli([...args, ...more]);
}

/** What any world shows: every violation met (not only the first) and every quiet outcome. */
function recorder(setup: ExploreSetup) {
  const violations = new Set<string>();
  const quiet = new Set<string>();
  const keyer = createKeyer();
  let lo = 0;
  let hi = 0;
  const see = (w: World): Violation | null => {
    const l = keyer(w);
    lo = (lo + l) >>> 0;
    hi = (hi + keyer.hi) >>> 0;
    const up = live(setup, w);
    const reports = reportsOf(setup, w);
    const s = checkSafety(up, reports);
    if (s) violations.add(s.message);
    if (w.pending.length === 0) {
      quiet.add(JSON.stringify(reports));
      const a = checkAgreement(setup.algorithm.name, up, reports);
      if (a) violations.add(a.message);
    }
    return null;
  };
  return { see, violations, quiet, digest: () => [lo, hi] };
}

const LABS: [string, number, string][] = [
  ['bully', 3, 'crash'],
  ['bully', 3, 'crash,restart'],
  ['ring', 3, 'crash'],
  ['ring-active-list', 3, 'crash'],
  ['emergent', 3, ''],
  ['raft', 3, ''],
  ['bully', 4, 'crash'],
];

describe('explore: the search split into shards', () => {
  for (const [algorithm, nodes, faults] of LABS)
    it(`explore: 2 and 3 shards visit the worlds one thread visits in ${algorithm} N = ${nodes}${faults ? ` with ${faults}` : ''}, with the same violations met and quiet outcomes, depth and transitions`, async () => {
      const cli = lab(algorithm, nodes, faults, ['--check', '']);
      const one = recorder(cli.setup);
      const r1 = search(cli.setup, { ...cli.limits, onWorld: (w) => one.see(w) }, clock);
      expect(r1.stoppedBy).toBe('exhausted');
      for (const shards of [2, 3]) {
        const many = recorder(cli.setup);
        const pool = localPool(cli.setup, shards, many.see, clock);
        const r = await searchSplit(cli.setup, cli.limits, pool, clock);
        const what = `${shards} shards`;
        expect(r.stoppedBy, what).toBe('exhausted');
        expect([r.states, r.depth, r.transitions], what).toEqual([
          r1.states,
          r1.depth,
          r1.transitions,
        ]);
        expect(many.digest(), what).toEqual(one.digest());
        expect(r.split.digest, what).toEqual(one.digest());
        expect([...many.violations].sort(), what).toEqual([...one.violations].sort());
        expect([...many.quiet].sort(), what).toEqual([...one.quiet].sort());
        // Worlds cross between shards (else nothing was split).
        expect(r.split.shipped, what).toBeGreaterThan(0);
      }
    }, 60_000);

  it('explore: the first violation and its schedule are one thread’s, whatever the split (bfs: the shortest, then the first found)', async () => {
    // 000: a slow link breaks detection by timeout (UB = 2T + M); Raft split by a partition.
    for (const [algorithm, nodes, faults] of [
      ['bully', 4, 'slow'],
      ['ring', 3, 'slow'],
      ['raft', 3, 'partition'],
    ] as const) {
      const cli = lab(algorithm, nodes, faults);
      const r1 = search(cli.setup, cli.limits, clock);
      expect(r1.finding, `${algorithm} ${faults}`).not.toBeNull();
      for (const shards of [2, 3]) {
        const pool = localPool(cli.setup, shards, checker(cli.setup, cli.limits.check), clock);
        const r = await searchSplit(cli.setup, cli.limits, pool, clock);
        expect(r.stoppedBy).toBe('found');
        expect([r.states, r.depth]).toEqual([r1.states, r1.depth]);
        expect(r.finding!.violation).toEqual(r1.finding!.violation);
        expect(r.finding!.actions).toEqual(r1.finding!.actions);
      }
    }
  }, 60_000);

  it('explore: a state bound stops the split search at the world one thread stops at, not exhaustive', async () => {
    const cli = lab('bully', 4, 'crash', ['--states', '3000', '--check', '']);
    const r1 = search(cli.setup, cli.limits, clock);
    const pool = localPool(cli.setup, 2, checker(cli.setup, []), clock);
    const r = await searchSplit(cli.setup, cli.limits, pool, clock);
    expect(r1).toMatchObject({ stoppedBy: 'states', bound: 'states', exhaustive: false });
    expect(r).toMatchObject({ stoppedBy: 'states', bound: 'states', exhaustive: false });
    expect([r.states, r.depth]).toEqual([r1.states, r1.depth]);
  }, 60_000);

  it('explore: merging the shards’ sorted keys gives each world its place in the level', () => {
    const ranks = mergeRanks([Float64Array.of(1, 4, 9), Float64Array.of(2, 3), Float64Array.of()]);
    expect(ranks.map((r) => [...r])).toEqual([[0, 3, 4], [1, 2], []]);
  });
});
