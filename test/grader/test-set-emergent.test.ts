// The grader's test set for emergent (issue 26, "Done when"): test/helpers/grader-test-set.ts.
import { describeTestSet } from '../helpers/grader-test-set.ts';

describeTestSet('emergent');
