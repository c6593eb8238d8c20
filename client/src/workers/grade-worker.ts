// Code mode's "Grade": the grader (shared/grader/) runs here, with her module, in a worker the
// page watches (grade-runner.ts): a call that never returns gets this worker terminated.
import { runGradeRequest, type GradeProgress, type GradeRequest } from '@shared/grader/grade-worker-body.ts';
import { lockDown } from '@shared/grader/sandbox-globals.ts';

const scope = self as unknown as { onmessage: ((e: MessageEvent<GradeRequest>) => void) | null; postMessage(m: GradeProgress): void };
const post = scope.postMessage.bind(scope);
const now = performance.now.bind(performance);
const load = (url: string) => import(/* @vite-ignore */ url);

scope.onmessage = (e) => {
  void runGradeRequest(e.data, {
    post,
    clock: now,
    async importModule(source) {
      const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
      return { exports: await load(url), url };
    },
  });
};
lockDown(self as unknown as Record<string, unknown>);
post({ kind: 'ready' });
