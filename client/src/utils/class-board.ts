// The class board (the instructor page): every student's process with its name, mode (auto, by
// hand, her own code), the checker findings that named her, and, by who vouches for them
// (docs/RELIABILITY.md, "What the board vouches for"): her moves, sends and deviations from the
// reference as the relay counted and judged them (verified), her lesson answers and how many
// matched the relay's own run (verified: the relay stores them and measures), and what her tab reported: its click
// count, its coach's marks and her latest grade (claimed; the relay never re-runs her module).
// Pure: rows from the relay's lab view, sorting, and CSV export.
import type { LessonView } from '@shared/lessons/lesson-api.ts';
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import { csvText } from './csv.ts';

export interface BoardRow {
  id: number;
  name: string;
  mode: string;
  status: string;
  /** Verified: her moves, her messages and the relay's coach's marks (hand mode). */
  actions: number;
  sends: number;
  deviations: number;
  findings: number;
  /** Verified, while she plays by hand (null otherwise): answers she owes, the oldest's wait and time electing, in seconds to a tenth. */
  open: number | null;
  oldestSeconds: number | null;
  electingSeconds: number | null;
  /** She holds the class up: either wait past 2 x UB (the relay's measure). */
  stuck: boolean;
  /** Verified: the lesson's revealed steps she answered, and the answers equal to the relay's measured value. */
  answers: number;
  correct: number;
  /** Claimed by her tab (hand frames): its click count and its coach's marks; null when it claimed nothing. */
  claimedClicks: number | null;
  claimedDeviations: number | null;
  /** Her tab's grade: "pass", "fail" or "" (not graded). Always a claim. */
  verdict: string;
  /** "11 of 13", or "". */
  score: string;
  /** The first failing case and why, or "". */
  failing: string;
  /** The replay page's link to the failing run, when her tab sent it. */
  trace: string | null;
}

export const BOARD_KEYS = [
  'id',
  'name',
  'mode',
  'open',
  'oldest',
  'electing',
  'actions',
  'sends',
  'deviations',
  'findings',
  'answers',
  'correct',
  'claims',
  'grade',
] as const;
export type BoardKey = (typeof BOARD_KEYS)[number];

/** Which columns the relay vouches for, and which only repeat what her tab said (the board's labels and legend). */
export const VERIFIED_KEYS: readonly BoardKey[] = [
  'open',
  'oldest',
  'electing',
  'actions',
  'sends',
  'deviations',
  'findings',
  'answers',
  'correct',
];
export const CLAIMED_KEYS: readonly BoardKey[] = ['claims', 'grade'];

/** The lesson's scores by process id (the instructor's lesson view). */
export type LessonScores = NonNullable<LessonView['scores']>;

/** Students: human tabs, and any process that played by hand, ran its own code, sent a grade or answered a lesson question. */
export function boardRows(
  lab: string,
  processes: readonly ProcessInfo[],
  scores: LessonScores = {},
): BoardRow[] {
  return processes
    .filter(
      (p) =>
        p.kind === 'human' ||
        p.mode === 'hand' ||
        p.mode === 'code' ||
        p.hand ||
        p.claimedGrade ||
        scores[String(p.id)],
    )
    .map((p) => {
      const g = p.claimedGrade;
      const claimed =
        p.hand && (p.hand.claimed.clicks > 0 || p.hand.claimed.deviations > 0)
          ? p.hand.claimed
          : null;
      const live = p.hand?.progress;
      return {
        id: p.id,
        name: p.name ?? '',
        mode: p.mode ?? 'auto',
        status: p.status,
        actions: p.hand?.actions ?? 0,
        sends: p.hand?.sends ?? 0,
        deviations: p.hand?.deviations ?? 0,
        findings: p.findings ?? 0,
        open: live?.open ?? null,
        oldestSeconds: seconds(live?.oldestOpenMs),
        electingSeconds: seconds(live?.electingMs),
        stuck: live?.stuck ?? false,
        answers: scores[String(p.id)]?.answered ?? 0,
        correct: scores[String(p.id)]?.correct ?? 0,
        claimedClicks: claimed?.clicks ?? null,
        claimedDeviations: claimed?.deviations ?? null,
        verdict: g ? (g.pass ? 'pass' : 'fail') : '',
        score: g ? `${g.passed} of ${g.total}` : '',
        failing: g?.failing ? `${g.failing.id}: ${g.failing.reason}` : '',
        trace: g?.trace ? `/replay?grade=${encodeURIComponent(`${lab}/${p.id}`)}` : null,
      };
    });
}

/** Seconds to a tenth (a class at a small time scale has UB under a second); null stays null. */
const seconds = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? null : Math.floor(ms / 100) / 10;

/** The figure a numeric column sorts by; null (not measured, nothing claimed) sorts below every number. */
const NUMBER: Partial<Record<BoardKey, (r: BoardRow) => number | null>> = {
  id: (r) => r.id,
  open: (r) => r.open,
  oldest: (r) => r.oldestSeconds,
  electing: (r) => r.electingSeconds,
  actions: (r) => r.actions,
  sends: (r) => r.sends,
  deviations: (r) => r.deviations,
  findings: (r) => r.findings,
  answers: (r) => r.answers,
  correct: (r) => r.correct,
  claims: (r) => r.claimedClicks,
};

/** A grade sorts by its pass fraction; ungraded rows come last either way. */
function gradeValue(r: BoardRow): number | null {
  const m = /^(\d+) of (\d+)$/.exec(r.score);
  return m ? Number(m[1]) / Math.max(1, Number(m[2])) : null;
}

export function sortRows(
  rows: readonly BoardRow[],
  key: BoardKey,
  descending: boolean,
): BoardRow[] {
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
    else {
      const f = NUMBER[key]!;
      c = dir * ((f(a) ?? -1) - (f(b) ?? -1));
    }
    return c || a.id - b.id;
  });
}

/** A claimed or live cell: empty when her tab claimed nothing or nothing is measured. */
const claim = (v: number | string | null) => (v === null ? '' : v);

// The header says who vouches for each figure: "(verified)" the relay, "(tab claims)" her tab.
const COLUMNS: [string, (r: BoardRow) => string | number][] = [
  ['id', (r) => r.id],
  ['name', (r) => r.name],
  ['mode', (r) => r.mode],
  ['status', (r) => r.status],
  ['open items (verified)', (r) => claim(r.open)],
  ['oldest unanswered s (verified)', (r) => claim(r.oldestSeconds)],
  ['time electing s (verified)', (r) => claim(r.electingSeconds)],
  ['stuck past 2 UB (verified)', (r) => (r.stuck ? 'yes' : '')],
  ['actions (verified)', (r) => r.actions],
  ['sends (verified)', (r) => r.sends],
  ['deviations (verified)', (r) => r.deviations],
  ['findings (verified)', (r) => r.findings],
  ['lesson answers (verified)', (r) => r.answers],
  ['lesson correct (verified)', (r) => r.correct],
  ['clicks (tab claims)', (r) => claim(r.claimedClicks)],
  ['deviations (tab claims)', (r) => claim(r.claimedDeviations)],
  ['grade (tab claims)', (r) => r.verdict],
  ['score (tab claims)', (r) => r.score],
  ['first failing case (tab claims)', (r) => r.failing],
];

/** RFC 4180 CSV, one row per student (csv.ts defuses a name a spreadsheet would run). */
export function boardCsv(rows: readonly BoardRow[]): string {
  return csvText(
    COLUMNS.map(([h]) => h),
    rows.map((r) => COLUMNS.map(([, f]) => f(r))),
  );
}
