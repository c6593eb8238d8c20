// The command-line grader's worker thread (scripts/grade.ts starts it): the shared worker body
// (shared/grader/grade-worker-body.ts), which loads her module behind the QuickJS wall, with
// Node's way to talk back. Her code never runs in this thread's realm.
import { parentPort } from 'node:worker_threads';
import {
  runGradeRequest,
  type GradeProgress,
  type GradeRequest,
} from '@shared/grader/grade-worker-body.ts';

const port = parentPort!;
const post = (m: GradeProgress) => port.postMessage(m);

port.on('message', (req: GradeRequest) => {
  void runGradeRequest(req, { post, clock: performance.now.bind(performance) });
});

post({ kind: 'ready' });
