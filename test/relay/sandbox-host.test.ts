// The tab's side of code mode (shared/grader/sandbox-host.ts) with the sandbox in a Node worker
// thread: her module answers as the process, a call that never returns gets the worker replaced
// (and after three, stopped), effects the worker refuses and messages the bots would not
// understand never reach the transport, and every fault names the process and the event.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  type AlgorithmConfig,
  type Message,
  type ProcessId,
  type Report,
} from '@shared/algorithms/algorithm.ts';
import { brokenSource } from '../fixtures/grader/broken.ts';
import { SandboxHost, type SpawnSandbox } from '@shared/grader/sandbox-host.ts';
import type { FaultInfo } from '@shared/grader/module-fault.ts';
import type { HostEvent } from '@shared/sim/process-host.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const source = (path: string) => readFileSync(join(root, path), 'utf8');
const tsxApi = pathToFileURL(
  join(
    dirname(createRequire(import.meta.url).resolve('tsx/package.json')),
    'dist/esm/api/index.mjs',
  ),
).href;
const body = pathToFileURL(join(root, 'test/helpers/sandbox-node-worker.ts')).href;

const workers: Worker[] = [];
const spawn: SpawnSandbox = (on) => {
  const boot = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(body)});`;
  const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), {
    execArgv: [],
  });
  workers.push(w);
  w.on('message', (m) => on.message(m));
  w.on('error', (e) => on.died(e.message));
  return { post: (m) => w.postMessage(m), terminate: () => void w.terminate() };
};
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.terminate()));
});

const config: AlgorithmConfig = {
  self: 3,
  ids: [0, 1, 2, 3, 4],
  ring: [0, 1, 2, 3, 4],
  timing: DEFAULT_TIMING,
  detector: 'none',
  initialCoordinator: 4,
};

function host(src: string, stepMs = 300) {
  const sent: { to: ProcessId; message: Message }[] = [];
  const reports: Report[] = [];
  const faults: FaultInfo[] = [];
  const events: HostEvent['kind'][] = [];
  const t0 = performance.now();
  const h = new SandboxHost({
    spawn,
    source: src,
    algorithm: 'bully',
    seed: 1,
    stepMs,
    io: {
      send: (to, message) => sent.push({ to, message }),
      report: (r) => reports.push(r),
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
      now: () => performance.now() - t0,
    },
    listener: (e) => events.push(e.kind),
    onFault: (f) => faults.push(f),
  });
  return { h, sent, reports, faults, events };
}

// Each fresh worker compiles the QuickJS engine her module runs in: seconds on a loaded 2-core machine.
async function until(cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('SandboxHost', () => {
  it('runs her module as the process: her answers go out, her report comes back, her timers are kept', async () => {
    const s = host(source('shared/grader/examples/bully.js'));
    s.h.start(config);
    await until(() => s.reports.length > 0);
    expect(s.reports[0]).toEqual({ role: 'follower', coordinator: 4, electing: false });
    s.h.deliver(0, { type: 'ELECTION', election: 1 });
    await until(() => s.sent.length === 2);
    expect(s.sent).toEqual([
      { to: 0, message: { type: 'OK', election: 1 } },
      { to: 4, message: { type: 'ELECTION', election: 1 } },
    ]);
    await until(() => s.reports.at(-1)?.role === 'electing');
    expect(s.h.timerList().map((t) => t.name)).toEqual(['ok']);
    s.h.stop();
  }, 60_000);

  it('restarts her process when a call never returns, names the event, and stops after three in a minute', async () => {
    const s = host(brokenSource('loops-forever'), 200);
    s.h.start(config);
    await until(() => s.reports.length > 0);
    for (let i = 1; i <= 3; i++) {
      s.h.deliver(0, { type: 'ELECTION', election: i });
      await until(
        () => s.faults.filter((f) => f.kind === 'runaway').length >= i + (i === 3 ? 1 : 0),
      );
      if (i < 3) await until(() => s.h.isRunning && s.reports.length > i);
    }
    expect(s.faults[0]).toMatchObject({
      kind: 'runaway',
      process: 3,
      event: 'message ELECTION from 0',
      message: expect.stringMatching(/did not return within 200 ms/),
    });
    expect(s.faults.at(-1)!.message).toMatch(
      /^stopped: 3 runaways in a minute, each restarting your process/,
    );
    expect(s.h.isRunning).toBe(false);
    expect(s.events.filter((k) => k === 'started')).toHaveLength(3);
  }, 120_000);

  it('sends nothing the worker refused, nor a message the bots would not understand', async () => {
    const outside = host(brokenSource('send-outside'));
    outside.h.start(config);
    await until(() => outside.reports.length > 0);
    outside.h.deliver(0, { type: 'ELECTION', election: 1 });
    await until(() => outside.faults.length > 0);
    expect(outside.faults[0]).toMatchObject({
      kind: 'effects',
      process: 3,
      t: expect.any(Number),
      event: 'message ELECTION from 0',
      message: expect.stringMatching(/a send to 99, which is not in this lab/),
    });
    expect(outside.sent).toEqual([]);
    outside.h.stop();

    const wire = host(brokenSource('wrong-wire'));
    wire.h.start(config);
    await until(() => wire.reports.length > 0);
    wire.h.deliver(0, { type: 'ELECTION', election: 1 });
    await until(() => wire.faults.length > 0 && wire.sent.length > 0);
    expect(wire.faults[0]!.message).toMatch(
      /not sent to 0: the lab's bots would not understand it \(OK\.election: /,
    );
    expect(wire.sent).toEqual([{ to: 4, message: { type: 'ELECTION', election: 1 } }]);
    wire.h.stop();
  }, 60_000);

  it('a module that does not load stops with its line', async () => {
    const s = host(source('test/fixtures/grader/throws-on-load.js'));
    s.h.start(config);
    await until(() => s.faults.length > 0);
    expect(s.faults[0]).toMatchObject({
      kind: 'load',
      line: 3,
      message: expect.stringMatching(/threw while loading: TypeError/),
    });
    expect(s.h.isRunning).toBe(false);
  }, 60_000);
});
