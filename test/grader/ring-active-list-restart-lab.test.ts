// The active-list ring's restart lab at probe counts past the grader's (issue 26, "no correct module
// accused"): a process back up whose first Elect was carried into an election that then skipped it
// (a hop sent to it while it was down timed out) rejoins when its watchdog's Elect, of the only
// epoch it knows, reaches a process the decided election left it out of (003: "a process holds an
// election on start or re-start"). Before, that Elect was dropped as a leftover and agreement came
// 4,960 ms after the restart, past the lab's 3,890 ms bound (probe.ts, settleBound), for the
// reference, the shipped example and every correct module. Bounded by counts, not time.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyAlgorithm } from '@shared/algorithms/algorithm.ts';
import { ringActiveList } from '@shared/algorithms/ring-active-list.ts';
import { exploreLabs } from '@shared/grader/grade-explore.ts';
import { studentAlgorithm } from '@shared/grader/student.ts';
import { search } from '@shared/explore/search.ts';
import { bugModule, correctModules } from '../fixtures/modules/broken-set.ts';

/** Only stops a hang; the probes are counted, so the verdict is the same on a loaded machine. */
const HANG_MS = 120_000;

/** The restart lab ("with one crash and one restart with its state lost"), as the grader builds it. */
function restartLab(subject: AnyAlgorithm) {
  const lab = exploreLabs('ring-active-list', subject).find((l) => l.setup.budget.restart > 0);
  if (!lab) throw new Error('the active-list ring has no restart lab');
  return lab.setup;
}

/** `count` probes of the restart lab from probe `first`, after a breadth-first search of one state. */
function probes(subject: AnyAlgorithm, seed: number, first: number, count: number) {
  const r = search(
    { ...restartLab(subject), seed },
    { depth: 60, states: 1, ms: HANG_MS, probes: { count, first, steps: 5000, ms: HANG_MS } },
    () => performance.now(),
  );
  return { run: r.probes?.run ?? 0, found: r.finding?.violation.message ?? null };
}

async function moduleSubject(file: string): Promise<AnyAlgorithm> {
  const url = pathToFileURL(file).href;
  const mod: unknown = await import(url);
  return studentAlgorithm(mod, { algorithm: 'ring-active-list', url, copyState: true });
}

/** [seed, probe number]: where the restart lab's probes accused every correct module before. */
const ACCUSED: readonly (readonly [number, number])[] = [
  [1, 5148],
  [2, 371],
  [3, 1165],
  [4, 2492],
  [5, 2479],
];

const example = fileURLToPath(
  new URL('../../shared/grader/examples/ring-active-list.js', import.meta.url),
);

describe("the active-list ring's restart lab, past the grader's probe count", () => {
  it(
    'the reference passes 2,000 probes for each of seeds 1 to 3, agreement within the 3,890 ms bound after the last fault',
    () => {
      for (const seed of [1, 2, 3])
        expect(probes(ringActiveList as AnyAlgorithm, seed, 0, 2000)).toEqual({
          run: 2000,
          found: null,
        });
    },
    HANG_MS,
  );

  it.each([example, ...correctModules('ring-active-list')].map((f) => [basename(f), f]))(
    '%s passes the probes that accused it (seeds 1 to 5), and seed 2 from its first probe past 372',
    async (_name, file) => {
      const subject = await moduleSubject(file);
      for (const [seed, at] of ACCUSED)
        expect(probes(subject, seed, at, 1), `seed ${seed} probe ${at}`).toEqual({
          run: 1,
          found: null,
        });
      expect(probes(subject, 2, 0, 600)).toEqual({ run: 600, found: null });
    },
    HANG_MS,
  );

  // The replays still meet the schedule: without the rejoin rule they fail for its reason.
  it(
    "a module that drops the missed process's older-epoch Elect fails those probes, past the bound",
    async () => {
      const subject = await moduleSubject(bugModule('ring-active-list-missed-restart'));
      for (const [seed, at] of ACCUSED)
        expect(probes(subject, seed, at, 1).found, `seed ${seed} probe ${at}`).toMatch(
          /^live processes disagree: 0 → none; .* \(\d+ ms after the last fault; the documents' bound is 3890 ms\)$/,
        );
    },
    HANG_MS,
  );
});
