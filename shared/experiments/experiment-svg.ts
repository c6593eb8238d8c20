// A small hand-written SVG chart: points and lines on linear or log axes, with a legend. Enough
// for the experiment plots (messages and time against N, agreement against loss) without a
// plotting library; the output is plain text, stable from run to run, and diffs well.

export interface Series {
  name: string;
  color: string;
  points: readonly (readonly [number, number])[];
  /** `line`: joined by a line (formulas, dashed); `points`: measured values as markers. */
  style: 'line' | 'points' | 'both';
  dashed?: boolean;
  /** Hollow markers tell a second case apart. */
  hollow?: boolean;
}

interface Chart {
  title: string;
  xLabel: string;
  yLabel: string;
  xLog?: boolean;
  yLog?: boolean;
  series: Series[];
  /** Force the y range to include these values (e.g. 0 and 1 for a share). */
  yInclude?: number[];
}

const W = 820;
const H = 440;
const M = { left: 70, right: 250, top: 40, bottom: 56 };

export const PALETTE = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#7f7f7f',
  '#bcbd22',
];

export function renderChart(c: Chart): string {
  const pts = c.series
    .flatMap((s) => s.points)
    .filter(
      ([x, y]) =>
        Number.isFinite(x) && Number.isFinite(y) && (!c.xLog || x > 0) && (!c.yLog || y > 0),
    );
  const xs = pts.map((p) => p[0]);
  const ys = [...pts.map((p) => p[1]), ...(c.yInclude ?? [])];
  const xAxis = axis(xs, !!c.xLog, M.left, W - M.right);
  const yAxis = axis(ys, !!c.yLog, H - M.bottom, M.top);
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(
    `<text x="${W / 2 - M.right / 2 + M.left / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(c.title)}</text>`,
  );
  for (const t of xAxis.ticks) {
    const x = xAxis.at(t);
    out.push(
      `<line x1="${f(x)}" y1="${M.top}" x2="${f(x)}" y2="${H - M.bottom}" stroke="#e6e6e6"/>`,
    );
    out.push(`<text x="${f(x)}" y="${H - M.bottom + 16}" text-anchor="middle">${label(t)}</text>`);
  }
  for (const t of yAxis.ticks) {
    const y = yAxis.at(t);
    out.push(
      `<line x1="${M.left}" y1="${f(y)}" x2="${W - M.right}" y2="${f(y)}" stroke="#e6e6e6"/>`,
    );
    out.push(`<text x="${M.left - 6}" y="${f(y + 4)}" text-anchor="end">${label(t)}</text>`);
  }
  out.push(
    `<rect x="${M.left}" y="${M.top}" width="${W - M.left - M.right}" height="${H - M.top - M.bottom}" fill="none" stroke="#444"/>`,
  );
  out.push(
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 14}" text-anchor="middle">${esc(c.xLabel)}</text>`,
  );
  out.push(
    `<text transform="translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${esc(c.yLabel)}</text>`,
  );
  c.series.forEach((s, i) => {
    const ok = s.points.filter(
      ([x, y]) =>
        Number.isFinite(x) && Number.isFinite(y) && (!c.xLog || x > 0) && (!c.yLog || y > 0),
    );
    const xy = ok.map(([x, y]) => [xAxis.at(x), yAxis.at(y)] as const);
    if (s.style !== 'points' && xy.length > 1) {
      const d = xy.map(([x, y], k) => `${k === 0 ? 'M' : 'L'}${f(x)} ${f(y)}`).join(' ');
      out.push(
        `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.6"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      );
    }
    if (s.style !== 'line') for (const [x, y] of xy) out.push(marker(x, y, s));
    // Legend entry.
    const ly = M.top + 8 + i * 18;
    const lx = W - M.right + 14;
    if (s.style === 'points') out.push(marker(lx + 10, ly, s));
    else
      out.push(
        `<line x1="${lx}" y1="${ly}" x2="${lx + 20}" y2="${ly}" stroke="${s.color}" stroke-width="1.6"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      );
    out.push(`<text x="${lx + 26}" y="${ly + 4}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function marker(x: number, y: number, s: Series): string {
  return `<circle cx="${f(x)}" cy="${f(y)}" r="3.5" fill="${s.hollow ? 'white' : s.color}" stroke="${s.color}" stroke-width="1.4"/>`;
}

interface Axis {
  ticks: number[];
  at(v: number): number;
}

/** Maps values onto [from, to] pixels; log axes get ticks at powers of 2 (x) or 10. */
function axis(values: number[], log: boolean, from: number, to: number): Axis {
  const vs = values.filter((v) => Number.isFinite(v) && (!log || v > 0));
  let lo = vs.length ? Math.min(...vs) : 0;
  let hi = vs.length ? Math.max(...vs) : 1;
  if (log) {
    const base = hi / lo > 1e3 ? 10 : 2;
    const l = Math.floor(Math.log(lo) / Math.log(base));
    const h = Math.ceil(Math.log(hi) / Math.log(base));
    const a = base ** l;
    const b = base ** Math.max(h, l + 1);
    const ticks: number[] = [];
    for (let k = l; k <= Math.max(h, l + 1); k++) ticks.push(base ** k);
    const span = Math.log(b) - Math.log(a);
    return { ticks, at: (v) => from + ((Math.log(v) - Math.log(a)) / span) * (to - from) };
  }
  if (lo === hi) [lo, hi] = [lo - 1, hi + 1];
  const step = niceStep((hi - lo) / 6);
  const a = Math.floor(lo / step) * step;
  const b = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let t = a; t <= b + step / 2; t += step) ticks.push(Number(t.toPrecision(12)));
  return { ticks, at: (v) => from + ((v - a) / (b - a)) * (to - from) };
}

function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

function label(v: number): string {
  if (Math.abs(v) >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (Math.abs(v) >= 1e4) return `${+(v / 1e3).toPrecision(3)}k`;
  return String(+v.toPrecision(4));
}

const f = (v: number) => (Math.round(v * 10) / 10).toString();

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
