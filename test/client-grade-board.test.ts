// The class board's grade column (client/src/utils/grade-board.ts): who runs her own module or
// sent a grade, the verdict and score, the first failing case, and the replay link to her run.
import { describe, expect, it } from 'vitest';
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import { gradeRows } from '../client/src/utils/grade-board.ts';

const base: ProcessInfo = { id: 0, name: null, status: 'up', kind: 'bot', transport: 'server', report: null, group: null };

describe('grade board rows', () => {
  it('lists students in code mode or with a grade, with the replay link when her tab sent the failing run', () => {
    const rows = gradeRows('class 1', [
      base,
      { ...base, id: 1, name: 'Ada', kind: 'human', mode: 'code' },
      { ...base, id: 2, name: 'Bo', kind: 'human', mode: 'auto', grade: { algorithm: 'bully', pass: false, passed: 11, total: 13, failing: { id: 'explore', title: 'explorer', reason: 'safety broken' }, at: 5000, trace: true } },
      { ...base, id: 3, name: 'Cy', kind: 'human', grade: { algorithm: 'bully', pass: true, passed: 13, total: 13, failing: null, at: 7000, trace: false } },
    ]);
    expect(rows).toEqual([
      { id: 1, name: 'Ada', mode: 'code', verdict: '', score: '', failing: '', trace: null, at: null },
      { id: 2, name: 'Bo', mode: 'auto', verdict: 'fail', score: '11 of 13', failing: 'explore: safety broken', trace: '/replay?grade=class%201%2F2', at: 5000 },
      { id: 3, name: 'Cy', mode: 'auto', verdict: 'pass', score: '13 of 13', failing: '', trace: null, at: 7000 },
    ]);
  });
});
