// Code mode's sandbox worker body (shared/grader/sandbox-worker-body.ts) in a Node worker thread,
// so the tab's host (SandboxHost) can be tested without a browser: her module is loaded behind
// the same QuickJS wall as in the browser.
import { parentPort } from 'node:worker_threads';
import { sandboxHandler, type SandboxReply } from '@shared/grader/sandbox-worker-body.ts';

const port = parentPort!;
const handle = sandboxHandler(
  (m: SandboxReply) => port.postMessage(m),
  performance.now.bind(performance),
);
port.on('message', handle);
port.postMessage({ kind: 'ready' } satisfies SandboxReply);
