// The stats panel's table: messages by type since the election started, beside what the
// algorithm's formulas (shared/analysis/formulas.ts) say for this N in the best and the worst case, and
// the election's duration in ms and in message-transmission times beside the formula's time.
// Nothing here knows an algorithm's analysis: the expectations are passed in.
import type { Expectation } from '@shared/analysis/formulas.ts';
import type { ElectionWindow } from './election-tracker.ts';
import { windowFigures } from './election-tracker.ts';
import { isOutsideElection } from './message-style.ts';

export type Verdict = 'within' | 'below' | 'above' | 'n/a';

export interface StatsRow {
  type: string;
  observed: number;
  best: number | null;
  worst: number | null;
  /** The document's formula, e.g. "N(N−1)/2" (the worst case's when they differ). */
  formula: string | null;
  verdict: Verdict;
}

export interface Theory {
  best: Expectation;
  worst: Expectation;
}

export interface StatsTable {
  rows: StatsRow[];
  total: StatsRow;
  /** Heartbeats, polls: sent during the election but outside the analysis. */
  background: number;
  durationMs: number;
  finished: boolean;
  /** Duration over T, the lab's transmission bound (scaled by the time scale). */
  inT: number | null;
  /** Duration over the mean one-way latency measured in this election. */
  inMeasured: number | null;
  meanLatency: number | null;
  /** The formula's election time in T: best and worst case, and its text. */
  time: { best: number; worst: number; formula: string } | null;
}

export function verdict(observed: number, best: number | null, worst: number | null): Verdict {
  if (best === null || worst === null) return 'n/a';
  const lo = Math.min(best, worst);
  const hi = Math.max(best, worst);
  return observed < lo ? 'below' : observed > hi ? 'above' : 'within';
}

/**
 * @param known the algorithm's message types (rows in this order; background types left out,
 *   unless the formulas count them, as Raft's winner heartbeat)
 * @param transmission T in ms as the processes run it (already times the time scale)
 */
export function statsVsTheory(
  w: ElectionWindow,
  now: number,
  known: readonly string[],
  theory: Theory | null,
  transmission: number,
): StatsTable {
  const counted = new Set(Object.keys(theory?.worst.messages ?? {}));
  const inTable = (t: string) => counted.has(t) || !isOutsideElection(t);
  const types = known.filter(inTable);
  for (const t of [...counted, ...Object.keys(w.sent)])
    if (inTable(t) && !types.includes(t)) types.push(t);

  const rows = types.map((type): StatsRow => {
    const observed = w.sent[type] ?? 0;
    const best = theory?.best.messages[type]?.min ?? null;
    const worst = theory?.worst.messages[type]?.max ?? null;
    const formula = theory?.worst.messages[type]?.formula ?? null;
    return { type, observed, best, worst, formula, verdict: verdict(observed, best, worst) };
  });
  const sum = (pick: (r: StatsRow) => number | null) =>
    theory ? rows.reduce((s, r) => s + (pick(r) ?? 0), 0) : null;
  const observed = rows.reduce((s, r) => s + r.observed, 0);
  const best = sum((r) => r.best);
  const worst = sum((r) => r.worst);
  const f = windowFigures(w, now);
  const background = Object.entries(w.sent).reduce((s, [t, n]) => (inTable(t) ? s : s + n), 0);
  return {
    rows,
    total: {
      type: 'total',
      observed,
      best,
      worst,
      formula: null,
      verdict: verdict(observed, best, worst),
    },
    background,
    durationMs: f.durationMs,
    finished: f.finished,
    inT: transmission > 0 ? f.durationMs / transmission : null,
    inMeasured: f.meanLatency ? f.durationMs / f.meanLatency : null,
    meanLatency: f.meanLatency,
    time: theory
      ? {
          best: theory.best.time.min,
          worst: theory.worst.time.max,
          formula: theory.worst.time.formula,
        }
      : null,
  };
}
