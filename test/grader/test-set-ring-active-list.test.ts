// The grader's test set for the active-list ring (issue 26, "Done when"): test/helpers/grader-test-set.ts.
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeTestSet, exploreLabTitles, gradeModule } from '../helpers/grader-test-set.ts';
import { bugModule } from '../fixtures/modules/broken-set.ts';

describeTestSet('ring-active-list');

// The restart and slow-link labs are sound only if the code students are given passes them: a
// process back up holds an election (003) and must learn its result within the bound, and a live
// process skipped after a late ACK must not be left below the highest live id.
it('the shipped example passes its three labs: a crash, a crash and a restart with its state lost, a slow link', async () => {
  const file = fileURLToPath(
    new URL('../../shared/grader/examples/ring-active-list.js', import.meta.url),
  );
  const r = await gradeModule('ring-active-list', file);
  expect(r.cases.filter((c) => !c.pass).map((c) => `${c.id}: ${c.reason}`)).toEqual([]);
  const labs = r.cases.find((c) => c.id === 'explore')!.proofs!.map((p) => p.lab);
  expect(labs).toEqual(exploreLabTitles('ring-active-list'));
}, 240_000);

// Each of the two catches on its own: the case at any budget, the lab where a schedule of her own
// module (not the case's one) leaves a live process below the highest.
it('believing an Elected(x) below itself fails both the late-ACK case and the slow-link lab (001 (c): the highest id of the complete list wins)', async () => {
  const r = await gradeModule('ring-active-list', bugModule('ring-active-list-believe-lower'));
  const reason = (id: string) => r.cases.find((c) => c.id === id && !c.pass)?.reason ?? 'passed';
  expect(reason('late-ack')).toMatch(
    /^agreement \(e_i = P\): measured live processes disagree: .*2 → 1/,
  );
  expect(reason('explore')).toMatch(
    /^agreement broken .* with one slow link: live processes disagree: /,
  );
}, 240_000);
