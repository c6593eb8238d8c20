// One experiment run and a sweep of them, in the simulator: the documents' setting (ids 0..N-1,
// the coordinator N-1 crashed, one process detects it) for every algorithm, N, case, loss rate and
// seed asked for. Each run yields one row: the messages sent from detection on, by type, the
// time until every live process knew the coordinator, and whether the run ended safe and agreed.
import {
  DEFAULT_TIMING,
  type Algorithm,
  type AlgorithmName,
  type DetectorMode,
  type Effect,
  type Message,
  type ProcessId,
  type Timing,
} from '../algorithms/algorithm.ts';
import { getAlgorithm } from '../algorithms/registry.ts';
import { detectorsFor, type ElectionCase } from '../analysis/formulas.ts';
import { checkAgreement, checkSafety } from '../analysis/properties.ts';
import { createRng, deriveSeed } from '../sim/rng.ts';
import { simulate } from '../sim/simulator.ts';

export interface RunParams {
  algorithm: AlgorithmName;
  n: number;
  case: ElectionCase;
  /** Run index within its (algorithm, n, case, drop) cell; picks the seed and, for `random`, the detector. */
  run: number;
  seed: number;
  delay: number;
  jitter: number;
  drop: number;
  detector: DetectorMode;
  /** Who detects, overriding the case's choice (must be a live id). */
  initiator?: ProcessId;
}

export interface RunRow extends RunParams {
  /** The process whose failure detector fired. */
  initiator: ProcessId;
  /** Messages sent from detection until the run ended, by type. */
  messages: Record<string, number>;
  total: number;
  dropped: number;
  /** Detection to the last live process settling on a coordinator (ms), null if none did. */
  electionTime: number | null;
  /** The same in transmission times T = delay + jitter. */
  electionTimeT: number | null;
  coordinator: ProcessId | null;
  agreed: boolean;
  safe: boolean;
  violation: string | null;
  events: number;
  truncated: boolean;
  wallMs: number;
}

/** Detection happens here, well after the start-up traffic (Raft's first heartbeats) has landed. */
export const DETECT_AT = 1000;

/** How long after detection a run may go on. Emergent heartbeats never stop: its window ends after the election. */
function horizon(p: RunParams, timing: Timing): number {
  if (p.algorithm === 'emergent' && p.detector === 'none')
    return 6 * timing.heartbeatInterval + 20 * timing.transmission;
  return p.detector === 'none' && p.drop === 0 ? 600_000 : 60_000;
}

export function runOne(p: RunParams, clock: () => number = () => 0): RunRow {
  const started = clock();
  const timing: Timing = { ...DEFAULT_TIMING, transmission: p.delay + p.jitter };
  const candidates = detectorsFor(p.algorithm, p.n, p.case, undefined, timing);
  const pick = createRng(deriveSeed(p.seed, -2));
  const initiator = p.initiator ?? candidates[Math.floor(pick() * candidates.length)] ?? 0;
  const counted: Record<string, number> = {};
  const ids = Array.from({ length: p.n }, (_, i) => i);
  const r = simulate({
    algorithm: counting(getAlgorithm(p.algorithm), DETECT_AT, counted),
    ids,
    seed: p.seed,
    timing,
    detector: p.detector,
    link: { delay: p.delay, jitter: p.jitter, drop: p.drop },
    crashes: [{ id: p.n - 1, at: 0 }],
    elections: [{ id: initiator, at: DETECT_AT }],
    until: DETECT_AT + horizon(p, timing),
    trace: false,
  });
  const safety = checkSafety(r.live, r.reports);
  const agreement = checkAgreement(p.algorithm, r.live, r.reports);
  const coords = new Set(Object.values(r.coordinatorByNode));
  const transmission = p.delay + p.jitter;
  return {
    ...p,
    initiator,
    messages: counted,
    total: Object.values(counted).reduce((a, b) => a + b, 0),
    dropped: r.messages.dropped,
    electionTime: r.electionTime,
    electionTimeT:
      r.electionTime === null || transmission === 0 ? null : r.electionTime / transmission,
    coordinator: coords.size === 1 ? [...coords][0]! : null,
    agreed: agreement === null,
    safe: safety === null,
    violation: safety?.message ?? agreement?.message ?? null,
    events: r.events,
    truncated: r.truncated,
    wallMs: clock() - started,
  };
}

/**
 * Wraps an algorithm so every send it makes at or after `from` (virtual time) is counted by
 * type. The counter belongs to one run; the algorithm itself stays untouched.
 */
export function counting<S, M extends Message>(
  algo: Algorithm<S, M>,
  from: number,
  into: Record<string, number>,
): Algorithm<S, M> {
  const tally = (effects: Effect<M>[], now: number) => {
    if (now < from) return;
    for (const e of effects)
      if (e.kind === 'send') into[e.message.type] = (into[e.message.type] ?? 0) + 1;
  };
  return {
    ...algo,
    init(config, ctx) {
      const out = algo.init(config, ctx);
      tally(out.effects, ctx.now);
      return out;
    },
    step(state, event, ctx) {
      const out = algo.step(state, event, ctx);
      tally(out.effects, ctx.now);
      return out;
    },
  };
}

export interface SweepSpec {
  algorithms: AlgorithmName[];
  nodes: number[];
  cases: ElectionCase[];
  runs: number;
  delay: number;
  jitter: number;
  /** Loss probabilities; more than one sweeps loss. */
  drops: number[];
  seed: number;
  detector: DetectorMode;
}

export const DEFAULT_SWEEP: SweepSpec = {
  algorithms: ['bully', 'ring', 'ring-active-list', 'emergent', 'raft'],
  nodes: [4, 8, 16, 32, 64, 128, 256, 512],
  cases: ['worst', 'best'],
  runs: 1,
  delay: 100,
  jitter: 0,
  drops: [0],
  seed: 1,
  detector: 'none',
};

/** Every run of a sweep, in the order they are run. */
export function sweepRuns(spec: SweepSpec): RunParams[] {
  const out: RunParams[] = [];
  for (const algorithm of spec.algorithms)
    for (const c of spec.cases)
      for (const drop of spec.drops)
        for (const n of spec.nodes)
          for (let run = 0; run < spec.runs; run++)
            out.push({
              algorithm,
              n,
              case: c,
              run,
              seed: spec.seed + run,
              delay: spec.delay,
              jitter: spec.jitter,
              drop,
              detector: spec.detector,
            });
  return out;
}

/** Relative cost of a run, for a progress bar that moves evenly: messages grow up to N². */
export function runWeight(p: RunParams): number {
  const quadratic =
    p.algorithm === 'ring-active-list' || (p.algorithm === 'bully' && p.case !== 'best');
  return quadratic ? p.n * p.n : p.algorithm === 'emergent' ? 20 * p.n : 4 * p.n;
}
