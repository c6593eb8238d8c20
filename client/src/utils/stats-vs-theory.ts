// The stats panel's table: messages by type since the election started, beside what the
// algorithm's formulas say for this N (best and worst case), and the election's duration in ms
// and in message-transmission times. The formulas come from shared/ (passed in): nothing here
// knows an algorithm's analysis.
import type { ElectionWindow } from './election-tracker.ts';
import { windowFigures } from './election-tracker.ts';
import { isBackgroundType } from './message-style.ts';

export type TheoryCase = 'best' | 'worst';
/** Expected election messages for a case: by type, or a total only; null when the formula has no answer. */
export type Expected = Readonly<Record<string, number>> | number | null;
export type Theory = (c: TheoryCase) => Expected;

export type Verdict = 'within' | 'below' | 'above' | 'n/a';

export interface StatsRow {
  type: string;
  observed: number;
  best: number | null;
  worst: number | null;
  verdict: Verdict;
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
}

export function verdict(observed: number, best: number | null, worst: number | null): Verdict {
  if (best === null && worst === null) return 'n/a';
  const lo = Math.min(best ?? worst!, worst ?? best!);
  const hi = Math.max(best ?? worst!, worst ?? best!);
  return observed < lo ? 'below' : observed > hi ? 'above' : 'within';
}

function pick(e: Expected, type: string | null): number | null {
  if (e === null) return null;
  if (typeof e === 'number') return type === null ? e : null;
  if (type === null) return Object.entries(e).reduce((s, [t, n]) => (isBackgroundType(t) ? s : s + n), 0);
  return e[type] ?? (Object.keys(e).length ? 0 : null);
}

/**
 * @param known the algorithm's message types (rows in this order; background types left out)
 * @param transmission T in ms as the processes run it (already times the time scale)
 */
export function statsVsTheory(w: ElectionWindow, now: number, known: readonly string[], theory: Theory | null, transmission: number): StatsTable {
  const best = theory ? theory('best') : null;
  const worst = theory ? theory('worst') : null;
  const types = known.filter((t) => !isBackgroundType(t));
  for (const t of Object.keys(w.sent)) if (!isBackgroundType(t) && !types.includes(t)) types.push(t);
  const rows = types.map((type) => {
    const observed = w.sent[type] ?? 0;
    const b = pick(best, type);
    const k = pick(worst, type);
    return { type, observed, best: b, worst: k, verdict: verdict(observed, b, k) };
  });
  const f = windowFigures(w, now);
  const tb = pick(best, null);
  const tw = pick(worst, null);
  return {
    rows,
    total: { type: 'total', observed: f.electionMessages, best: tb, worst: tw, verdict: verdict(f.electionMessages, tb, tw) },
    background: f.backgroundMessages,
    durationMs: f.durationMs,
    finished: f.finished,
    inT: transmission > 0 ? f.durationMs / transmission : null,
    inMeasured: f.meanLatency ? f.durationMs / f.meanLatency : null,
    meanLatency: f.meanLatency,
  };
}
