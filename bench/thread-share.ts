// npx tsx bench/thread-share.ts: does this machine give a process more CPU for more threads?
// One, then two worker threads each spin for 4 s; the process's CPU time over each is printed.
// Two threads getting about twice one thread's CPU: a second explorer worker can add a core
// (`npm run explore -- --workers 2`); about the same: the scheduler shares CPU per process group
// (Linux's autogroup under load) and a second worker can only add work (docs/CORE_SPEED.md).
import { Worker } from 'node:worker_threads';

const SPIN = `const t = Date.now(); let x = 0; while (Date.now() - t < 4000) x += Math.sqrt(x + 1);
require('node:worker_threads').parentPort.postMessage(x);`;

async function share(threads: number): Promise<{ cpuMs: number; wallMs: number }> {
  const before = process.cpuUsage();
  const started = Date.now();
  await Promise.all(
    Array.from(
      { length: threads },
      () => new Promise((done) => new Worker(SPIN, { eval: true }).once('message', done)),
    ),
  );
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: Date.now() - started };
}

for (const threads of [1, 2]) {
  const { cpuMs, wallMs } = await share(threads);
  console.log(
    `${threads} thread${threads > 1 ? 's' : ''} spinning: ${Math.round(cpuMs)} ms of CPU in ${wallMs} ms`,
  );
}
