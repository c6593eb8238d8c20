// The command-line grader's worker thread (scripts/grade.ts starts it with a memory limit): the
// shared worker body (shared/grader/grade-worker-body.ts) with Node's ways to load her module
// (a data: URL, so it can import nothing relative and needs no package.json) and to talk back.
import { parentPort } from 'node:worker_threads';
import { runGradeRequest, type GradeProgress, type GradeRequest } from '@shared/grader/grade-worker-body.ts';
import { lockDown } from '@shared/grader/sandbox-globals.ts';

const port = parentPort!;
const now = performance.now.bind(performance);
const post = (m: GradeProgress) => port.postMessage(m);
const load = (specifier: string) => import(specifier);

port.on('message', (req: GradeRequest) => {
  void runGradeRequest(req, {
    post,
    clock: now,
    async importModule(source) {
      const url = `data:text/javascript;base64,${Buffer.from(source, 'utf8').toString('base64')}`;
      return { exports: await load(url), url };
    },
  });
});

lockDown(globalThis as unknown as Record<string, unknown>);
post({ kind: 'ready' });
