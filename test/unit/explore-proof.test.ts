// What the explorer proved (issue 26, item 5) and the faults that find restart bugs (item 3):
// `exhaustive`, the bound that stopped the search, the random probes run after it, and a
// restart with the state lost at any step.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, type AlgorithmName } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import type { ExploreSetup, FaultBudget } from '@shared/explore/world.ts';
import { search } from '@shared/explore/search.ts';
import { provenWords } from '@shared/explore/verdict.ts';
import { settleBound } from '@shared/explore/probe.ts';
import { studentAlgorithm } from '@shared/grader/student.ts';
import { pathToFileURL } from 'node:url';
import { parseExploreCli } from '../../scripts/explore.ts';
import { brokenModule } from '../fixtures/grader/broken.ts';

const clock = () => performance.now();
const NO_FAULTS: FaultBudget = { crash: 0, restart: 0, drop: 0, partition: 0, slow: 0 };

function setup(
  algorithm: AlgorithmName,
  n: number,
  extra: Partial<ExploreSetup> = {},
): ExploreSetup {
  const ids = Array.from({ length: n }, (_, i) => i);
  return {
    algorithm: getAlgorithm(algorithm),
    ids,
    timing: DEFAULT_TIMING,
    detector: 'none',
    initialCoordinator: n - 1,
    crashed: [n - 1],
    initiators: ids.slice(0, -1),
    detectWindow: DEFAULT_TIMING.transmission,
    budget: NO_FAULTS,
    seed: 1,
    extremes: true,
    ...extra,
  };
}

/** Raft at N = 5, all up, 1 and 3 campaign at once; one crash and one restart anywhere. */
function raftRestart(restartQuietPeriod?: number): ExploreSetup {
  return setup('raft', 5, {
    crashed: [],
    initiators: [1, 3],
    budget: { ...NO_FAULTS, crash: 1, restart: 1 },
    ...(restartQuietPeriod === undefined ? {} : { options: { restartQuietPeriod } }),
  });
}

const PROBES = { count: 2000, steps: 3000, ms: 600_000 };

describe('explore: what was proven', () => {
  it('explore: a search that checks every reachable world says exhaustive, names no bound and runs no probe', () => {
    const s = setup('bully', 4);
    const r = search(s, { depth: 200, states: 100_000, ms: 600_000, probes: PROBES }, clock);
    expect(r).toMatchObject({
      exhaustive: true,
      bound: null,
      stoppedBy: 'exhausted',
      probes: { run: 0 },
    });
    expect(provenWords(s, r)).toBe(
      `every schedule of 4 processes (3 down from the start) and no fault checked (${r.states.toLocaleString('en')} states, search complete)`,
    );
  });

  it('explore: a search stopped by a bound says not exhaustive, names the bound and counts the random probes it ran after', () => {
    const s = setup('ring', 4, { budget: { ...NO_FAULTS, crash: 1 } });
    const r = search(
      s,
      { depth: 200, states: 2000, ms: 600_000, probes: { ...PROBES, count: 40 } },
      clock,
    );
    expect(r).toMatchObject({
      exhaustive: false,
      bound: 'states',
      finding: null,
      probes: { run: 40 },
    });
    expect(r.probes.settled).toBe(40);
    expect(provenWords(s, r)).toBe(
      'not exhaustive: 2,000 states to depth ' +
        r.depth +
        ' (stopped by the state bound) and 40 random schedules (40 carried to the end of the election) of 4 processes (3 down from the start) with one crash checked',
    );
    const byDepth = search(s, { depth: 3, states: 1e9, ms: 600_000 }, clock);
    expect(byDepth).toMatchObject({ exhaustive: false, bound: 'depth', probes: { run: 0 } });
  });

  it('explore: random probes are deterministic (the same setup and seed take the same schedules)', () => {
    const a = search(raftRestart(0), { depth: 4, states: 1e9, ms: 600_000, probes: PROBES }, clock);
    const b = search(raftRestart(0), { depth: 4, states: 1e9, ms: 600_000, probes: PROBES }, clock);
    expect(a.finding).not.toBeNull();
    expect(b.finding!.actions).toEqual(a.finding!.actions);
    expect(b.probes).toEqual(a.probes);
  });

  it('explore --json fields: --alive starts everyone up, restart is a fault, probes are bounded by --probes', () => {
    const cli = parseExploreCli([
      '--algorithm',
      'raft',
      '--nodes',
      '5',
      '--alive',
      '--initiators',
      '1,3',
      '--faults',
      'crash,restart',
      '--probes',
      '7',
    ]);
    expect(cli.setup.crashed).toEqual([]);
    expect(cli.setup.budget).toMatchObject({ crash: 1, restart: 1 });
    expect(cli.limits.probes).toMatchObject({ count: 7 });
    expect(() => parseExploreCli(['--nodes', '4', '--initiators', '3'])).toThrow(/not a live id/);
  });
});

describe('explore: restart with the state lost', () => {
  it('explore: a Raft that forgets its vote on a restart votes twice in one term, and two lead term 2 (Raft §5.2, Figure 2: votedFor is persistent)', () => {
    // restartQuietPeriod 0: the reference without its guard, a fresh process votes at once.
    const r = search(raftRestart(0), { depth: 5, states: 1e9, ms: 600_000, probes: PROBES }, clock);
    expect(r.finding?.violation.property).toBe('safety');
    expect(r.finding?.violation.message).toMatch(/both lead in term \d/);
    expect(r.finding?.actions.map((a) => a.kind)).toEqual(
      expect.arrayContaining(['crash', 'restart']),
    );
  });

  it('explore: the same Raft keeps one leader per term when no process can restart (the bug needs the restart)', () => {
    const s = { ...raftRestart(0), budget: { ...NO_FAULTS, crash: 1 } };
    const r = search(s, { depth: 5, states: 1e9, ms: 600_000, probes: PROBES }, clock);
    expect(r.finding).toBeNull();
    expect(r.probes.run).toBe(PROBES.count);
  });

  it('explore: the reference Raft, quiet for one election timeout after a restart, keeps one leader per term', () => {
    const r = search(raftRestart(), { depth: 5, states: 1e9, ms: 600_000, probes: PROBES }, clock);
    expect(r.finding).toBeNull();
    expect(r.probes.run).toBe(PROBES.count);
  });
});

describe('explore: agreement where the documents say the election is over', () => {
  it('explore: a probe checks agreement at the settle bound after the last fault (002: "all processes eventually set e_i = P"), not only at quiescence', async () => {
    const file = brokenModule('ring-skips-one');
    const subject = studentAlgorithm(await import(pathToFileURL(file).href), {
      algorithm: 'ring',
      url: file,
      copyState: true,
    });
    const base = setup('ring', 4, { algorithm: subject, budget: { ...NO_FAULTS, crash: 1 } });
    const settle = settleBound('ring', base.ids, base.timing)!;
    const r = search(
      { ...base, settle },
      { depth: 200, states: 2000, ms: 600_000, probes: { ...PROBES, count: 400 } },
      clock,
    );
    expect(r.finding?.by).toBe('probe');
    expect(r.finding?.violation.message).toMatch(
      new RegExp(
        `which is down \\(\\d+ ms after the last fault; the documents' bound is ${Math.round(settle)} ms\\)`,
      ),
    );
  });
});
