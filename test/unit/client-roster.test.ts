// The roster's rows and CSV export (client/src/utils/roster.ts).
import { describe, expect, it } from 'vitest';
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import { LabModel } from '../../client/src/utils/lab-model.ts';
import {
  agoText,
  clockTime,
  connectionCell,
  rosterCsv,
  rosterRows,
} from '../../client/src/utils/roster.ts';
import { snapshotOf } from '../helpers/client-lab-fixtures.ts';

const p = (
  id: number,
  name: string | null,
  kind: ProcessInfo['kind'],
  status: ProcessInfo['status'],
  since: number | null = null,
): ProcessInfo => ({
  id,
  name,
  kind,
  status,
  transport: null,
  report: null,
  group: null,
  since,
});
// 09:05:07 local time, whatever the machine's time zone.
const NINE = new Date(2026, 0, 12, 9, 5, 7).getTime();

describe('roster', () => {
  it('lists who joined, by id, with kind and whether still connected; never-joined ids are left out', () => {
    const rows = rosterRows([
      p(3, 'Bo', 'human', 'absent'),
      p(1, 'Ada', 'human', 'up'),
      p(2, null, null, 'absent'),
      p(0, 'bot-0', 'bot', 'crashed'),
    ]);
    expect(rows.map((r) => [r.id, r.name, r.kind, r.connected])).toEqual([
      [0, 'bot-0', 'bot', true],
      [1, 'Ada', 'human', true],
      [3, 'Bo', 'human', false],
    ]);
  });

  it('exports CSV with a header, quoting commas and quotes, defusing formulas, and the since time in UTC', () => {
    const at = Date.UTC(2026, 0, 12, 8, 30, 0);
    const csv = rosterCsv(
      rosterRows([
        p(1, 'Lovelace, "Ada"', 'human', 'up', at),
        p(2, '=SUM(A1)', 'external', 'absent'),
      ]),
    );
    expect(csv).toBe(
      'id,name,kind,connected,status,since\r\n1,"Lovelace, ""Ada""",human,yes,up,2026-01-12T08:30:00.000Z\r\n2,\'=SUM(A1),external,no,absent,\r\n',
    );
  });

  it('says whether each process is connected and since when (joined or left), as a time of day and how long ago', () => {
    const rows = rosterRows([
      p(1, 'Ada', 'human', 'up', NINE),
      p(2, 'Bo', 'human', 'absent', NINE - 3_600_000),
      p(3, 'Cy', 'human', 'up'),
      p(4, 'Di', 'bot', 'crashed', NINE),
    ]);
    const now = NINE + 12 * 60_000 + 30_000;
    expect(rows.map((r) => connectionCell(r, now))).toEqual([
      { state: 'yes, joined 09:05:07', ago: '12 min ago' },
      { state: 'left 08:05:07', ago: '1 h 12 min ago' },
      { state: 'yes', ago: null },
      { state: 'yes (crashed), joined 09:05:07', ago: '12 min ago' },
    ]);
  });

  it('rounds how long ago down, coarsely, and never into the future', () => {
    expect(clockTime(NINE)).toBe('09:05:07');
    expect(
      [0, 4_999, 5_000, 59_999, 60_000, 3_600_000, 7_260_000].map((d) => agoText(NINE, NINE + d)),
    ).toEqual([
      'just now',
      'just now',
      '5 s ago',
      '59 s ago',
      '1 min ago',
      '1 h ago',
      '2 h 1 min ago',
    ]);
    expect(agoText(NINE + 10_000, NINE)).toBe('just now');
  });

  it('dates a join or a leave the trace reports by the relay clock of the last snapshot', () => {
    const model = new LabModel();
    // The snapshot arrived at NINE, when the relay's lab clock read 60 s.
    model.applySnapshot({ ...snapshotOf([0, 1]), now: 60_000 }, NINE);
    model.applyEvents([
      { seq: 0, t: 90_000, kind: 'leave', node: 0 },
      { seq: 1, t: 120_000, kind: 'join', node: 1 },
    ]);
    const rows = rosterRows(model.list());
    expect(rows.find((r) => r.id === 0)).toMatchObject({ connected: false, since: NINE + 30_000 });
    expect(model.processes.get(1)?.since).toBe(NINE + 60_000);
  });
});
