// Violations the documents predict are reported as expected behaviour with their citation, not as
// her bug (issue 26, "Say what was proven"): Bully's split brain with a timeout below UB, Raft with
// no majority alive. What is hers in the same runs is still checked: a higher Bully process must
// not believe the lower coordinator (the known Bully gap, closed by a peer that announces to all,
// as 000 writes it), and a Raft leader elected with no majority alive is her bug.
import { describe, expect, it } from 'vitest';
import type { AlgorithmName } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { gradeAll } from '@shared/grader/grading.ts';
import { formatReport } from '@shared/grader/report-text.ts';
import { bugModule } from '../fixtures/modules/broken-set.ts';
import { gradeModule } from '../helpers/grader-test-set.ts';

function referenceGrade(algorithm: AlgorithmName) {
  return gradeAll({
    algorithm,
    subject: getAlgorithm(algorithm),
    compare: false,
    clock: () => performance.now(),
    subjectName: 'reference',
    exploreMs: 1,
    exploreCounts: { states: 200, probes: 0 },
    wire: null,
  });
}

describe('violations the documents predict', () => {
  it('bully: 1 declares beside a live 3 when its links are slower than its timeout; the split brain is expected behaviour citing 003, and the case passes', () => {
    const report = referenceGrade('bully');
    const c = report.cases.find((k) => k.id === 'lower-announces')!;
    expect(c.pass).toBe(true);
    const safety = c.figures.find((f) => f.name === 'safety')!;
    expect(safety.measured).toMatch(/^1 and 3 both lead from t=/);
    expect(safety.predicted).toMatch(/^003: .*time-out period/);
    expect(formatReport(report)).toMatch(
      /expected behaviour, not a bug: safety: 1 and 3 both lead from t=[\d.]+ to at least t=[\d.]+ \(003: /,
    );
    // The part that is hers: 000's e_i = P, the highest live id, once the announcements are in.
    expect(c.figures.find((f) => f.name === 'agreement (e_i = P)')).toMatchObject({
      measured: 'every live process follows 3',
      pass: true,
    });
  });

  it('bully: a higher process that believes the lower coordinator fails that case on agreement (002: the lower-numbered coordinator yields)', async () => {
    const r = await gradeModule('bully', bugModule('bully-believe-lower'));
    const c = r.cases.find((k) => k.id === 'lower-announces')!;
    expect(c.pass).toBe(false);
    expect(c.reason).toMatch(/^agreement \(e_i = P\): measured live processes disagree: .*→ 1/);
  });

  it('raft: with 2 of 5 up no leader is elected, and that is expected behaviour citing §5.2; once a third is back they elect', () => {
    const c = referenceGrade('raft').cases.find((k) => k.id === 'no-majority')!;
    expect(c.pass).toBe(true);
    expect(c.figures.find((f) => f.name.startsWith('a leader before'))).toMatchObject({
      measured: 'none',
      predicted: expect.stringMatching(/^§5\.2: .*majority/),
      pass: true,
    });
    expect(c.figures.find((f) => f.name === 'agreement (e_i = P)')!.pass).toBe(true);
  });

  it('raft: a module that leads with no majority alive (a quorum of floor(n/2)) fails that case, naming the leader', async () => {
    const r = await gradeModule('raft', bugModule('raft-quorum-floor'));
    const c = r.cases.find((k) => k.id === 'no-majority')!;
    expect(c.pass).toBe(false);
    expect(c.reason).toMatch(
      /^a leader before t=5000 \(no majority alive\): measured [01] leads at t=[\d.]+ in term \d+/,
    );
  });
});
