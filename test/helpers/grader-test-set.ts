// The grader's test set (issue 26, "Done when"), one algorithm per test file so that vitest runs
// the algorithms in parallel workers: modules written from the documents, not from
// shared/grader/examples (test/fixtures/modules/<algorithm>/correct.js), must pass; each broken
// variant (test/fixtures/modules/broken-set.ts: one marked line replaced) must fail, with a reason
// that names its bug, except the known gaps (KNOWN_GAPS, each with why), which are asserted to
// pass still. The explorer is bounded by counts, so the verdict is the same on a loaded machine.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AlgorithmName } from '@shared/algorithms/algorithm.ts';
import { gradeAll, type GradeReport } from '@shared/grader/grading.ts';
import type { ExploreCounts } from '@shared/grader/grade-explore.ts';
import { studentAlgorithm, type WireProblem } from '@shared/grader/student.ts';
import {
  BUGS,
  bugModule,
  bugSource,
  correctModule,
  correctModules,
  KNOWN_GAPS,
  type BugName,
} from '../fixtures/modules/broken-set.ts';

/**
 * States and random schedules per lab. The emergent algorithm's heartbeats never stop, so none of
 * its probes settles and each runs its full 5,000 steps: fewer of them (its bugs show in the
 * scenario cases, docs/STUDENT_MODULES.md).
 */
export function countsFor(algorithm: AlgorithmName): ExploreCounts {
  return { states: 30_000, probes: algorithm === 'emergent' ? 40 : 400 };
}

/** Bounded by counts, not time: the limit only stops a hang (a loaded CI machine took 22 s for one). */
const HANG_MS = 240_000;

export async function gradeModule(algorithm: AlgorithmName, file: string): Promise<GradeReport> {
  const url = pathToFileURL(file).href;
  const mod: unknown = await import(url);
  const wire: WireProblem[] = [];
  const subject = studentAlgorithm(mod, {
    algorithm,
    url,
    checkState: true,
    onWire: (p) => wire.push(p),
  });
  const exploreSubject = studentAlgorithm(mod, { algorithm, url, copyState: true });
  return gradeAll({
    algorithm,
    subject,
    exploreSubject,
    compare: true,
    clock: () => performance.now(),
    subjectName: file,
    exploreMs: 1,
    exploreCounts: countsFor(algorithm),
    wire,
  });
}

/**
 * The explore case's labs, as its proofs name them: a crash, then a crash and a restart with the
 * state lost; the active-list ring then one slow link (a late ACK), where only agreement is checked.
 */
export function exploreLabTitles(algorithm: AlgorithmName): unknown[] {
  const labs = [
    expect.stringMatching(/with one crash \(/),
    expect.stringMatching(/with one crash and one restart with its state lost/),
  ];
  if (algorithm !== 'ring-active-list') return labs;
  return [...labs, expect.stringMatching(/with one slow link \(.*; agreement only\)$/)];
}

const failures = (r: GradeReport) =>
  r.cases.filter((c) => !c.pass).map((c) => `${c.id}: ${c.reason}`);

/** The test set of one algorithm: its correct module passes, every broken variant fails for its bug. */
export function describeTestSet(algorithm: AlgorithmName): void {
  const names = (Object.keys(BUGS) as BugName[]).filter((n) => BUGS[n].algorithm === algorithm);
  const caught = names.filter((n) => !(n in KNOWN_GAPS));
  const gaps = names.filter((n) => n in KNOWN_GAPS);

  // Graded once, for the tests that read its report.
  let report: Promise<GradeReport> | undefined;
  const correct = () => (report ??= gradeModule(algorithm, correctModule(algorithm)));

  // Each case is a bounded search (countsFor), so only its wall time depends on the machine.
  describe(`the grader test set: ${algorithm}`, () => {
    it.each(correctModules(algorithm).map((f) => [basename(f), f]))(
      '%s, written from the documents, passes every case, and the explorer says what it checked',
      async (_name, file) => {
        const r =
          file === correctModule(algorithm) ? await correct() : await gradeModule(algorithm, file);
        expect(failures(r)).toEqual([]);
        const explore = r.cases.find((c) => c.id === 'explore')!;
        expect(explore.proofs!.length).toBeGreaterThan(0);
        for (const p of explore.proofs!)
          expect(p.exhaustive || p.probes.run === countsFor(algorithm).probes).toBe(true);
      },
      HANG_MS,
    );

    if (algorithm === 'bully' || algorithm === 'ring' || algorithm === 'ring-active-list')
      it(
        'is explored with a crash and a restart with the state lost too (003: "a process holds an election on start or re-start"; 002), the active-list ring with a slow link (a late ACK) as well',
        async () => {
          const r = await correct();
          const labs = r.cases.find((c) => c.id === 'explore')!.proofs!.map((p) => p.lab);
          expect(labs).toEqual(exploreLabTitles(algorithm));
        },
        HANG_MS,
      );

    it.each(caught)(
      '%s fails, with a reason that names the bug',
      async (name) => {
        const bug = BUGS[name];
        const r = await gradeModule(bug.algorithm, bugModule(name));
        expect(r.pass).toBe(false);
        const reasons = r.cases.filter((c) => !c.pass).map((c) => c.reason ?? '');
        expect(
          reasons.some((x) => bug.reason.test(x)),
          reasons.join('\n'),
        ).toBe(true);
      },
      HANG_MS,
    );

    // Only where a gap is listed: a grader that catches it fails here until it is moved.
    if (gaps.length > 0)
      it.each(gaps)(
        'known gap: %s still passes (a grader that catches it flips this: move it out of KNOWN_GAPS)',
        async (name) => {
          const r = await gradeModule(algorithm, bugModule(name));
          expect(failures(r), KNOWN_GAPS[name]).toEqual([]);
        },
        HANG_MS,
      );

    it('every variant differs from its correct module by its marked line alone', () => {
      const correct = readFileSync(correctModule(algorithm), 'utf8').split('\n');
      for (const name of names) {
        const src = bugSource(name).split('\n');
        expect(src.filter((l) => l.includes('// BROKEN:'))).toHaveLength(1);
        expect(src.filter((l, i) => l !== correct[i])).toHaveLength(1);
      }
    });
  });
}
