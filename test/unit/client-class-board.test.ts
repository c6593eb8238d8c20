// The class board (client/src/utils/class-board.ts): every student with her mode, the relay's
// verified figures (moves, sends, deviations, findings, lesson answers and correct ones), her tab's claims (clicks, marks, grade)
// kept apart and labelled, sorting, and CSV export.
import { describe, expect, it } from 'vitest';
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import {
  boardCsv,
  boardRows,
  CLAIMED_KEYS,
  sortRows,
  VERIFIED_KEYS,
} from '../../client/src/utils/class-board.ts';

const base: ProcessInfo = {
  id: 0,
  name: null,
  status: 'up',
  kind: 'bot',
  transport: 'server',
  report: null,
  group: null,
};
const grade = (pass: boolean, passed: number) => ({
  algorithm: 'bully' as const,
  pass,
  passed,
  total: 13,
  failing: pass ? null : { id: 'explore', title: 'explorer', reason: 'safety broken' },
  claimed: true as const,
  at: 5000,
  trace: !pass,
});
const hand = (actions: number, deviations: number, clicks = 0, marks = 0) => ({
  actions,
  sends: actions + 1,
  deviations,
  forgotten: 0,
  claimed: { clicks, deviations: marks },
});
const processes: ProcessInfo[] = [
  base,
  {
    ...base,
    id: 1,
    name: 'Ada',
    kind: 'human',
    mode: 'hand',
    hand: hand(7, 2, 400, 0),
    findings: 1,
  },
  { ...base, id: 2, name: 'Bo', kind: 'human', mode: 'code', claimedGrade: grade(false, 11) },
  {
    ...base,
    id: 3,
    name: '=HYPERLINK("x")',
    kind: null,
    status: 'absent',
    claimedGrade: grade(true, 13),
  },
  { ...base, id: 4, name: 'Di', kind: 'human' },
  // Issue 24: the relay's live measure of who holds the class up (server/lab/hand-audit.ts).
  {
    ...base,
    id: 5,
    name: 'Eve',
    kind: 'human',
    mode: 'hand',
    hand: {
      ...hand(3, 0),
      progress: { open: 15, oldestOpenMs: 47_900, electingMs: 61_200, stuck: true },
    },
  },
  {
    ...base,
    id: 6,
    name: 'Fay',
    kind: 'human',
    mode: 'hand',
    hand: {
      ...hand(2, 0),
      progress: { open: 0, oldestOpenMs: null, electingMs: null, stuck: false },
    },
  },
];

describe('class board', () => {
  it("lists every student (not the bots) with the relay's figures, her tab's claims apart, and the grade with its replay link", () => {
    const rows = boardRows('class 1', processes);
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6]);
    // 400 clicks claimed by the tab; the relay saw 7 moves: the row keeps both, apart.
    expect(rows[0]).toMatchObject({
      name: 'Ada',
      mode: 'hand',
      actions: 7,
      sends: 8,
      deviations: 2,
      findings: 1,
      claimedClicks: 400,
      claimedDeviations: 0,
      verdict: '',
      trace: null,
    });
    expect(rows[1]).toMatchObject({
      mode: 'code',
      verdict: 'fail',
      score: '11 of 13',
      failing: 'explore: safety broken',
      trace: '/replay?grade=class%201%2F2',
      claimedClicks: null,
    });
    expect(rows[3]).toMatchObject({
      mode: 'auto',
      actions: 0,
      sends: 0,
      deviations: 0,
      findings: 0,
      score: '',
      claimedClicks: null,
    });
  });

  it("shows who holds the class up from the relay's live measure: open items, the oldest unanswered and time electing in seconds to a tenth, stuck past 2 x UB; nothing measured when she does not play by hand", () => {
    const rows = boardRows('l', processes);
    expect(rows[4]).toMatchObject({
      open: 15,
      oldestSeconds: 47.9,
      electingSeconds: 61.2,
      stuck: true,
    });
    expect(rows[5]).toMatchObject({
      open: 0,
      oldestSeconds: null,
      electingSeconds: null,
      stuck: false,
    });
    expect(rows[3]).toMatchObject({
      open: null,
      oldestSeconds: null,
      electingSeconds: null,
      stuck: false,
    });
    expect(sortRows(rows, 'oldest', true).map((r) => r.id)).toEqual([5, 1, 2, 3, 4, 6]);
    expect(sortRows(rows, 'open', true).map((r) => r.id)).toEqual([5, 6, 1, 2, 3, 4]);
    expect(sortRows(rows, 'electing', false).map((r) => r.id)).toEqual([1, 2, 3, 4, 6, 5]);
  });

  it('names every column as verified or claimed, and the grade only as a claim', () => {
    expect([...VERIFIED_KEYS].sort()).toEqual([
      'actions',
      'answers',
      'correct',
      'deviations',
      'electing',
      'findings',
      'oldest',
      'open',
      'sends',
    ]);
    expect([...CLAIMED_KEYS].sort()).toEqual(['claims', 'grade']);
  });

  it('sorts by any column both ways, ties by id, ungraded rows last', () => {
    const rows = boardRows('l', processes);
    expect(sortRows(rows, 'deviations', true).map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(sortRows(rows, 'deviations', false).map((r) => r.id)).toEqual([2, 3, 4, 5, 6, 1]);
    expect(sortRows(rows, 'name', false).map((r) => r.name)).toEqual([
      '=HYPERLINK("x")',
      'Ada',
      'Bo',
      'Di',
      'Eve',
      'Fay',
    ]);
    expect(sortRows(rows, 'grade', true).map((r) => r.id)).toEqual([3, 2, 1, 4, 5, 6]);
    expect(sortRows(rows, 'grade', false).map((r) => r.id)).toEqual([2, 3, 1, 4, 5, 6]);
    expect(sortRows(rows, 'claims', true).map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('exports RFC 4180 CSV with who vouches for each figure in its header, quoting, and defusing a name a spreadsheet would run', () => {
    const csv = boardCsv(boardRows('l', processes));
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(
      'id,name,mode,status,open items (verified),oldest unanswered s (verified),time electing s (verified),stuck past 2 UB (verified),actions (verified),sends (verified),deviations (verified),findings (verified),lesson answers (verified),lesson correct (verified),clicks (tab claims),deviations (tab claims),grade (tab claims),score (tab claims),first failing case (tab claims)',
    );
    expect(lines[1]).toBe('1,Ada,hand,up,,,,,7,8,2,1,0,0,400,0,,,');
    expect(lines[3]).toBe(`3,"'=HYPERLINK(""x"")",auto,absent,,,,,0,0,0,0,0,0,,,pass,13 of 13,`);
    expect(lines[5]).toBe('5,Eve,hand,up,15,47.9,61.2,yes,3,4,0,0,0,0,,,,,');
    expect(lines).toHaveLength(8);
    expect(csv.endsWith('\r\n')).toBe(true);
  });

  it("carries each student's lesson answers and correct answers from the relay's lesson scores, into the CSV, and sorts by them", () => {
    // Id 0 is a bot that the board would leave out; a score makes it a student (it answered).
    const scores = {
      '0': { answered: 2, correct: 0 },
      '1': { answered: 3, correct: 2 },
      '4': { answered: 3, correct: 3 },
    };
    const rows = boardRows('l', processes, scores);
    expect(rows.map((r) => [r.id, r.answers, r.correct])).toEqual([
      [0, 2, 0],
      [1, 3, 2],
      [2, 0, 0],
      [3, 0, 0],
      [4, 3, 3],
      [5, 0, 0],
      [6, 0, 0],
    ]);
    expect(sortRows(rows, 'correct', true).map((r) => r.id)).toEqual([4, 1, 0, 2, 3, 5, 6]);
    expect(sortRows(rows, 'answers', true).map((r) => r.id)).toEqual([1, 4, 0, 2, 3, 5, 6]);
    expect(boardCsv(rows).split('\r\n')[2]).toBe('1,Ada,hand,up,,,,,7,8,2,1,3,2,400,0,,,');
  });
});
