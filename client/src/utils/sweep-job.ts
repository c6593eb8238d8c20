// The instructor panel's small sweep: the experiment runner's runs (shared/experiments/experiment.ts, the
// simulator in the documents' setting) for the lab's algorithm over a few N, done a slice at a
// time so the page never blocks, and the table of measured counts beside the formulas. What is
// asked is checked here and bounded (N up to 64, a few runs), with the problems as values.
import type { AlgorithmName } from '@shared/algorithms/algorithm.ts';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import {
  runWeight,
  sweepRuns,
  type RunParams,
  type RunRow,
  type SweepSpec,
} from '@shared/experiments/experiment.ts';
import { expectedMessages, formulaTypes, type ElectionCase } from '@shared/analysis/formulas.ts';

export const SWEEP_LIMITS = {
  maxN: 64,
  minN: 3,
  maxValues: 10,
  maxRuns: 10,
  maxDelay: 10_000,
} as const;

export interface SweepInput {
  algorithm: AlgorithmName;
  /** "4, 8, 16" */
  nodes: string;
  cases: ElectionCase[];
  runs: number;
  /** Every message takes delay plus up to `jitter` ms; T = delay + jitter. */
  delay: number;
  jitter: number;
  seed: number;
}

export type SweepPlan =
  { ok: true; spec: SweepSpec; runs: RunParams[] } | { ok: false; errors: string[] };

export function planSweep(input: SweepInput): SweepPlan {
  const errors: string[] = [];
  const parts = input.nodes.split(/[\s,;]+/).filter(Boolean);
  const nodes = [...new Set(parts.map(Number))].sort((a, b) => a - b);
  if (parts.length === 0) errors.push('Give at least one N.');
  else if (
    nodes.some((n) => !Number.isInteger(n) || n < SWEEP_LIMITS.minN || n > SWEEP_LIMITS.maxN)
  )
    errors.push(`Each N must be a whole number from ${SWEEP_LIMITS.minN} to ${SWEEP_LIMITS.maxN}.`);
  if (nodes.length > SWEEP_LIMITS.maxValues)
    errors.push(`At most ${SWEEP_LIMITS.maxValues} values of N.`);
  if (input.cases.length === 0) errors.push('Pick the worst case, the best case or both.');
  if (!Number.isInteger(input.runs) || input.runs < 1 || input.runs > SWEEP_LIMITS.maxRuns)
    errors.push(`Runs per N: 1 to ${SWEEP_LIMITS.maxRuns}.`);
  if (!(input.delay > 0 && input.delay <= SWEEP_LIMITS.maxDelay))
    errors.push(`The delay must be above 0 and at most ${SWEEP_LIMITS.maxDelay} ms.`);
  if (!(input.jitter >= 0 && input.jitter <= input.delay))
    errors.push('The jitter is from 0 up to the delay.');
  if (!Number.isInteger(input.seed) || input.seed < 0)
    errors.push('The seed is a whole number from 0.');
  if (errors.length) return { ok: false, errors };
  const spec: SweepSpec = {
    algorithms: [input.algorithm],
    nodes,
    cases: [...input.cases],
    runs: input.runs,
    delay: input.delay,
    jitter: input.jitter,
    drops: [0],
    seed: input.seed,
    detector: 'none',
  };
  return { ok: true, spec, runs: sweepRuns(spec) };
}

/**
 * Runs a sweep a slice at a time: `step(budget)` does runs until `budget` ms have passed (at
 * least one), so a caller can hand control back between slices (a Web Worker's progress
 * messages, or the page's event loop).
 */
export class SweepJob {
  readonly rows: RunRow[] = [];
  private next = 0;
  private doneWeight = 0;
  private readonly totalWeight: number;

  constructor(
    private readonly runs: readonly RunParams[],
    private readonly run: (p: RunParams) => RunRow,
    private readonly now: () => number,
  ) {
    this.totalWeight = runs.reduce((s, p) => s + runWeight(p), 0);
  }

  get done(): boolean {
    return this.next >= this.runs.length;
  }

  /** Share of the work done, 0..1, weighted by each run's expected cost. */
  get progress(): number {
    return this.totalWeight ? this.doneWeight / this.totalWeight : 1;
  }

  /** Does runs for about `budget` ms; returns the rows it added. */
  step(budget: number): RunRow[] {
    const start = this.now();
    const added: RunRow[] = [];
    while (!this.done) {
      const p = this.runs[this.next++]!;
      const row = this.run(p);
      this.rows.push(row);
      added.push(row);
      this.doneWeight += runWeight(p);
      if (this.now() - start >= budget) break;
    }
    return added;
  }
}

export interface SweepCell {
  measured: number;
  formula: number;
  /** The document's formula, e.g. "N(N−1)/2". */
  text: string;
}

export interface SweepTableRow {
  n: number;
  runs: number;
  /** By message type the formulas cover, in the formulas' order. */
  messages: Record<string, SweepCell>;
  /** Detection to every live process knowing the coordinator, in T. */
  time: SweepCell;
  agreed: number;
}

export interface SweepTable {
  algorithm: AlgorithmName;
  case: ElectionCase;
  types: string[];
  rows: SweepTableRow[];
}

/** Per case, per N: the mean measured count of each type and time (in T) beside the formula's. */
export function sweepTables(rows: readonly RunRow[]): SweepTable[] {
  const out: SweepTable[] = [];
  const keys = [...new Set(rows.map((r) => `${r.algorithm}|${r.case}`))];
  for (const key of keys) {
    const [algorithm, c] = key.split('|') as [AlgorithmName, ElectionCase];
    const mine = rows.filter((r) => r.algorithm === algorithm && r.case === c);
    const types = formulaTypes(algorithm);
    const ns = [...new Set(mine.map((r) => r.n))].sort((a, b) => a - b);
    out.push({
      algorithm,
      case: c,
      types,
      rows: ns.map((n) => {
        const cell = mine.filter((r) => r.n === n);
        const e = expectedMessages(algorithm, n, c, {
          ...DEFAULT_TIMING,
          transmission: cell[0]!.delay + cell[0]!.jitter,
        });
        const messages: Record<string, SweepCell> = {};
        for (const t of types)
          messages[t] = {
            measured: mean(cell.map((r) => r.messages[t] ?? 0)),
            formula: e.messages[t]!.mean,
            text: e.messages[t]!.formula,
          };
        const times = cell.map((r) => r.electionTimeT).filter((x): x is number => x !== null);
        return {
          n,
          runs: cell.length,
          messages,
          time: {
            measured: times.length ? mean(times) : NaN,
            formula: e.time.mean,
            text: e.time.formula,
          },
          agreed: cell.filter((r) => r.agreed).length,
        };
      }),
    });
  }
  return out;
}

function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}
