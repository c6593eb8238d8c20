// The instructor's roster: who is in the lab by name, and its CSV export. Pure: the panel draws
// rows from the lab snapshot; the export is this text.
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import { csvText } from './csv.ts';

export interface RosterRow {
  id: number;
  name: string;
  kind: 'human' | 'bot' | 'external' | '';
  connected: boolean;
  status: ProcessInfo['status'];
  /** Wall-clock ms of its last join (connected) or leave (not); null when unknown. */
  since: number | null;
}

/** Rows for every process that has joined at least once (absent ids that never joined are left out). */
export function rosterRows(processes: readonly ProcessInfo[]): RosterRow[] {
  return processes
    .filter((p) => p.kind !== null || p.name !== null)
    .map((p): RosterRow => ({
      id: p.id,
      name: p.name ?? '',
      kind: p.kind ?? '',
      connected: p.status !== 'absent',
      status: p.status,
      since: p.since ?? null,
    }))
    .sort((a, b) => a.id - b.id);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "09:05:07": the local time of day of a wall-clock instant. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** How long ago, coarsely: "just now", "40 s ago", "12 min ago", "2 h 5 min ago". */
export function agoText(ms: number, now: number): string {
  const s = Math.max(0, Math.floor((now - ms) / 1000));
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.floor(min / 60);
  return min % 60 ? `${h} h ${min % 60} min ago` : `${h} h ago`;
}

/**
 * The roster's "Connected" cell, connected or not and since when: "yes, joined 09:05:07" or
 * "left 09:05:07" over "12 min ago" (one column, so five fit a 390 px phone).
 */
export function connectionCell(
  row: Pick<RosterRow, 'connected' | 'status' | 'since'>,
  now: number,
): { state: string; ago: string | null } {
  const at = row.since === null ? null : clockTime(row.since);
  const ago = row.since === null ? null : agoText(row.since, now);
  if (!row.connected) return { state: at ? `left ${at}` : 'left', ago };
  const yes = row.status === 'crashed' ? 'yes (crashed)' : 'yes';
  return { state: at ? `${yes}, joined ${at}` : yes, ago };
}

export function rosterCsv(rows: readonly RosterRow[]): string {
  // `since`: ISO 8601 in UTC, when the row's process joined (connected) or left (not).
  const lines = rows.map((r) => [
    r.id,
    r.name,
    r.kind,
    r.connected ? 'yes' : 'no',
    r.status,
    r.since === null ? '' : new Date(r.since).toISOString(),
  ]);
  return csvText(['id', 'name', 'kind', 'connected', 'status', 'since'], lines);
}
