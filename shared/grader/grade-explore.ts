// The grader's explorer case: her module's schedules searched in small labs, each at a size
// where the bugs of issue 26 can show, and the report says what was proven there, in her words
// ("every schedule of ... checked", or "not exhaustive: ... states and ... random schedules
// checked"). Raft gets two labs: 4 processes all up (a wrong quorum elects two leaders of one
// term, Raft §5.2) and 5 all up with one crash and one restart with the state lost (a vote given
// twice in a term, Figure 2: votedFor is persistent). The others keep the lab of 4 whose
// coordinator crashed, 0..2 noticing within T, with one more crash for the id-ranked ones, and
// for Bully and both rings a second lab with a crash and a restart (a lower coordinator believed
// shows there). The active-list ring gets a third, with one slow link (a late ACK): a live
// process skipped as dead is told a lower winner, and only agreement is checked there.
import { DEFAULT_TIMING, type AlgorithmName, type AnyAlgorithm } from '../algorithms/algorithm.ts';
import { serializeTrace } from '../protocol/trace-file.ts';
import type { ExploreSetup, FaultBudget } from '../explore/world.ts';
import { describeAction, scheduleTrace, search, type SearchResult } from '../explore/search.ts';
import { restartOverlap, settleBound } from '../explore/probe.ts';
import { labWords, provenWords } from '../explore/verdict.ts';
import { describeFault, ModuleFault, type FaultInfo } from './module-fault.ts';
import type { CaseResult, ExploreProof } from './case-result.ts';
import type { Property } from '../analysis/properties.ts';

const NO_FAULTS: FaultBudget = { crash: 0, restart: 0, drop: 0, partition: 0, slow: 0 };
/**
 * Of each lab's time, the share left to random probes once the breadth-first search stops: most
 * of it with a restart or a slow link, whose bugs lie deeper (a vote, a crash, a restart, a second
 * vote: about ten steps; a skip after a late ACK and a lower Elected: about thirty) than a
 * breadth-first search reaches within a grading budget.
 */
const probeShare = (s: ExploreSetup) => (s.budget.restart > 0 || s.budget.slow > 0 ? 0.75 : 0.25);

function lab(
  algorithm: AlgorithmName,
  subject: AnyAlgorithm,
  n: number,
  alive: boolean,
  initiators: number[],
  budget: FaultBudget,
): ExploreSetup {
  const ids = Array.from({ length: n }, (_, i) => i);
  const timing = DEFAULT_TIMING;
  return {
    algorithm: subject,
    ids,
    timing,
    detector: 'none',
    initialCoordinator: n - 1,
    crashed: alive ? [] : [n - 1],
    initiators,
    detectWindow: timing.transmission,
    budget,
    seed: 1,
    extremes: true,
    settle: settleBound(algorithm, ids, timing),
    overlap: budget.restart > 0 ? restartOverlap(algorithm, ids, timing) : undefined,
  };
}

/** A lab, and what is checked in it (safety and agreement unless said). */
interface Lab {
  setup: ExploreSetup;
  check?: readonly Property[];
}

/** The labs her module is explored in, in order (the first finding ends the case). */
export function exploreLabs(algorithm: AlgorithmName, subject: AnyAlgorithm): Lab[] {
  const at = (n: number, alive: boolean, initiators: number[], budget: FaultBudget): Lab => ({
    setup: lab(algorithm, subject, n, alive, initiators, budget),
  });
  if (algorithm === 'raft')
    return [
      at(4, true, [0, 2], NO_FAULTS),
      at(5, true, [1, 3], { ...NO_FAULTS, crash: 1, restart: 1 }),
    ];
  if (algorithm === 'emergent') return [at(4, false, [0, 1, 2], NO_FAULTS)];
  const crash = { ...NO_FAULTS, crash: 1 };
  // Bully and the ring: then a crash and a restart with the state lost, where the documents say
  // what a process back up does (003: "A process holds an election on start or re-start"; 002:
  // "a new election may have to be held"). It may hear the result of an election held without
  // it, naming a lower id: believing it leaves all following one below the highest live id. The
  // active-list ring too: 001 says nothing of a restart, and 003's rule holds for every ring.
  const labs = [at(4, false, [0, 1, 2], crash), at(4, false, [0, 1, 2], { ...crash, restart: 1 })];
  if (algorithm !== 'ring-active-list') return labs;
  // The active-list ring: then one slow link, whose late ACKs get a live successor skipped as dead
  // (its hops go round without it), so its own election may still be open when a lower
  // Elected(x) reaches it; believing that x leaves it below the highest live id for good (001
  // (c): the highest id of the complete list wins). A link slower than UB leaves the documents'
  // timing, where two leaders at once may happen (000: "temporary network partition (slow
  // communication)"), so only agreement is checked there, once every message has arrived.
  return [...labs, { ...at(4, false, [0, 1, 2], { ...NO_FAULTS, slow: 1 }), check: ['agreement'] }];
}

export function asFault(err: unknown): FaultInfo {
  if (err instanceof ModuleFault) return err.info;
  // Not hers (the simulator's own invariant, or a host bug): say so plainly.
  return {
    kind: 'throw',
    message: `the run stopped: ${err instanceof Error ? err.message : String(err)}`,
  };
}

function labTitle({ setup: s, check }: Lab): string {
  const who = s.crashed.length
    ? `${s.crashed.join(', ')} crashed, ${s.initiators.join(', ')} notice within T`
    : `${s.initiators.join(' and ')} campaign at once`;
  const only = check ? `; ${check.join(' and ')} only` : '';
  return `${labWords(s)} (${who}${only})`;
}

/** Counted bounds instead of time (a grade that is the same on any machine): states and probes per lab. */
export interface ExploreCounts {
  states: number;
  probes: number;
}

/** The explorer over her module in every lab, the time budget (or `counts`) shared among them. */
export function gradeExplore(
  algorithm: AlgorithmName,
  subject: AnyAlgorithm,
  ms: number,
  clock: () => number,
  counts?: ExploreCounts,
): CaseResult {
  const started = clock();
  const labs = exploreLabs(algorithm, subject);
  const base = {
    id: 'explore',
    group: 'explore' as const,
    title: `explorer, ${(ms / 1000).toFixed(1)} s: ${labs.map(labTitle).join('; ')}`,
  };
  const figures: CaseResult['figures'] = [];
  const proofs: ExploreProof[] = [];
  try {
    for (const { setup, check } of labs) {
      const share = counts ? Infinity : ms / labs.length;
      const probes = {
        count: counts?.probes ?? 1_000_000,
        steps: 5000,
        ms: share * probeShare(setup),
      };
      const r = search(
        setup,
        {
          depth: 60,
          states: counts?.states ?? 2_000_000,
          ms: share * (1 - probeShare(setup)),
          check,
          probes,
        },
        clock,
      );
      figures.push({
        name: `schedules of ${labWords(setup)}`,
        measured: provenWords(setup, r),
        expected: 'no violation',
        pass: !r.finding,
      });
      proofs.push({
        lab: labTitle({ setup, check }),
        exhaustive: r.exhaustive,
        states: r.states,
        depth: r.depth,
        bound: r.bound,
        probes: r.probes,
      });
      if (r.finding)
        return { ...failure(algorithm, setup, r, base, figures, clock() - started), proofs };
    }
    return {
      ...base,
      pass: true,
      figures,
      proofs,
      reason: null,
      fault: null,
      divergence: null,
      trace: null,
      ms: clock() - started,
    };
  } catch (err) {
    const fault = asFault(err);
    return {
      ...base,
      pass: false,
      figures,
      proofs,
      reason: describeFault(fault),
      fault,
      divergence: null,
      trace: null,
      ms: clock() - started,
    };
  }
}

type CaseHead = Pick<CaseResult, 'id' | 'group' | 'title'>;

function failure(
  algorithm: AlgorithmName,
  setup: ExploreSetup,
  r: SearchResult,
  base: CaseHead,
  figures: CaseResult['figures'],
  ms: number,
): CaseResult {
  const f = r.finding!;
  const { trace, worlds } = scheduleTrace(setup, f.actions, f.violation);
  const schedule = f.actions.map(
    (a, i) =>
      `${String(i + 1).padStart(3)}. ${describeAction(setup, worlds[i]!, worlds[i + 1]!, a)}`,
  );
  const faults = (Object.keys(setup.budget) as (keyof FaultBudget)[]).filter(
    (k) => setup.budget[k] > 0,
  );
  const header = {
    source: 'explorer' as const,
    algorithm,
    ids: [...setup.ids],
    seed: setup.seed,
    faults,
    violation: f.violation,
    grader: { case: 'explore', title: base.title },
  };
  const how = f.by === 'probe' ? ' (a random schedule: maybe not the shortest)' : '';
  return {
    ...base,
    pass: false,
    figures,
    reason: `${f.violation.property} broken after ${f.actions.length} steps${how} in ${labWords(setup)}: ${f.violation.message}`,
    fault: null,
    divergence: null,
    schedule,
    trace: serializeTrace(header, trace),
    ms,
  };
}
