// An experiment's rows as text: the CSV of every run, and the Markdown tables docs/RESULTS.md
// shows (measured beside the formula, per N).
import { ALGORITHMS } from '../algorithms/registry.ts';
import type { RunRow } from './experiment.ts';
import { expectedMessages, formulaTypes, type ElectionCase } from '../analysis/formulas.ts';
import type { AlgorithmName, Timing } from '../algorithms/algorithm.ts';
import { DEFAULT_TIMING } from '../algorithms/algorithm.ts';

/** Message-type columns: every type any row's algorithm can send, in registry order. */
export function typeColumns(rows: readonly RunRow[]): string[] {
  const seen = new Set<string>();
  for (const a of new Set(rows.map((r) => r.algorithm)))
    for (const t of ALGORITHMS[a].messageTypes) seen.add(t);
  for (const r of rows) for (const t of Object.keys(r.messages)) seen.add(t);
  return [...seen];
}

const FIXED = [
  'algorithm',
  'n',
  'case',
  'run',
  'seed',
  'delay',
  'jitter',
  'drop',
  'detector',
  'initiator',
] as const;
const TAIL = [
  'total',
  'dropped',
  'election_ms',
  'election_T',
  'coordinator',
  'agreed',
  'safe',
  'violation',
  'events',
  'truncated',
  'wall_ms',
] as const;

export function toCsv(rows: readonly RunRow[]): string {
  const types = typeColumns(rows);
  const lines = [[...FIXED, ...types, ...TAIL].join(',')];
  for (const r of rows) {
    const cells: unknown[] = [
      r.algorithm,
      r.n,
      r.case,
      r.run,
      r.seed,
      r.delay,
      r.jitter,
      r.drop,
      r.detector,
      r.initiator,
      ...types.map((t) => r.messages[t] ?? 0),
      r.total,
      r.dropped,
      r.electionTime ?? '',
      r.electionTimeT === null ? '' : round(r.electionTimeT),
      r.coordinator ?? '',
      r.agreed,
      r.safe,
      r.violation ?? '',
      r.events,
      r.truncated,
      Math.round(r.wallMs),
    ];
    lines.push(cells.map(cell).join(','));
  }
  return lines.join('\n') + '\n';
}

/** One CSV cell, quoted when it holds a comma, a quote or a newline. */
export function cell(v: unknown): string {
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Mean of a row field over the rows of one cell. */
export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

/**
 * One Markdown table per (algorithm, case): per N, each formula type as "measured (formula)",
 * and the time in T likewise. Measured values are means over the runs; a formula range prints
 * as its mean over the detectors the case allows.
 */
export function summaryTable(
  rows: readonly RunRow[],
  algorithm: AlgorithmName,
  c: ElectionCase,
  timing: Timing = DEFAULT_TIMING,
): string {
  const mine = rows.filter((r) => r.algorithm === algorithm && r.case === c && r.drop === 0);
  if (mine.length === 0) return '';
  const types = formulaTypes(algorithm);
  const ns = [...new Set(mine.map((r) => r.n))].sort((a, b) => a - b);
  const head = `| N | ${types.join(' | ')} | time (T) | agreed |`;
  const sep = `|---|${types.map(() => '---|').join('')}---|---|`;
  const body = ns.map((n) => {
    const cellRows = mine.filter((r) => r.n === n);
    const e = expectedMessages(algorithm, n, c, {
      ...timing,
      transmission: cellRows[0]!.delay + cellRows[0]!.jitter,
    });
    const counts = types.map((t) =>
      pair(mean(cellRows.map((r) => r.messages[t] ?? 0)), e.messages[t]!.mean),
    );
    const times = cellRows.map((r) => r.electionTimeT).filter((x): x is number => x !== null);
    const agreed = cellRows.filter((r) => r.agreed).length;
    return `| ${n} | ${counts.join(' | ')} | ${pair(mean(times), e.time.mean)} | ${agreed}/${cellRows.length} |`;
  });
  return [head, sep, ...body].join('\n') + '\n';
}

function pair(measured: number, expected: number): string {
  const m = fmt(measured);
  const e = fmt(expected);
  return m === e ? `**${m}**` : `${m} (${e})`;
}

function fmt(x: number): string {
  if (!Number.isFinite(x)) return '–';
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

/** Share of runs that agreed, per algorithm and loss rate (and N when several). */
export function agreementTable(rows: readonly RunRow[]): string {
  const drops = [...new Set(rows.map((r) => r.drop))].sort((a, b) => a - b);
  const keys = [...new Set(rows.map((r) => `${r.algorithm}|${r.n}`))];
  const head = `| algorithm | N | ${drops.map((d) => `loss ${d}`).join(' | ')} |`;
  const sep = `|---|---|${drops.map(() => '---|').join('')}`;
  const body = keys.map((k) => {
    const [a, n] = k.split('|');
    const cells = drops.map((d) => {
      const rs = rows.filter((r) => r.algorithm === a && String(r.n) === n && r.drop === d);
      return rs.length
        ? `${Math.round((100 * rs.filter((r) => r.agreed).length) / rs.length)} %`
        : '–';
    });
    return `| ${a} | ${n} | ${cells.join(' | ')} |`;
  });
  return [head, sep, ...body].join('\n') + '\n';
}
