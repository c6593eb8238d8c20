// Random probes (DSLabs's random search beside its BFS): when the breadth-first search stops at
// a bound, schedules chosen at random from the same worlds and actions are carried much deeper,
// to quiescence or to the moment the documents' bound says the election must be over, checking
// safety in every world and agreement there. A probe proves nothing about the schedules it did
// not take; the report counts them so nobody mistakes them for exhaustion. Deterministic: the
// choices come from a generator seeded by the setup's seed and the probe's number.
import { enabled, initialWorld, move } from './engine.ts';
import { live, reportsOf, type Action, type ExploreSetup, type World } from './world.ts';
import { createRng, deriveSeed, type Random } from '../sim/rng.ts';
import { checkAgreement, type Property, type Violation } from '../analysis/properties.ts';
import { checkerProfile } from '../analysis/checker-profiles.ts';
import type { AlgorithmName, ProcessId, Timing } from '../algorithms/algorithm.ts';

/**
 * How long two processes may both lead once processes come back: a process that returns may be
 * the highest and take over (000: "it will win the election and take over the coordinator's
 * job"), and the old leader learns of it only through an election, so the id-ranked algorithms
 * get the time to notice and elect (the settle bound); Raft none within a term (§5.2, Election
 * Safety); the emergent algorithm the checker's overlap (a master yields on a higher one's heartbeat).
 */
export function restartOverlap(
  algorithm: AlgorithmName,
  ids: readonly ProcessId[],
  timing: Timing,
): number | undefined {
  const ms =
    settleBound(algorithm, ids, timing) ??
    checkerProfile({ algorithm, ids, timing }).bounds.overlap;
  // 0 (Raft): not even for an instant, which is the explorer's default.
  return ms > 0 ? ms : undefined;
}

/**
 * Where the documents bound the election, the time after the last fault by which it must be
 * over: noticing the fault (the checker's quiet bound) and two elections (a crash may cut the
 * first short). Raft (§5.2: randomized timeouts, no hard bound) and the emergent algorithm
 * (candidacy waits on heartbeats a schedule can starve) get none: agreement at quiescence only.
 */
export function settleBound(
  algorithm: AlgorithmName,
  ids: readonly ProcessId[],
  timing: Timing,
): number | undefined {
  if (algorithm !== 'bully' && algorithm !== 'ring' && algorithm !== 'ring-active-list')
    return undefined;
  const b = checkerProfile({ algorithm, ids, timing }).bounds;
  return b.quiet + 2 * b.election;
}

export interface ProbeLimits {
  /** Probes to run at most. */
  count: number;
  /** Actions per probe at most. */
  steps: number;
  /** Wall time for all probes, ms. */
  ms: number;
  /** The number of the first probe (default 0): probe k is the same schedule whenever it runs. */
  first?: number;
}

export interface ProbeTally {
  /** Probes run. */
  run: number;
  /** Probes that reached quiescence or the settle bound (the others ran out of steps). */
  settled: number;
  /** Actions taken over all probes. */
  steps: number;
}

/** The chance a probe spends a fault (while it has one left) instead of firing an event. */
const FAULT_ODDS = 0.05;
/** The chance a probe with a process down (and a restart left) brings it back now. */
const RESTART_ODDS = 0.25;

/**
 * Runs probes until `limits` or a violation. `check` is the search's own per-world check
 * (safety everywhere, agreement at quiescence); agreement is also checked once `setup.settle` ms
 * have passed since the last fault with the network whole.
 */
export function probe(
  setup: ExploreSetup,
  limits: ProbeLimits,
  clock: () => number,
  check: (w: World, prev: World) => Violation | null,
  which: readonly Property[],
): { tally: ProbeTally; finding: { violation: Violation; actions: Action[] } | null } {
  const started = clock();
  const tally: ProbeTally = { run: 0, settled: 0, steps: 0 };
  while (tally.run < limits.count && clock() - started < limits.ms) {
    const rng = createRng(deriveSeed(setup.seed ^ 0x5eed, (limits.first ?? 0) + tally.run));
    tally.run++;
    const r = oneProbe(setup, limits.steps, rng, check, which);
    tally.steps += r.actions.length;
    if (r.settled) tally.settled++;
    if (r.violation) return { tally, finding: { violation: r.violation, actions: r.actions } };
  }
  return { tally, finding: null };
}

function oneProbe(
  setup: ExploreSetup,
  maxMoves: number,
  rng: Random,
  check: (w: World, prev: World) => Violation | null,
  which: readonly Property[],
) {
  let w = initialWorld(setup);
  const actions: Action[] = [];
  let lastFault = 0;
  for (let k = 0; k < maxMoves; k++) {
    const options = enabled(setup, w);
    if (options.length === 0) return { actions, settled: true, violation: null };
    const a = choose(options, rng);
    actions.push(a);
    const prev = w;
    w = move(setup, w, a);
    if (a.kind !== 'fire') lastFault = w.now;
    const v = check(w, prev);
    if (v) return { actions, settled: true, violation: v };
    if (w.pending.length === 0) return { actions, settled: true, violation: null };
    if (
      setup.settle !== undefined &&
      w.groups === null &&
      w.slow === null &&
      w.now - lastFault >= setup.settle
    ) {
      const agreement = which.includes('agreement')
        ? checkAgreement(setup.algorithm.name, live(setup, w), reportsOf(setup, w))
        : null;
      if (agreement)
        agreement.message += ` (${Math.round(w.now - lastFault)} ms after the last fault; the documents' bound is ${Math.round(setup.settle)} ms)`;
      return { actions, settled: true, violation: agreement };
    }
  }
  return { actions, settled: false, violation: null };
}

/**
 * Mostly events; a fault now and then, so faults strike at every depth. A down process comes
 * back soon more often than not: the messages sent to it meanwhile then find it with its memory
 * lost, where the bugs of a restart show.
 */
function choose(options: readonly Action[], rng: Random): Action {
  const events = options.filter((a) => a.kind === 'fire');
  const restarts = options.filter((a) => a.kind === 'restart');
  const faults = options.filter((a) => a.kind !== 'fire' && a.kind !== 'restart');
  const odds = rng();
  const pool =
    events.length === 0 && faults.length === 0
      ? restarts
      : restarts.length > 0 && odds < RESTART_ODDS
        ? restarts
        : events.length === 0 || (faults.length > 0 && odds > 1 - FAULT_ODDS)
          ? faults.length > 0
            ? faults
            : restarts
          : events;
  return pool[Math.floor(rng() * pool.length)]!;
}
