// The challenge page's schedule editor model (client/src/utils/challenge-schedule.ts): rows become
// the schedule the simulator and the relay run, bad rows are named, the budget line counts what
// each kind spends (a heal is free), and the diagram's window stops where the target was met.
import { describe, expect, it } from 'vitest';
import type { Budget } from '@shared/challenges/challenge-schema.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import {
  budgetLine,
  challengeWindow,
  newRow,
  parseGroups,
  rowsToSchedule,
  type FaultRow,
} from '../../client/src/utils/challenge-schedule.ts';

const IDS = [0, 1, 2, 3, 4, 5];
const BUDGET: Budget = {
  links: 2,
  partitions: 1,
  crashes: 1,
  recoveries: 0,
  elections: 0,
  protect: [4, 5],
};

describe('rows to a schedule', () => {
  it('turns each kind of row into its schedule entry', () => {
    const rows: FaultRow[] = [
      { kind: 'link', at: 0, from: 5, to: 4, loss: 1, delay: null },
      { kind: 'link', at: 200, from: 3, to: 4, loss: 0, delay: 900 },
      { kind: 'crash', at: 1000, id: 2 },
      { kind: 'partition', at: 500, groups: '0 1 2 | 3 4 5' },
      { kind: 'partition', at: 3000, groups: '' },
    ];
    expect(rowsToSchedule(rows)).toEqual({
      ok: true,
      schedule: {
        links: [
          { at: 0, from: 5, to: 4, loss: 1 },
          { at: 200, from: 3, to: 4, loss: 0, delay: 900 },
        ],
        crash: [{ id: 2, at: 1000 }],
        partition: [
          {
            at: 500,
            groups: [
              [0, 1, 2],
              [3, 4, 5],
            ],
          },
          { at: 3000, groups: null },
        ],
      },
    });
  });

  it('names a bad row: groups that are not ids, a loss above 1, a negative time', () => {
    expect(parseGroups('0 1 | x')).toMatch(/ids separated by spaces/);
    const bad = rowsToSchedule([
      { kind: 'partition', at: 0, groups: '0 1 |' },
      { kind: 'link', at: -5, from: 0, to: 1, loss: 2, delay: null },
    ]);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors.join('\n')).toMatch(
      /row 1:[\s\S]*links\.0\.at[\s\S]*links\.0\.loss/,
    );
  });

  it('a new row runs as it is: filled with the set-up ids', () => {
    for (const kind of ['link', 'partition', 'crash', 'recover', 'elect'] as const)
      expect(rowsToSchedule([newRow(kind, IDS)]).ok, kind).toBe(true);
  });
});

describe('the budget line', () => {
  it('counts each kind against the budget, a heal free, and shows kinds spent beyond a zero budget', () => {
    const line = budgetLine(BUDGET, {
      links: [{ at: 0, from: 5, to: 4, loss: 1 }],
      partition: [
        { at: 0, groups: [[0], [1, 2, 3, 4, 5]] },
        { at: 900, groups: null },
      ],
      elect: [{ id: 0, at: 100 }],
    });
    expect(line).toEqual([
      { kind: 'links', spent: 1, allowed: 2 },
      { kind: 'partitions', spent: 1, allowed: 1 },
      { kind: 'crashes', spent: 0, allowed: 1 },
      { kind: 'elections', spent: 1, allowed: 0 },
    ]);
  });
});

describe('the run diagram', () => {
  const ev = (seq: number, t: number): TraceEvent =>
    ({
      seq,
      t,
      kind: 'send',
      msg: seq,
      from: 0,
      to: 1,
      type: 'ELECTION',
      message: { type: 'ELECTION' },
    }) as TraceEvent;
  const trace = [ev(0, 0), ev(1, 500), ev(2, 1500), ev(3, 2500)];

  it('stops at the target time, or runs to the end when none was met', () => {
    const cut = challengeWindow(trace, 1000)!;
    expect(cut.events.map((e) => e.t)).toEqual([0, 500]);
    expect(cut.trigger).toBe('your run up to the target');
    const whole = challengeWindow(trace, null)!;
    expect(whole.events).toHaveLength(4);
    expect(whole.trigger).toBe('your run to its end');
  });
});
