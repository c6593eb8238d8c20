// The grader's test set for the active-list ring (issue 26, "Done when"): test/helpers/grader-test-set.ts.
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeTestSet, gradeModule } from '../helpers/grader-test-set.ts';

describeTestSet('ring-active-list');

// The restart lab is sound only if the code students are given passes it: a process back up
// holds an election (003) and must learn its result within the bound.
it('the shipped example passes both labs, the crash and the crash with a restart with its state lost', async () => {
  const file = fileURLToPath(
    new URL('../../shared/grader/examples/ring-active-list.js', import.meta.url),
  );
  const r = await gradeModule('ring-active-list', file);
  expect(r.cases.filter((c) => !c.pass).map((c) => `${c.id}: ${c.reason}`)).toEqual([]);
  const labs = r.cases.find((c) => c.id === 'explore')!.proofs!.map((p) => p.lab);
  expect(labs).toEqual([
    expect.stringMatching(/with one crash \(/),
    expect.stringMatching(/with one crash and one restart with its state lost/),
  ]);
}, 240_000);
