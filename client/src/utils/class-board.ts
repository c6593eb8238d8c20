// The class board (the instructor page): every student's process with its name, mode (auto, by
// hand, her own code), her clicks and deviations from the reference (hand mode's coach), the
// checker findings that named her, and her latest grade with the link that opens the failing
// run in replay (code mode). Pure: rows from the relay's lab view, sorting, and CSV export.
import type { ProcessInfo } from '@shared/protocol/frames.ts';

export interface BoardRow {
  id: number;
  name: string;
  mode: string;
  status: string;
  actions: number;
  deviations: number;
  findings: number;
  /** "pass", "fail" or "" (not graded). */
  verdict: string;
  /** "11 of 13", or "". */
  score: string;
  /** The first failing case and why, or "". */
  failing: string;
  /** The replay page's link to the failing run, when her tab sent it. */
  trace: string | null;
}

export const BOARD_KEYS = ['id', 'name', 'mode', 'actions', 'deviations', 'findings', 'grade'] as const;
export type BoardKey = (typeof BOARD_KEYS)[number];

/** Students: human tabs, and any process that played by hand, ran its own code or sent a grade. */
export function boardRows(lab: string, processes: readonly ProcessInfo[]): BoardRow[] {
  return processes
    .filter((p) => p.kind === 'human' || p.mode === 'hand' || p.mode === 'code' || p.hand || p.grade)
    .map((p) => ({
      id: p.id,
      name: p.name ?? '',
      mode: p.mode ?? 'auto',
      status: p.status,
      actions: p.hand?.actions ?? 0,
      deviations: p.hand?.deviations ?? 0,
      findings: p.findings ?? 0,
      verdict: p.grade ? (p.grade.pass ? 'pass' : 'fail') : '',
      score: p.grade ? `${p.grade.passed} of ${p.grade.total}` : '',
      failing: p.grade?.failing ? `${p.grade.failing.id}: ${p.grade.failing.reason}` : '',
      trace: p.grade?.trace ? `/replay?grade=${encodeURIComponent(`${lab}/${p.id}`)}` : null,
    }));
}

/** A grade sorts by its pass fraction; ungraded rows come last either way. */
function gradeValue(r: BoardRow): number | null {
  const m = /^(\d+) of (\d+)$/.exec(r.score);
  return m ? Number(m[1]) / Math.max(1, Number(m[2])) : null;
}

export function sortRows(rows: readonly BoardRow[], key: BoardKey, descending: boolean): BoardRow[] {
  const dir = descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    let c: number;
    if (key === 'grade') {
      const x = gradeValue(a);
      const y = gradeValue(b);
      if (x === null || y === null) c = x === y ? 0 : x === null ? 1 : -1;
      else c = dir * (x - y);
      if (x === null || y === null) return c || a.id - b.id;
    } else if (key === 'name' || key === 'mode') c = dir * a[key].localeCompare(b[key]);
    else c = dir * (a[key] - b[key]);
    return c || a.id - b.id;
  });
}

const COLUMNS: [string, (r: BoardRow) => string | number][] = [
  ['id', (r) => r.id],
  ['name', (r) => r.name],
  ['mode', (r) => r.mode],
  ['status', (r) => r.status],
  ['actions', (r) => r.actions],
  ['deviations', (r) => r.deviations],
  ['findings', (r) => r.findings],
  ['grade', (r) => r.verdict],
  ['score', (r) => r.score],
  ['first failing case', (r) => r.failing],
];

/**
 * RFC 4180 CSV, one row per student. A name is hers to choose: a cell that a spreadsheet would
 * run as a formula (= + - @ first) is prefixed with an apostrophe.
 */
export function boardCsv(rows: readonly BoardRow[]): string {
  const cell = (v: string | number) => {
    let s = String(v);
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [COLUMNS.map(([h]) => cell(h)).join(','), ...rows.map((r) => COLUMNS.map(([, f]) => cell(f(r))).join(','))];
  return lines.join('\r\n') + '\r\n';
}
