// The grader's wall (shared/grader/student-wall.ts, docs/STUDENT_MODULES.md "The sandbox"): a
// module that tries each known escape finds nothing of the host, changes nothing on it, cannot
// forge its grade, is stopped at its memory limit and its time limit, and what it throws is
// reported with the process, the event and the line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ModuleFault, WallFault } from '@shared/grader/module-fault.ts';
import { studentAlgorithm } from '@shared/grader/student.ts';
import { decodeTagged, encodeTagged, loadEngine, openWalled } from '@shared/grader/student-wall.ts';
import type { AlgorithmConfig } from '@shared/algorithms/algorithm.ts';
import type { GradeReport } from '@shared/grader/grading.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const clock = () => performance.now();
const marker = () => join(mkdtempSync(join(tmpdir(), 'wall-')), 'escaped.txt');
const REPORT = "report: () => ({ role: 'follower', coordinator: null, electing: false })";
const config: AlgorithmConfig = {
  self: 1,
  ids: [0, 1, 2],
  ring: [0, 1, 2],
  timing: { transmission: 10, processing: 1 },
  detector: 'none',
} as unknown as AlgorithmConfig;

/** A module whose init answers `{ state: <probe>, effects: [] }`; `top` runs at its top level first. */
const prober = (probe: string, top = '') =>
  `${top}\nexport default { name: 'bully', messageTypes: ['ELECTION'], init() { return { state: (${probe}), effects: [] }; }, step: (s) => ({ state: s, effects: [] }), ${REPORT} };`;

async function initState(source: string, memoryMb = 64, stepMs = 500): Promise<unknown> {
  const w = await openWalled(source, { memoryMb, stepMs, loadMs: 2 * stepMs, clock });
  try {
    return (
      w.exports as { default: { init(c: unknown, ctx: unknown): { state: unknown } } }
    ).default.init(config, { now: 0, random: () => 0.5 }).state;
  } finally {
    w.dispose();
  }
}

/** Her init's fault as the grader reports it: through studentAlgorithm, which adds the process and event. */
async function initFault(source: string, opts: { memoryMb?: number; stepMs?: number } = {}) {
  const stepMs = opts.stepMs ?? 300;
  const w = await openWalled(source, {
    memoryMb: opts.memoryMb ?? 64,
    stepMs,
    loadMs: 2 * stepMs,
    clock,
  });
  try {
    studentAlgorithm(w.exports, { algorithm: 'bully', url: w.url }).init(config, {
      now: 7,
      random: () => 0.5,
    });
  } catch (err) {
    expect(err).toBeInstanceOf(ModuleFault);
    return (err as ModuleFault).info;
  } finally {
    w.dispose();
  }
  throw new Error('init did not fail');
}

function grade(file: string, args: string[] = []): { status: number | null; report: GradeReport } {
  const out = mkdtempSync(join(tmpdir(), 'grade-'));
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'scripts/grade.ts', '--out', out, '--json', ...args, file],
    { cwd: root, encoding: 'utf8', timeout: 120_000 },
  );
  return { status: r.status, report: JSON.parse(r.stdout) as GradeReport };
}

describe('nothing of the host is reachable behind the wall', () => {
  it('the Function constructor with import() of node:fs and node:child_process is refused, and writes nothing', async () => {
    const file = marker();
    const top = `const imp = (function () {}).constructor('s', 'return import(s)');
let outcome = [];
for (const name of ['node:fs', 'node:child_process', 'fs']) imp(name).then((m) => { outcome.push('imported ' + name); m.writeFileSync?.(${JSON.stringify(file)}, 'x'); m.execSync?.('touch ${file}'); }, (e) => outcome.push('refused ' + name + ': ' + e.message));`;
    const state = (await initState(prober('outcome', top))) as string[];
    expect(state).toEqual(
      ['node:fs', 'node:child_process', 'fs'].map(
        (n) => `refused ${n}: a module may not import anything`,
      ),
    );
    expect(existsSync(file)).toBe(false);
  });

  it('process, require and the host globals are absent, by name and through prototype chains', async () => {
    const probe = `{
      fromFunction: (function () {}).constructor('return typeof process')(),
      fromThis: (function () { return this; }).constructor('return typeof this.process')(),
      global: typeof globalThis.process, require: typeof require, fetch: typeof fetch, worker: typeof Worker,
      postMessage: typeof postMessage, navigator: typeof navigator, performance: typeof performance, atomics: typeof Atomics,
      stack: new Error('x').stack,
    }`;
    const s = (await initState(prober(probe))) as Record<string, string>;
    expect(s).toMatchObject({
      fromFunction: 'undefined',
      fromThis: 'undefined',
      global: 'undefined',
      require: 'undefined',
      fetch: 'undefined',
      worker: 'undefined',
      postMessage: 'undefined',
      navigator: 'undefined',
      performance: 'undefined',
      atomics: 'undefined',
    });
    // A stack names her module only: no host path, no host frame.
    expect(s.stack).toMatch(/student\.js:\d+/);
    expect(s.stack).not.toMatch(/node:|file:|\/work|\.ts/);
  });

  it('Error.prepareStackTrace is hers alone: it sees no host frame and the host keeps its own', async () => {
    const hosts = (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
    const probe = `(() => { Error.prepareStackTrace = (e, frames) => frames.map((f) => typeof f.getThis); return typeof new Error('x').stack; })()`;
    expect(await initState(prober(probe))).toBe('string');
    expect((Error as { prepareStackTrace?: unknown }).prepareStackTrace).toBe(hosts);
  });

  it('no clock, no timers and no unseeded randomness: Date, setTimeout and Math.random say what to use instead', async () => {
    expect(await initFault(prober('Date.now()'))).toMatchObject({
      kind: 'throw',
      message: expect.stringMatching(
        /Date.now is not available here: a module has no clock: use ctx.now/,
      ),
    });
    expect(await initFault(prober('new Date()'))).toMatchObject({
      kind: 'throw',
      message: expect.stringMatching(/^Error: Date is not available here/),
    });
    expect(await initFault(prober('Math.random()'))).toMatchObject({
      kind: 'throw',
      message: expect.stringMatching(/use ctx.random/),
    });
    expect(await initFault(prober('setTimeout(() => {}, 10)'))).toMatchObject({
      kind: 'throw',
      message: expect.stringMatching(/setTimeout is not available here: timers are effects/),
    });
    expect(await initFault(prober('queueMicrotask(() => {})'))).toMatchObject({
      kind: 'throw',
      message: expect.stringMatching(/there is no later within it/),
    });
    // ctx.random calls the host's seeded generator; ctx.now is a number.
    expect(await initState(prober('[arguments[1].random(), arguments[1].now]'))).toEqual([0.5, 0]);
  });

  it('a SharedArrayBuffer is only hers (not plain data to return), and Atomics.wait does not exist', async () => {
    expect(await initFault(prober('new SharedArrayBuffer(8)'))).toMatchObject({
      kind: 'state',
      message: expect.stringMatching(/^state is a SharedArrayBuffer; use plain objects and arrays/),
    });
    expect(
      await initFault(prober('Atomics.wait(new Int32Array(new SharedArrayBuffer(8)), 0, 0, 5000)')),
    ).toMatchObject({
      kind: 'throw',
      message: "ReferenceError: 'Atomics' is not defined",
      process: 1,
      event: 'init',
    });
  });
});

describe('limits: memory and time are hers, counted and bounded', () => {
  it('an ArrayBuffer hoard of 2 GB fails with a memory fault at the limit, and the engine never grew past it', async () => {
    const t0 = clock();
    const f = await initFault(
      prober(
        '(() => { const keep = []; for (let i = 0; i < 32; i++) keep.push(new ArrayBuffer(64 * 1024 * 1024)); return keep.length; })()',
      ),
      { memoryMb: 48 },
    );
    expect(f).toMatchObject({
      kind: 'memory',
      process: 1,
      event: 'init',
      message: expect.stringMatching(/more memory than the sandbox allows \(48 MB/),
    });
    const engine = (await loadEngine(48)) as unknown as {
      getWasmMemory(): { buffer: ArrayBuffer };
    };
    expect(engine.getWasmMemory().buffer.byteLength).toBeLessThanOrEqual((48 + 16) * 1024 * 1024);
    expect(clock() - t0).toBeLessThan(60_000);
    // A single buffer of 2 GB is refused outright.
    expect((await initFault(prober('new ArrayBuffer(2 ** 31)'), { memoryMb: 48 })).kind).toMatch(
      /^(memory|throw)$/,
    );
  });

  it('an endless loop in a call is interrupted, run again alone, and named a runaway with the process and event', async () => {
    const src = `export default { name: 'bully', messageTypes: ['ELECTION'], init: () => ({ state: {}, effects: [] }), step(s, e) { if (e.kind === 'elect') for (;;) {} return { state: s, effects: [] }; }, ${REPORT} };`;
    const w = await openWalled(src, { memoryMb: 64, stepMs: 200, loadMs: 400, clock });
    const alg = studentAlgorithm(w.exports, { algorithm: 'bully', url: w.url });
    const box = alg.init(config, { now: 0, random: () => 0.5 }).state;
    const t0 = clock();
    const err = (() => {
      try {
        alg.step(box, { kind: 'elect' }, { now: 40, random: () => 0.5 });
      } catch (e) {
        return e as ModuleFault;
      }
      return null;
    })();
    expect(err?.info).toMatchObject({
      kind: 'runaway',
      process: 1,
      t: 40,
      event: 'elect',
      message: expect.stringMatching(/did not return within 200 ms .*run again alone/),
    });
    expect(clock() - t0).toBeGreaterThanOrEqual(399); // two tries of 200 ms
    // The wall is still standing: the next call runs.
    expect(
      alg.step(box, { kind: 'timer', name: 'x' }, { now: 50, random: () => 0.5 }).effects,
    ).toEqual([]);
    w.dispose();
  });

  it('recursion stops at the engine stack; a built-in that exhausts the host stack stops that module, not the grader', async () => {
    expect(await initFault(prober('(function f(n) { return f(n + 1) + 1; })(0)'))).toMatchObject({
      kind: 'throw',
      process: 1,
      event: 'init',
      message: 'InternalError: stack overflow (endless recursion?)',
    });
    const src = prober('{}').replace(
      'init() {',
      'init() { let o = {}; for (let i = 0; i < 300000; i++) o = { o }; JSON.stringify(o);',
    );
    const w = await openWalled(src, { memoryMb: 64, stepMs: 5000, loadMs: 5000, clock });
    const d = (w.exports as { default: { init(c: unknown, x: unknown): unknown } }).default;
    const first = (() => {
      try {
        d.init(config, { now: 0, random: () => 0.5 });
      } catch (e) {
        return e as WallFault;
      }
      return null;
    })();
    expect(first?.info.message).toMatch(
      /the engine running the module stopped: .* nothing more of it runs/,
    );
    expect(w.broken).toBe(true);
    expect(() => d.init(config, { now: 0, random: () => 0.5 })).toThrow(
      /not run: an earlier call stopped the engine/,
    );
    w.dispose();
    // The grader's own realm is untouched: another module loads and runs (in a fresh engine).
    expect(await initState(prober('{ fine: true }'))).toEqual({ fine: true });
  }, 60_000);

  it('an endless loop at the top level stops the load with a runaway fault', async () => {
    await expect(
      openWalled(`for (;;) {}\nexport default {};`, {
        memoryMb: 64,
        stepMs: 100,
        loadMs: 200,
        clock,
      }),
    ).rejects.toMatchObject({
      info: {
        kind: 'runaway',
        message: expect.stringMatching(/did not finish loading within 200 ms/),
      },
    });
  });
});

describe('what she throws is reported with the process, the event and the line', () => {
  it.each([
    [
      'a Proxy whose traps throw',
      'new Proxy({}, { get() { throw 1; }, getPrototypeOf() { throw 2; } })',
      /cannot be read \(a Proxy\?\)/,
    ],
    ['a number', '42', /^threw 42 \(throw an Error/],
    ['a string', "'nope'", /^threw the string "nope"/],
    ['a plain object', '{ code: 7 }', /^threw \[object Object\]/],
  ])('%s', async (_name, value, message) => {
    const src = `export default { name: 'bully', messageTypes: ['ELECTION'],\n  init() {\n    throw ${value};\n  }, step: (s) => ({ state: s, effects: [] }), ${REPORT} };`;
    expect(await initFault(src)).toMatchObject({
      kind: 'throw',
      process: 1,
      t: 7,
      event: 'init',
      line: 3,
      message: expect.stringMatching(message),
    });
  });

  it('an Error keeps its own line from the stack', async () => {
    const src = `export default { name: 'bully', messageTypes: ['ELECTION'],\n  init() {\n    const t = undefined;\n    return t.rows;\n  }, step: (s) => ({ state: s, effects: [] }), ${REPORT} };`;
    expect(await initFault(src)).toMatchObject({
      kind: 'throw',
      line: 4,
      message: expect.stringMatching(/^TypeError: /),
    });
  });
});

describe('what crosses the wall', () => {
  it('undefined, NaN and the infinities in her state come back as they were', async () => {
    const state = await initState(
      prober(
        "{ a: undefined, b: -Infinity, c: [undefined, NaN, Infinity], d: '\\u0000x', e: [1, 'two', null] }",
      ),
    );
    expect(state).toEqual({
      b: -Infinity,
      c: [undefined, NaN, Infinity],
      d: '\u0000x',
      e: [1, 'two', null],
    });
    expect(decodeTagged(encodeTagged({ x: [undefined, -Infinity, '\u0000y'] }))).toEqual({
      x: [undefined, -Infinity, '\u0000y'],
    });
  });

  it('a load fault from the wall is a WallFault the workers pass on as it is', async () => {
    await expect(
      openWalled('const t = undefined;\nt.rows;\nexport default {};', {
        memoryMb: 64,
        stepMs: 200,
        loadMs: 400,
        clock,
      }),
    ).rejects.toBeInstanceOf(WallFault);
  });
});

describe('npm run grade behind the wall', () => {
  it('a module that posts forged case and done messages, implementing nothing, fails, and nothing it tried happened', () => {
    const file = marker();
    const dir = mkdtempSync(join(tmpdir(), 'forge-'));
    const forged = join(dir, 'forge.js');
    const fake =
      "{ kind: 'case', result: { id: 'figure-6-20', group: 'example', title: 'x', pass: true, figures: [], reason: null, fault: null, divergence: null, trace: null, ms: 0 } }";
    const top = `for (const attempt of [
  () => globalThis.postMessage(${fake}),
  () => postMessage({ kind: 'done' }),
  () => require('worker_threads').parentPort.postMessage({ kind: 'done' }),
  () => (function () {}).constructor('s', 'return import(s)')('node:worker_threads').then((w) => w.parentPort.postMessage({ kind: 'done' })),
  () => (function () {}).constructor('return process')().binding('fs'),
  () => (function () {}).constructor('s', 'return import(s)')('node:fs').then((fs) => fs.writeFileSync(${JSON.stringify(file)}, 'x')),
]) { try { attempt(); } catch (e) { /* refused */ } }`;
    writeFileSync(forged, prober('{}', top));
    const r = grade(forged, ['--algorithm', 'bully', '--seconds', '0.5']);
    expect(r.status).toBe(1);
    expect(r.report.pass).toBe(false);
    expect(r.report.cases.find((c) => c.id === 'figure-6-20')!.pass).toBe(false);
    expect(existsSync(file)).toBe(false);
  }, 130_000);

  it('--memory is hers alone: at the smallest limit the CLI accepts, the grader and its explorer are not charged for their own memory', () => {
    const r = grade(join(root, 'shared/grader/examples/ring.js'), [
      '--algorithm',
      'ring',
      '--memory',
      '16',
      '--seconds',
      '2',
    ]);
    expect(r.report.cases.filter((c) => !c.pass).map((c) => `${c.id}: ${c.reason}`)).toEqual([]);
    expect(r.status).toBe(0);
  }, 130_000);

  it('--memory is refused past what the engine can hold (2 GB with its own 16 MB), before anything runs', async () => {
    const { parseGradeCli } = await import('../../scripts/grade.ts');
    expect(parseGradeCli(['--algorithm', 'bully', '--memory', '2032', 'x.js']).memoryMb).toBe(2032);
    expect(() => parseGradeCli(['--algorithm', 'bully', '--memory', '2048', 'x.js'])).toThrow(
      /--memory: at most 2032 \(the engine her module runs in is 32-bit WebAssembly/,
    );
  });

  it('the emergent example passes at the default budget (its explorer is no longer accused of an endless loop)', () => {
    const r = grade(join(root, 'shared/grader/examples/emergent.js'), ['--algorithm', 'emergent']);
    expect(r.report.cases.filter((c) => !c.pass).map((c) => `${c.id}: ${c.reason}`)).toEqual([]);
    expect(r.status).toBe(0);
  }, 130_000);
});
