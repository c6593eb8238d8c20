// `npm run explore -- --workload tasks` (issue 27; 003's work schedule; docs/WORK_SCHEDULE.md,
// "Every schedule"): the explorer's search, with the work layer over the election, checks that
// no result is lost, none counted twice and no stale order obeyed. 003: "What happens if two
// machines decide they are co-ordinators? ... Need to timestamp communications."
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import { checkTrace } from '@shared/analysis/checker.ts';
import { parseTraceFile, type ParsedTrace } from '@shared/protocol/trace-file.ts';
import { DOWN, type ExploreSetup, type Proc, type World } from '@shared/explore/world.ts';
import { workInvariant } from '@shared/work/work-explore.ts';
import { noResults } from '@shared/work/task-results.ts';
import { DEFAULT_JOB } from '@shared/work/work-job.ts';
import { ZERO_COUNTERS, type WorkState } from '@shared/work/work-state.ts';
import { parseExploreCli, runExplore } from '../../scripts/explore.ts';

const clock = () => performance.now();
// Bounded by states and probe counts, not by time, so a loaded machine finds the same.
const argv = (fencing: 'on' | 'off') => [
  '--workload',
  'tasks',
  '--algorithm',
  'bully',
  '--nodes',
  '3',
  '--alive',
  '--faults',
  'partition',
  '--fencing',
  fencing,
  '--states',
  '5000',
  '--probes',
  '100',
  '--seconds',
  '600',
  '--probe-seconds',
  '600',
];

describe('explore --workload tasks', () => {
  it('with fencing off, finds the schedule where a process obeys the stale coordinator, prints it and writes it as a replayable trace', () => {
    const cli = parseExploreCli(argv('off'));
    expect(cli.limits.check).toEqual(['result-lost', 'counted-twice', 'stale-order']);
    const { result, schedule, traceText } = runExplore(cli, clock);
    expect(result.stoppedBy).toBe('found');
    const v = result.finding!.violation;
    expect(v.property).toBe('stale-order');
    expect(schedule.some((l) => /partition/.test(l))).toBe(true);
    expect(schedule.filter((l) => /receives WORK_HOLD/.test(l)).length).toBeGreaterThanOrEqual(2);
    const parsed = parseTraceFile(traceText!);
    expect(parsed.ok).toBe(true);
    const trace = (parsed as { trace: ParsedTrace }).trace;
    expect(trace.header).toMatchObject({
      source: 'explorer',
      violation: { property: 'stale-order' },
    });
    // The relay's live checker, reading the same trace, finds the same thing.
    const { findings } = checkTrace(trace.events, {
      algorithm: 'bully',
      ids: [0, 1, 2],
      timing: DEFAULT_TIMING,
      workload: { tasks: 2, size: 100, taskMs: 400, sharing: 'dynamic', fencing: false, slow: [] },
    });
    expect(findings.filter((f) => f.kind === 'stale-order').map((f) => f.processes[0])).toEqual(
      v.processes,
    );
  });

  it('with fencing on, the same search finds none and says how far it looked (the bound, not exhaustion)', () => {
    const { result } = runExplore(parseExploreCli(argv('on')), clock);
    expect(result.finding).toBeNull();
    expect(result.exhaustive).toBe(false);
    expect(result.bound).toBe('states');
    expect(result.probes.run).toBe(100);
  });

  it('refuses an unknown workload, a job too large to search and an unknown property', () => {
    expect(() => parseExploreCli(['--workload', 'pizza'])).toThrow(/--workload/);
    expect(() => parseExploreCli(['--workload', 'tasks', '--tasks', '50'])).toThrow(/--tasks/);
    expect(() => parseExploreCli(['--workload', 'tasks', '--fencing', 'maybe'])).toThrow(
      /--fencing/,
    );
    expect(() => parseExploreCli(['--check', 'liveness'])).toThrow(/--check/);
  });
});

describe('the work properties of one world (shared/work/work-explore.ts)', () => {
  const setup = { ids: [0, 1] } as unknown as ExploreSetup;
  const job = { ...DEFAULT_JOB, tasks: 2 };
  const proc = (over: Partial<WorkState>): Proc => ({
    state: {
      held: {},
      store: noResults(2),
      storeSize: 0,
      office: null,
      newest: 0,
      job,
      c: ZERO_COUNTERS,
      ...over,
    } as WorkState,
    report: null,
    draws: 0,
    hash: 1,
  });
  const world = (procs: Proc[], pending: World['pending'] = []): World =>
    ({ now: 0, procs, pending, groups: null }) as unknown as World;
  const check = workInvariant(setup);
  const ALL = ['result-lost', 'counted-twice', 'stale-order'] as const;

  it('result lost: the only holder of a result crashes while nothing carries it elsewhere', () => {
    const before = world([proc({ held: { 0: 7 } }), proc({})]);
    expect(check(before, world([DOWN, proc({})]), ALL)?.property).toBe('result-lost');
  });

  it('not lost while the result is on its way to a live process', () => {
    const before = world([proc({ held: { 0: 7 } }), proc({})]);
    const flying: World['pending'] = [
      {
        id: 1,
        sig: 1,
        kind: 'deliver',
        earliest: 0,
        latest: 100,
        from: 0,
        to: 1,
        message: { type: 'WORK_RESULT', token: 1, task: 0, value: 7 },
      },
    ];
    expect(check(before, world([DOWN, proc({})], flying), ALL)).toBeNull();
  });

  it('counted twice: an analyser counting more results than the tasks it keeps', () => {
    expect(check(null, world([proc({ storeSize: 1 }), proc({})]), ALL)?.property).toBe(
      'counted-twice',
    );
  });

  it('a stale order obeyed is found in the state that obeyed it', () => {
    const w = world([proc({ c: { ...ZERO_COUNTERS, staleAccepted: 1 } }), proc({})]);
    expect(check(null, w, ALL)?.property).toBe('stale-order');
    expect(check(null, w, ['result-lost'])).toBeNull();
  });
});
