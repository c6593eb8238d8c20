// Code mode's sandbox worker body (shared/grader/sandbox-worker-body.ts) in a Node worker thread,
// so the tab's host (SandboxHost) can be tested without a browser: her module is loaded from a
// data: URL, as the command-line grader loads it.
import { parentPort } from 'node:worker_threads';
import { lockDown } from '@shared/grader/sandbox-globals.ts';
import { sandboxHandler, type SandboxReply } from '@shared/grader/sandbox-worker-body.ts';

const port = parentPort!;
const post = (m: SandboxReply) => port.postMessage(m);
const load = (url: string) => import(url);
const handle = sandboxHandler(
  post,
  async (source) => {
    const url = `data:text/javascript;base64,${Buffer.from(source, 'utf8').toString('base64')}`;
    return { exports: await load(url), url };
  },
  performance.now.bind(performance),
);
port.on('message', handle);
lockDown(globalThis as unknown as Record<string, unknown>);
post({ kind: 'ready' });
