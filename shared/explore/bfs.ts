// The breadth-first search itself: level by level from the initial world, each new world checked
// as it is reached, worlds seen before (by 64-bit fingerprint, key.ts) skipped, and, with
// partial-order reduction on, the quiet actions a sleep set holds not taken again
// (sleep.ts). Breadth first, so the first violation found has the shortest schedule.
import type { Property, Violation } from '../analysis/properties.ts';
import { enabled, initialWorld, move } from './engine.ts';
import { collisionBound, createKeyer, SeenSet } from './key.ts';
import type { ProbeLimits, ProbeTally } from './probe.ts';
import {
  asleep,
  asleepEntry,
  childSleep,
  quietAfter,
  wakeOnRevisit,
  type Asleep,
} from './sleep.ts';
import { derived, type Action, type ExploreSetup, type World } from './world.ts';

export interface SearchLimits {
  /** Longest schedule (actions) explored. */
  depth: number;
  /** Distinct worlds explored at most. */
  states: number;
  /** Wall time budget, ms (measured with the clock passed in). */
  ms: number;
  /** Properties to check (default both). */
  check?: readonly Property[];
  /** Random probes once the search stops at a bound (not when it exhausts or finds): none when unset. */
  probes?: ProbeLimits;
  /** Partial-order reduction by sleep sets (default on): fewer transitions, the same worlds. */
  por?: boolean;
  /** Called at each new depth with the states seen so far (the CLI's progress line). */
  onDepth?: (depth: number, states: number) => void;
  /** Called with each new world and its fingerprint (the reductions' soundness tests compare them). */
  onWorld?: (w: World, lo: number, hi: number) => void;
}

interface SearchFinding {
  violation: Violation;
  actions: Action[];
  /** bfs: the shortest schedule that breaks it; probe: one random schedule that does (maybe not the shortest). */
  by: 'bfs' | 'probe';
}

export interface SearchResult {
  finding: SearchFinding | null;
  /** Distinct worlds reached. */
  states: number;
  /** Actions taken (with partial-order reduction, those a sleep set held are not). */
  transitions: number;
  /** Depth of the deepest level completed. */
  depth: number;
  /** found; exhausted: every reachable world was explored; or the limit that stopped it. */
  stoppedBy: 'found' | 'exhausted' | 'depth' | 'states' | 'time';
  /** True only when every reachable world was checked (stoppedBy 'exhausted'). */
  exhaustive: boolean;
  /** The breadth-first search's bound that stopped it (null: exhausted, or a violation found first). */
  bound: 'depth' | 'states' | 'time' | null;
  /** Random probes run after the search stopped at a bound (zeros when none ran). */
  probes: ProbeTally;
  /** At most this likely that two worlds shared a fingerprint, so one was skipped (n^2 / 2^65). */
  collisionBound: number;
  /** Partial-order reduction: actions a sleep set held (not taken), and worlds explored again for what woke. */
  por: { slept: number; woken: number; unremembered: number } | null;
  elapsedMs: number;
}

const NO_PROBES: ProbeTally = { run: 0, settled: 0, steps: 0 };

/**
 * Worlds whose sleep set is remembered at most (for a later visit by another path); past it a new
 * world sleeps nothing, which is always sound (it only explores more) and is counted.
 */
const SLEEP_MAX = 1 << 20;

/** A world to expand: what sleeps there, and on a second visit only what woke (`only`). */
interface Entry {
  world: World;
  node: number;
  sleep: Asleep[];
  only: Asleep[] | null;
  record: Remembered | null;
}

/** A world's sleep set kept by fingerprint; `entry` while it is still to be expanded. */
interface Remembered {
  lo: number;
  hi: number;
  sleep: Asleep[];
  entry: Entry | null;
}

const NONE: Asleep[] = [];

/** One search's state: what every step of `expandEntry` reads and grows. */
interface Run {
  setup: ExploreSetup;
  limits: SearchLimits;
  check: (w: World, prev: World | null) => Violation | null;
  por: boolean;
  index: Map<number, number>;
  parent: number[];
  via: (Action | null)[];
  seen: SeenSet;
  worldKey: ReturnType<typeof createKeyer>;
  sleeps: Map<number, Remembered>;
  tally: { slept: number; woken: number; unremembered: number };
  transitions: number;
}

/** Why a level stopped early: the bound reached, or the violation found (with its world's node). */
type Stop = { kind: 'states' } | { kind: 'found'; violation: Violation; node: number };

export function breadthFirst(
  setup: ExploreSetup,
  limits: SearchLimits,
  clock: () => number,
  /** `prev`: the world it was first reached from (a work invariant reads the move between). */
  check: (w: World, prev: World | null) => Violation | null,
): SearchResult {
  const started = clock();
  const run: Run = {
    setup,
    limits,
    check,
    // Sleep sets keep every reachable world but not every step between two: a work invariant,
    // which reads the step (prev to w), is searched without them.
    por: limits.por !== false && setup.invariant === undefined,
    index: derived(setup).index,
    parent: [-1],
    via: [null],
    seen: new SeenSet(),
    worldKey: createKeyer(),
    sleeps: new Map(),
    tally: { slept: 0, woken: 0, unremembered: 0 },
    transitions: 0,
  };
  const root = initialWorld(setup);
  const rootLo = run.worldKey(root);
  run.seen.add(rootLo, run.worldKey.hi);
  limits.onWorld?.(root, rootLo, run.worldKey.hi);
  const done = (
    stoppedBy: SearchResult['stoppedBy'],
    depth: number,
    finding: SearchFinding | null = null,
  ): SearchResult => ({
    finding,
    states: run.seen.size,
    transitions: run.transitions,
    depth,
    stoppedBy,
    exhaustive: stoppedBy === 'exhausted',
    bound: stoppedBy === 'found' || stoppedBy === 'exhausted' ? null : stoppedBy,
    probes: NO_PROBES,
    collisionBound: collisionBound(run.seen.size),
    por: run.por ? { ...run.tally } : null,
    elapsedMs: clock() - started,
  });
  const rootViolation = check(root, null);
  if (rootViolation) return done('found', 0, { violation: rootViolation, actions: [], by: 'bfs' });
  let frontier: Entry[] = [{ world: root, node: 0, sleep: NONE, only: null, record: null }];
  let lastDepth = 0;
  let expanded = 0;
  for (let depth = 0; frontier.length > 0; depth++) {
    if (depth >= limits.depth) return done('depth', depth);
    lastDepth = depth;
    limits.onDepth?.(depth, run.seen.size);
    const next: Entry[] = [];
    for (const e of frontier) {
      const stop = expandEntry(run, e, next);
      if (stop?.kind === 'states') return done('states', depth);
      if (stop?.kind === 'found') {
        const actions = pathTo(stop.node, run.parent, run.via);
        return done('found', depth + 1, { violation: stop.violation, actions, by: 'bfs' });
      }
      if ((++expanded & 63) === 0 && clock() - started > limits.ms) return done('time', depth);
    }
    frontier = next;
  }
  return done('exhausted', lastDepth);
}

/** Takes every action of one frontier world (but what sleeps there), queuing new worlds on `next`. */
function expandEntry(run: Run, e: Entry, next: Entry[]): Stop | null {
  const { setup, seen, worldKey } = run;
  if (e.record) e.record.entry = null;
  const taken: Asleep[] = [];
  for (const action of enabled(setup, e.world)) {
    const entry = run.por ? asleepEntry(e.world, action) : null;
    if (e.only && !(entry && asleep(e.only, entry))) continue;
    if (entry && asleep(e.sleep, entry)) {
      run.tally.slept++;
      continue;
    }
    run.transitions++;
    const w = move(setup, e.world, action);
    const quiet = entry !== null && quietAfter(setup, e.world, w, run.index.get(entry.node)!);
    const sleep = quiet ? childSleep(e.sleep, taken, entry) : NONE;
    if (quiet) taken.push(entry);
    const lo = worldKey(w);
    const hi = worldKey.hi;
    if (!seen.add(lo, hi)) {
      const again = run.por ? revisit(run.sleeps, lo, hi, sleep) : null;
      if (again) {
        run.tally.woken++;
        run.parent.push(e.node);
        run.via.push(action);
        next.push({ world: w, node: run.parent.length - 1, ...again, record: null });
      }
      continue;
    }
    run.limits.onWorld?.(w, lo, hi);
    run.parent.push(e.node);
    run.via.push(action);
    const id = run.parent.length - 1;
    const v = run.check(w, e.world);
    if (v) return { kind: 'found', violation: v, node: id };
    next.push(remember(run, { world: w, node: id, sleep, only: null, record: null }, lo, hi));
    if (seen.size >= run.limits.states) return { kind: 'states' };
  }
  return null;
}

/** A new world's sleep set, kept by fingerprint for a later visit (or, past the bound, emptied). */
function remember(run: Run, child: Entry, lo: number, hi: number): Entry {
  if (child.sleep.length === 0) return child;
  const k = mapKey(lo, hi);
  if (run.sleeps.size < SLEEP_MAX && !run.sleeps.has(k)) {
    child.record = { lo, hi, sleep: child.sleep, entry: child };
    run.sleeps.set(k, child.record);
  } else {
    // Nothing remembered for a later visit (full, or another world holds the slot): it must
    // sleep nothing now.
    run.tally.unremembered++;
    child.sleep = NONE;
  }
  return child;
}

/**
 * The remembered sleep sets' key: 30 bits of the fingerprint, a small integer the Map hashes
 * fast. Two worlds on one key: the second is not remembered (and sleeps nothing), see above.
 */
function mapKey(lo: number, hi: number): number {
  return (lo ^ hi) & 0x3fffffff;
}

/**
 * A world reached again with sleep set `now`: what slept at its first visit but not now must
 * still be taken from it. Not yet expanded: it simply sleeps less. Already expanded: it is
 * expanded again, for what woke only (returned).
 */
function revisit(
  sleeps: Map<number, Remembered>,
  lo: number,
  hi: number,
  now: Asleep[],
): { sleep: Asleep[]; only: Asleep[] } | null {
  const k = mapKey(lo, hi);
  const r = sleeps.get(k);
  // Not remembered (or another world's record): it slept nothing, so nothing can wake.
  if (!r || r.lo !== lo || r.hi !== hi) return null;
  const { keep, wake } = wakeOnRevisit(r.sleep, now);
  if (wake.length === 0) return null;
  if (keep.length === 0) sleeps.delete(k);
  else r.sleep = keep;
  if (r.entry) {
    r.entry.sleep = keep;
    return null;
  }
  return { sleep: keep, only: wake };
}

function pathTo(id: number, parent: number[], via: (Action | null)[]): Action[] {
  const out: Action[] = [];
  for (let k = id; k > 0; k = parent[k]!) out.push(via[k]!);
  return out.reverse();
}
