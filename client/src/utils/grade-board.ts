// The class board's grade column (the instructor page's Grades panel): every process whose tab
// runs its own module or sent a grade, with what the relay keeps for it (frames `mode` and
// `grade`, docs/STUDENT_MODULES.md).
import type { ProcessInfo } from '@shared/protocol/frames.ts';

export interface GradeRow {
  id: number;
  name: string;
  mode: string;
  /** "pass", "fail" or "" (not graded yet). */
  verdict: string;
  /** "11 of 13". */
  score: string;
  /** The first failing case and why, or "". */
  failing: string;
  /** The replay page's link to the failing run, when the tab sent it. */
  trace: string | null;
  /** Lab time of the grade (ms), for "how long ago". */
  at: number | null;
}

export function gradeRows(lab: string, processes: readonly ProcessInfo[]): GradeRow[] {
  return processes
    .filter((p) => p.mode === 'code' || p.mode === 'hand' || p.grade)
    .map((p) => ({
      id: p.id,
      name: p.name ?? '',
      mode: p.mode ?? 'auto',
      verdict: p.grade ? (p.grade.pass ? 'pass' : 'fail') : '',
      score: p.grade ? `${p.grade.passed} of ${p.grade.total}` : '',
      failing: p.grade?.failing ? `${p.grade.failing.id}: ${p.grade.failing.reason}` : '',
      trace: p.grade?.trace ? `/replay?grade=${encodeURIComponent(`${lab}/${p.id}`)}` : null,
      at: p.grade?.at ?? null,
    }));
}
