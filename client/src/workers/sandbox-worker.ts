// Code mode's sandbox (docs/STUDENT_MODULES.md): a student's module runs here, off the page, one
// call at a time for the tab (shared/grader/sandbox-host.ts). No DOM; the network, storage,
// timers, clocks and Math.random are taken away before her code loads (sandbox-globals.ts), and
// the relay serves this script with a Content Security Policy that allows it no connection.
import { lockDown } from '@shared/grader/sandbox-globals.ts';
import { sandboxHandler, type SandboxReply, type SandboxRequest } from '@shared/grader/sandbox-worker-body.ts';

// The worker's global scope, typed by what is used (the app's tsconfig has DOM types, not WebWorker).
const scope = self as unknown as { onmessage: ((e: MessageEvent<SandboxRequest>) => void) | null; postMessage(m: SandboxReply): void };
const post = scope.postMessage.bind(scope);
const now = performance.now.bind(performance);
const load = (url: string) => import(/* @vite-ignore */ url);

const handle = sandboxHandler(
  post,
  async (source) => {
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    return { exports: await load(url), url };
  },
  now,
);
scope.onmessage = (e) => handle(e.data);
lockDown(self as unknown as Record<string, unknown>);
post({ kind: 'ready' });
