// The student's schedule of faults as the challenge page edits it: rows of one fault each, turned
// into the schedule the simulator runs and the relay re-runs (shared/challenges/), checked by
// the same schema, with what each kind of fault spends against the budget. Pure.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import {
  faultsOf,
  ScheduleSchema,
  type Budget,
  type Challenge,
  type Schedule,
} from '@shared/challenges/challenge-schema.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import type { ElectionWindow } from './election-tracker.ts';
import { windowAt } from './replay-elections.ts';

export type FaultKind = 'link' | 'partition' | 'crash' | 'recover' | 'elect';
export const FAULT_KINDS: readonly FaultKind[] = ['link', 'partition', 'crash', 'recover', 'elect'];

export type FaultRow =
  | { kind: 'crash' | 'recover' | 'elect'; at: number; id: ProcessId }
  /** A directed link from `at` on: it loses this share, and (when set) takes this delay, ms. */
  | { kind: 'link'; at: number; from: ProcessId; to: ProcessId; loss: number; delay: number | null }
  /** Groups as typed: "0 1 2 | 3 4 5"; empty heals. */
  | { kind: 'partition'; at: number; groups: string };

/** A new row of a kind, filled with the set-up's ids so it runs as it is. */
export function newRow(kind: FaultKind, ids: readonly ProcessId[], at = 1000): FaultRow {
  const top = ids[ids.length - 1] ?? 0;
  const low = ids[0] ?? 0;
  if (kind === 'link')
    return { kind, at: 0, from: top, to: ids[ids.length - 2] ?? low, loss: 1, delay: null };
  if (kind === 'partition') {
    const half = Math.ceil(ids.length / 2);
    return { kind, at, groups: `${ids.slice(0, half).join(' ')} | ${ids.slice(half).join(' ')}` };
  }
  return { kind, at, id: low };
}

/** "0 1 2 | 3 4 5" to groups; blank is a heal (null). */
export function parseGroups(text: string): ProcessId[][] | null | string {
  if (!text.trim()) return null;
  const groups = text.split('|').map((g) =>
    g
      .trim()
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(Number),
  );
  if (groups.some((g) => g.length === 0 || g.some((id) => !Number.isInteger(id) || id < 0)))
    return 'groups are ids separated by spaces, groups by |, e.g. 0 1 2 | 3 4 5';
  return groups;
}

/** The rows as a schedule, or what is wrong with them (row by row, in the schema's words). */
export function rowsToSchedule(
  rows: readonly FaultRow[],
): { ok: true; schedule: Schedule } | { ok: false; errors: string[] } {
  const s: Required<Schedule> = { crash: [], recover: [], elect: [], partition: [], links: [] };
  const errors: string[] = [];
  rows.forEach((r, i) => {
    if (r.kind === 'link')
      s.links.push({
        at: r.at,
        from: r.from,
        to: r.to,
        loss: r.loss,
        ...(r.delay !== null ? { delay: r.delay } : {}),
      });
    else if (r.kind === 'partition') {
      const groups = parseGroups(r.groups);
      if (typeof groups === 'string') errors.push(`row ${i + 1}: ${groups}`);
      else s.partition.push({ at: r.at, groups });
    } else s[r.kind].push({ id: r.id, at: r.at });
  });
  const schedule = Object.fromEntries(
    Object.entries(s).filter(([, v]) => v.length > 0),
  ) as Schedule;
  const parsed = ScheduleSchema.safeParse(schedule);
  if (!parsed.success)
    errors.push(
      ...parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.map(String).join('.')}: ${i.message}`),
    );
  return errors.length ? { ok: false, errors } : { ok: true, schedule: parsed.data! };
}

/** Each kind of fault: spent and allowed, for the budget line. */
export function budgetLine(
  budget: Budget,
  schedule: Schedule,
): { kind: keyof Omit<Budget, 'protect'>; spent: number; allowed: number }[] {
  const spent = faultsOf(schedule);
  const { protect: _protect, ...allowed } = budget;
  return (Object.keys(allowed) as (keyof typeof allowed)[])
    .filter((k) => allowed[k] > 0 || spent[k] > 0)
    .map((k) => ({ kind: k, spent: spent[k], allowed: allowed[k] }));
}

/** The run's space-time diagram: the last `span` events up to when the target was met (or the end). */
export function challengeWindow(
  trace: readonly TraceEvent[],
  at: number | null,
  span = 3000,
): ElectionWindow | null {
  let count = trace.length;
  if (at !== null) {
    const past = trace.findIndex((e) => e.t > at);
    if (past >= 0) count = past;
  }
  const w = windowAt([], trace, count, span);
  const until = at !== null && count < trace.length ? 'up to the target' : 'to its end';
  return w && { ...w, trigger: `your run ${until}` };
}

/** The challenge's set-up as a student reads it. */
export function setupLine(c: Challenge): string {
  const s = c.setup;
  const lead = typeof s.coordinator === 'number' ? `, ${s.coordinator} leads` : '';
  return `${s.algorithm}, ids ${s.ids.join(' ')}${lead}, links ${s.link?.delay ?? 100} ms, run of ${(s.until ?? 20_000) / 1000} s`;
}
