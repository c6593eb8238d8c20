// The instructor's roster: who is in the lab by name, and its CSV export. Pure: the panel draws
// rows from the lab snapshot; the export is this text.
import type { ProcessInfo } from '@shared/protocol/frames.ts';

export interface RosterRow {
  id: number;
  name: string;
  kind: 'human' | 'bot' | 'external' | '';
  connected: boolean;
  status: ProcessInfo['status'];
}

/** Rows for every process that has joined at least once (absent ids that never joined are left out). */
export function rosterRows(processes: readonly ProcessInfo[]): RosterRow[] {
  return processes
    .filter((p) => p.kind !== null || p.name !== null)
    .map((p): RosterRow => ({ id: p.id, name: p.name ?? '', kind: p.kind ?? '', connected: p.status !== 'absent', status: p.status }))
    .sort((a, b) => a.id - b.id);
}

/** RFC 4180 field: quoted when it holds a comma, quote or line break; a leading = + - @ is defused for spreadsheets. */
function field(value: string | number | boolean): string {
  let s = String(value);
  if (/^[=+\-@]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function rosterCsv(rows: readonly RosterRow[]): string {
  const lines = [['id', 'name', 'kind', 'connected', 'status'].join(',')];
  for (const r of rows) lines.push([r.id, r.name, r.kind, r.connected ? 'yes' : 'no', r.status].map(field).join(','));
  return lines.join('\r\n') + '\r\n';
}
