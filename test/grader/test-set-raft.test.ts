// The grader's test set for raft (issue 26, "Done when"): test/helpers/grader-test-set.ts.
import { describeTestSet } from '../helpers/grader-test-set.ts';

describeTestSet('raft');
