// The roster's rows and CSV export (client/src/utils/roster.ts).
import { describe, expect, it } from 'vitest';
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import { rosterCsv, rosterRows } from '../client/src/utils/roster.ts';

const p = (id: number, name: string | null, kind: ProcessInfo['kind'], status: ProcessInfo['status']): ProcessInfo => ({ id, name, kind, status, transport: null, report: null, group: null });

describe('roster', () => {
  it('lists who joined, by id, with kind and whether still connected; never-joined ids are left out', () => {
    const rows = rosterRows([p(3, 'Bo', 'human', 'absent'), p(1, 'Ada', 'human', 'up'), p(2, null, null, 'absent'), p(0, 'bot-0', 'bot', 'crashed')]);
    expect(rows.map((r) => [r.id, r.name, r.kind, r.connected])).toEqual([
      [0, 'bot-0', 'bot', true],
      [1, 'Ada', 'human', true],
      [3, 'Bo', 'human', false],
    ]);
  });

  it('exports CSV with a header, quoting commas and quotes and defusing formulas', () => {
    const csv = rosterCsv(rosterRows([p(1, 'Lovelace, "Ada"', 'human', 'up'), p(2, '=SUM(A1)', 'external', 'absent')]));
    expect(csv).toBe('id,name,kind,connected,status\r\n1,"Lovelace, ""Ada""",human,yes,up\r\n2,\'=SUM(A1),external,no,absent\r\n');
  });
});
