// The experiment's figures: messages by type against N with the documents' formulas beside the
// measured points, election time (in T) against N, and, where loss was swept, the share of runs
// that ended in agreement. Each figure is a file name and its SVG text.
import { DEFAULT_TIMING, type AlgorithmName } from '../algorithms/algorithm.ts';
import type { RunRow } from './experiment.ts';
import { renderChart, PALETTE, type Series } from './experiment-svg.ts';
import { mean, typeColumns } from './experiment-tables.ts';
import { expectedMessages, formulaTypes, type ElectionCase } from '../analysis/formulas.ts';

interface Figure {
  file: string;
  svg: string;
}

export function experimentFigures(rows: readonly RunRow[]): Figure[] {
  const out: Figure[] = [];
  const lossless = rows.filter((r) => r.drop === 0);
  const algorithms = [...new Set(lossless.map((r) => r.algorithm))];
  const cases = [...new Set(lossless.map((r) => r.case))];
  for (const a of algorithms)
    for (const c of cases) {
      const fig = messagesFigure(lossless, a, c);
      if (fig) out.push(fig);
    }
  for (const c of cases) {
    const fig = timeFigure(lossless, c);
    if (fig) out.push(fig);
  }
  if (new Set(rows.map((r) => r.drop)).size > 1) out.push(agreementFigure(rows));
  return out;
}

/** Mean per N of a value, as chart points. */
function perN(rows: readonly RunRow[], value: (r: RunRow) => number | null): [number, number][] {
  const ns = [...new Set(rows.map((r) => r.n))].sort((a, b) => a - b);
  return ns.map(
    (n) =>
      [
        n,
        mean(
          rows
            .filter((r) => r.n === n)
            .map(value)
            .filter((v): v is number => v !== null),
        ),
      ] as [number, number],
  );
}

function timingOf(r: RunRow) {
  return { ...DEFAULT_TIMING, transmission: r.delay + r.jitter };
}

function messagesFigure(rows: readonly RunRow[], a: AlgorithmName, c: ElectionCase): Figure | null {
  const mine = rows.filter((r) => r.algorithm === a && r.case === c);
  if (mine.length === 0) return null;
  const measured = typeColumns(mine).filter((t) => mine.some((r) => (r.messages[t] ?? 0) > 0));
  const formulas = formulaTypes(a);
  const types = [...new Set([...formulas, ...measured])];
  const ns = [...new Set(mine.map((r) => r.n))].sort((x, y) => x - y);
  const series: Series[] = [];
  types.forEach((t, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    series.push({
      name: `${t} measured`,
      color,
      style: 'points',
      points: perN(mine, (r) => r.messages[t] ?? 0),
    });
    if (formulas.includes(t)) {
      const e = (n: number) => expectedMessages(a, n, c, timingOf(mine[0]!)).messages[t]!;
      series.push({
        name: `${t}: ${e(ns[0]!).formula}`,
        color,
        style: 'line',
        dashed: true,
        points: ns.map((n) => [n, e(n).mean] as [number, number]),
      });
    }
  });
  return {
    file: `messages-${a}-${c}.svg`,
    svg: renderChart({
      title: `${a}, ${c} case: messages by type`,
      xLabel: 'N (processes; N−1 crashed)',
      yLabel: 'messages (log; zeros not drawn)',
      xLog: true,
      yLog: true,
      series,
    }),
  };
}

function timeFigure(rows: readonly RunRow[], c: ElectionCase): Figure | null {
  const mine = rows.filter((r) => r.case === c);
  if (mine.length === 0) return null;
  const series: Series[] = [];
  [...new Set(mine.map((r) => r.algorithm))].forEach((a, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const rs = mine.filter((r) => r.algorithm === a);
    const ns = [...new Set(rs.map((r) => r.n))].sort((x, y) => x - y);
    series.push({
      name: `${a} measured`,
      color,
      style: 'points',
      points: perN(rs, (r) => r.electionTimeT),
    });
    const e = (n: number) => expectedMessages(a, n, c, timingOf(rs[0]!)).time;
    series.push({
      name: `${a}: ${short(e(ns[0]!).formula)}`,
      color,
      style: 'line',
      dashed: true,
      points: ns.map((n) => [n, e(n).mean] as [number, number]),
    });
  });
  return {
    file: `time-${c}.svg`,
    svg: renderChart({
      title: `Election time, ${c} case`,
      xLabel: 'N (processes)',
      yLabel: 'detection → all know the coordinator (T)',
      xLog: true,
      yLog: true,
      series,
    }),
  };
}

function agreementFigure(rows: readonly RunRow[]): Figure {
  const keys = [...new Set(rows.map((r) => `${r.algorithm}|${r.n}`))];
  const series: Series[] = keys.map((k, i) => {
    const [a, n] = k.split('|');
    const rs = rows.filter((r) => r.algorithm === a && String(r.n) === n);
    const drops = [...new Set(rs.map((r) => r.drop))].sort((x, y) => x - y);
    const points = drops.map((d) => {
      const cell = rs.filter((r) => r.drop === d);
      return [d, cell.filter((r) => r.agreed).length / cell.length] as [number, number];
    });
    return { name: `${a}, N=${n}`, color: PALETTE[i % PALETTE.length]!, style: 'both', points };
  });
  return {
    file: 'agreement.svg',
    svg: renderChart({
      title: `Runs that ended in agreement (detector ${[...new Set(rows.map((r) => r.detector))].join(', ')})`,
      xLabel: 'loss probability per message',
      yLabel: 'share of runs agreed',
      series,
      yInclude: [0, 1],
    }),
  };
}

function short(formula: string): string {
  return formula.length > 26 ? formula.slice(0, 25) + '…' : formula;
}
