// Code mode's "Grade": the grader (shared/grader/) runs here, with her module behind the QuickJS
// wall (student-wall.ts), in a worker the page watches (grade-runner.ts). Her code never runs in
// this worker's realm, so its storage, locks and clocks are not hers to reach.
import {
  runGradeRequest,
  type GradeProgress,
  type GradeRequest,
} from '@shared/grader/grade-worker-body.ts';

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<GradeRequest>) => void) | null;
  postMessage(m: GradeProgress): void;
};
const post = scope.postMessage.bind(scope);

scope.onmessage = (e) => {
  void runGradeRequest(e.data, { post, clock: performance.now.bind(performance) });
};
post({ kind: 'ready' });
