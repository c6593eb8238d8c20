// The dashboard's record of the live checker: finding events from the trace, corrected by the
// relay's summary, never counted twice; the split brain it draws on the ring. Fed with the
// checker's real findings over a simulated Bully partition (issue 6: {0..3} | {4..7}).
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import { ALGORITHMS } from '@shared/algorithms/registry.ts';
import { checkTrace } from '@shared/analysis/checker.ts';
import {
  FINDING_KINDS,
  RECENT_FINDINGS,
  type CheckerSummary,
  type Finding,
} from '@shared/protocol/finding.ts';
import { simulate } from '@shared/sim/simulator.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import {
  FindingsBook,
  rivalLeaders,
  shownKinds,
  splitBrainText,
} from '../../client/src/utils/findings-book.ts';
import { LabModel } from '../../client/src/utils/lab-model.ts';
import { COORDINATOR_ROLES } from '../../client/src/utils/space-time-layout.ts';
import { snapshotOf } from '../helpers/client-lab-fixtures.ts';

const ids = [0, 1, 2, 3, 4, 5, 6, 7];

/** A Bully partition {0..3} | {4..7} at 2 s, checked by the live checker: its findings as trace events. */
function partitionedBully() {
  const r = simulate({
    algorithm: ALGORITHMS.bully,
    ids,
    partitions: [
      {
        at: 2000,
        groups: [
          [0, 1, 2, 3],
          [4, 5, 6, 7],
        ],
      },
    ],
    until: 15_000,
    seed: 1,
  });
  const { findings, summary } = checkTrace(
    r.trace,
    { algorithm: 'bully', ids, timing: DEFAULT_TIMING },
    r.endTime,
  );
  const events: TraceEvent[] = findings.map((finding, i) => ({
    seq: r.trace.length + i,
    t: finding.at,
    kind: 'finding',
    finding,
  }));
  return { findings, summary, events };
}

const finding = (at: number, kind: Finding['kind'] = 'spurious'): Finding => ({
  kind,
  at,
  detail: `finding at ${at}`,
  processes: [1],
});

function summaryWith(
  recent: Finding[],
  splitBrain: CheckerSummary['splitBrain'] = [],
): CheckerSummary {
  const counts = Object.fromEntries(FINDING_KINDS.map((k) => [k, 0])) as CheckerSummary['counts'];
  for (const f of recent) counts[f.kind]++;
  return {
    counts,
    spuriousElections: counts.spurious,
    splitBrain,
    quiet: true,
    election: { active: false, since: null, deadline: null },
    bounds: { quiet: 1, election: 2, overlap: 3 },
    recent,
  };
}

describe('findings on the dashboard', () => {
  it('a partitioned Bully lab: the finding events in the trace reach the model, and the split brain 3 | 7 shows at once', () => {
    const { findings, events } = partitionedBully();
    const model = new LabModel();
    model.applySnapshot(snapshotOf(ids));
    model.applyEvents(events);
    expect(model.findings.counts.safety).toBe(findings.filter((f) => f.kind === 'safety').length);
    expect(model.findings.counts.agreement).toBe(
      findings.filter((f) => f.kind === 'agreement').length,
    );
    expect(model.findings.recent).toEqual(findings);
    expect(model.findings.splitBrain.map((b) => b.processes)).toEqual([[3, 7]]);
    expect([...model.findings.rivals()].sort()).toEqual([3, 7]);
    expect(splitBrainText(model.findings.splitBrain)).toBe('split brain: 3 and 7 lead at once');
  });

  it("the relay's summary then replaces the counts, and trace events it already holds are not counted twice", () => {
    const { summary, events } = partitionedBully();
    const model = new LabModel();
    model.applySnapshot(snapshotOf(ids));
    model.findings.applySummary(summary);
    model.applyEvents(events); // the same findings arriving late over the socket
    expect(model.findings.counts).toEqual(summary.counts);
    expect(model.findings.recent).toEqual(summary.recent);
    expect(model.findings.exact).toBe(true);
  });

  it('a finding newer than the summary counts at once; the next summary is the truth again (the split brain is over)', () => {
    const book = new FindingsBook();
    book.applySummary(summaryWith([finding(100)]));
    book.applyFinding(finding(200, 'safety'));
    expect(book.counts).toMatchObject({ safety: 1, agreement: 0, liveness: 0, spurious: 1 });
    expect(book.total()).toBe(2);
    expect(book.splitBrain).toEqual([{ processes: [1], since: 200 }]);
    book.applySummary(summaryWith([finding(100), finding(200, 'safety')]));
    expect(book.counts.safety).toBe(1);
    expect(book.splitBrain).toEqual([]);
  });

  it(`keeps the ${RECENT_FINDINGS} most recent findings, oldest first, and forgets everything on a reset`, () => {
    const model = new LabModel();
    model.applySnapshot(snapshotOf(ids));
    const events: TraceEvent[] = Array.from({ length: RECENT_FINDINGS + 7 }, (_, i) => ({
      seq: i,
      t: i,
      kind: 'finding',
      finding: finding(i),
    }));
    model.applyEvents(events);
    expect(model.findings.counts.spurious).toBe(RECENT_FINDINGS + 7);
    expect(model.findings.recent.map((f) => f.at)).toEqual(
      Array.from({ length: RECENT_FINDINGS }, (_, i) => i + 7),
    );
    model.applyEvents([{ seq: 1000, t: 1000, kind: 'control', action: 'reset' }]);
    expect(model.findings.total()).toBe(0);
    expect(model.findings.recent).toEqual([]);
  });

  it('replay knows only the reports: live processes leading at once are rivals, per term for Raft, crashed ones not', () => {
    const lead = (id: number, term?: number) => ({
      id,
      status: 'up',
      report: {
        role: id === 9 ? 'leader' : 'coordinator',
        ...(term === undefined ? {} : { term }),
      },
    });
    expect(
      rivalLeaders(
        [
          lead(3),
          lead(7),
          { id: 5, status: 'crashed', report: null },
          { id: 1, status: 'up', report: { role: 'follower' } },
        ],
        COORDINATOR_ROLES,
      ),
    ).toEqual([{ processes: [3, 7], since: null }]);
    expect(rivalLeaders([lead(3), { ...lead(7), status: 'crashed' }], COORDINATOR_ROLES)).toEqual(
      [],
    );
    // Raft: two leaders of different terms are not a split brain (Figure 3, Election Safety is per term).
    expect(
      rivalLeaders(
        [{ ...lead(9, 2) }, { id: 4, status: 'up', report: { role: 'leader', term: 3 } }],
        COORDINATOR_ROLES,
      ),
    ).toEqual([]);
    expect(
      rivalLeaders(
        [{ ...lead(9, 3) }, { id: 4, status: 'up', report: { role: 'leader', term: 3 } }],
        COORDINATOR_ROLES,
      ),
    ).toEqual([{ processes: [4, 9], since: null, term: 3 }]);
  });

  it("the panel lists the work schedule's kinds only once one is found; the election's always", () => {
    const zero = summaryWith([]).counts;
    expect(shownKinds(zero)).toEqual(['safety', 'agreement', 'liveness', 'spurious']);
    expect(shownKinds({ ...zero, 'stale-order': 2 })).toEqual([
      'safety',
      'agreement',
      'liveness',
      'spurious',
      'stale-order',
    ]);
  });
});
