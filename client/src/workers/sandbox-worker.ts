// Code mode's sandbox (docs/STUDENT_MODULES.md): a student's module runs here, off the page, one
// call at a time for the tab (shared/grader/sandbox-host.ts), behind the QuickJS wall
// (student-wall.ts): a separate engine with no network, storage, locks, clocks or DOM. The relay
// also serves this script with a Content Security Policy that allows it no connection.
import {
  sandboxHandler,
  type SandboxReply,
  type SandboxRequest,
} from '@shared/grader/sandbox-worker-body.ts';

// The worker's global scope, typed by what is used (the app's tsconfig has DOM types, not WebWorker).
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<SandboxRequest>) => void) | null;
  postMessage(m: SandboxReply): void;
};
const handle = sandboxHandler(scope.postMessage.bind(scope), performance.now.bind(performance));
scope.onmessage = (e) => handle(e.data);
scope.postMessage({ kind: 'ready' });
