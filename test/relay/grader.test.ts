// The grader (shared/grader/, docs/STUDENT_MODULES.md): every reference algorithm passes its own
// grader, every example module passes it, deliberately broken modules fail it with the right
// reason, and a module that does not load, loops, hoards memory or floods gets a clear error from
// the command line, whose exit code says which (0 pass, 1 fail, 2 does not load).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALGORITHM_NAMES, type AlgorithmName } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { gradeAll, type GradeReport } from '@shared/grader/grading.ts';
import { checkSource } from '@shared/grader/module-check.ts';
import { studentAlgorithm, type WireProblem } from '@shared/grader/student.ts';
import { brokenModule, type BrokenName } from '../fixtures/grader/broken.ts';
import { parseTraceFile } from '@shared/protocol/trace-file.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = (name: string) => join(root, 'test/fixtures/grader', `${name}.js`);
const clock = () => performance.now();

/** Grades a module file in this thread (the worker's body, without the worker). */
async function gradeFile(
  algorithm: AlgorithmName,
  file: string,
  exploreMs = 1000,
): Promise<GradeReport> {
  const url = pathToFileURL(file).href;
  const mod: unknown = await import(url);
  const wire: WireProblem[] = [];
  const subject = studentAlgorithm(mod, {
    algorithm,
    url,
    checkState: true,
    onWire: (p) => wire.push(p),
  });
  const exploreSubject = studentAlgorithm(mod, { algorithm, url, copyState: true });
  return gradeAll({
    algorithm,
    subject,
    exploreSubject,
    compare: true,
    clock,
    subjectName: file,
    exploreMs,
    wire,
  });
}

const failing = (r: GradeReport) =>
  Object.fromEntries(r.cases.filter((c) => !c.pass).map((c) => [c.id, c]));

function cli(args: string[]) {
  const out = mkdtempSync(join(tmpdir(), 'grade-'));
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'scripts/grade.ts', '--out', out, ...args],
    { cwd: root, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, out };
}

describe('the grader passes what is right', () => {
  it.each(ALGORITHM_NAMES)(
    '%s: the reference implementation passes its own grader',
    (algorithm) => {
      const r = gradeAll({
        algorithm,
        subject: getAlgorithm(algorithm),
        compare: false,
        clock,
        subjectName: 'reference',
        exploreMs: 1000,
        wire: null,
      });
      expect(failing(r)).toEqual({});
      expect(r.pass).toBe(true);
      expect(r.cases.map((c) => c.group)).toEqual(
        expect.arrayContaining([
          'example',
          'counts',
          'crash',
          'recovery',
          'initiators',
          'loss',
          'explore',
        ]),
      );
    },
  );

  it.each(ALGORITHM_NAMES)(
    '%s: the example module of docs/STUDENT_MODULES.md passes',
    async (algorithm) => {
      const r = await gradeFile(algorithm, join(root, 'shared/grader/examples', `${algorithm}.js`));
      expect(Object.entries(failing(r)).map(([id, c]) => `${id}: ${c.reason}`)).toEqual([]);
      // Counts are measured against the documents' formulas, figure by figure.
      const worst = r.cases.find((c) => c.id === 'worst-8')!;
      expect(
        worst.figures.some((f) => / messages$/.test(f.name) && /\(.+\)/.test(f.expected)),
      ).toBe(true);
    },
  );

  it.each(ALGORITHM_NAMES)('%s: the template loads but does not pass yet', async (algorithm) => {
    const file = join(root, 'shared/grader/templates', `${algorithm}.js`);
    expect(checkSource(readFileSync(file, 'utf8'))).toEqual([]);
    const r = await gradeFile(algorithm, file, 200);
    expect(r.pass).toBe(false);
  });
});

describe('the grader checks safety under loss where the documents promise it', () => {
  it('raft: the loss case checks one leader per term (§5.2, Figure 3: Election Safety holds whatever is lost); the id-ranked ones do not (their timeouts assume every message within T)', () => {
    const figures = (algorithm: AlgorithmName) => {
      const r = gradeAll({
        algorithm,
        subject: getAlgorithm(algorithm),
        compare: false,
        clock,
        subjectName: 'reference',
        exploreMs: 0,
        wire: null,
      });
      return r.cases.find((c) => c.id === 'loss-detector')!.figures.map((f) => f.name);
    };
    expect(figures('raft')).toContain('safety');
    expect(figures('bully')).not.toContain('safety');
  });
});

describe('the grader fails what is broken, with the reason', () => {
  it('bully that never answers OK: no OK is counted, and the divergence names the OK the reference sends', async () => {
    const f = failing(await gradeFile('bully', brokenModule('bully-never-ok')));
    expect(f['figure-6-20']!.reason).toMatch(/OK messages: measured 0, expected 3/);
    expect(f['figure-6-20']!.divergence).toMatch(
      /t=100, process 5 handling ELECTION from 4.*the reference: 5 sends OK to 4/,
    );
    expect(f.explore!.reason).toMatch(/safety broken/);
    expect(parseTraceFile(f.explore!.trace!).ok).toBe(true);
  });

  it('bully that declares without waiting: two leaders, found by the explorer in the shortest schedule', async () => {
    const f = failing(await gradeFile('bully', brokenModule('bully-no-wait')));
    expect(f['figure-6-20']!.divergence).toMatch(
      /process 4 handling elect.*the reference: 4 is electing; 4 sends ELECTION to 5.*yours: 4 leads/,
    );
    expect(f.explore!.reason).toMatch(
      /^safety broken after 2 steps in 4 processes \(3 down from the start\) with one crash: 0 and 1 both lead/,
    );
    expect(f.explore!.schedule).toHaveLength(2);
  });

  it('bully that ignores a higher COORDINATOR: agreement fails, and the divergence is the belief the reference adopts', async () => {
    const f = failing(await gradeFile('bully', brokenModule('bully-ignores-coordinator')));
    expect(f['figure-6-20']!.figures.find((x) => x.name.startsWith('agreement'))!.pass).toBe(false);
    expect(f['figure-6-20']!.divergence).toMatch(
      /handling COORDINATOR from 6.*the reference: 0 follows 6/,
    );
  });

  it('ring that forgets to skip a dead successor: everyone ends following the dead 7, and the divergence is the resend to 7', async () => {
    const f = failing(await gradeFile('ring', brokenModule('ring-no-skip')));
    expect(f['ring-002']!.reason).toMatch(
      /agreement \(e_i = P\): measured all follow 7, which is down/,
    );
    expect(f['ring-002']!.divergence).toMatch(
      /process 6 handling timer ack:1.*the reference: 6 sends ELECTION to 0; yours: 6 sends ELECTION to 7/,
    );
    // The failing run comes back as a trace the replay page reads.
    const parsed = parseTraceFile(f['ring-002']!.trace!);
    expect(parsed.ok && parsed.trace.events.at(-1)).toMatchObject({ kind: 'note' });
  });

  it('ring that skips only one dead successor (002: "send to j + 1" until a live one): with two dead in a row it ends following a dead one', async () => {
    const f = failing(await gradeFile('ring', brokenModule('ring-skips-one')));
    expect(f['crash-in-election']!.reason).toMatch(
      /agreement \(e_i = P\): measured all follow \d, which is down/,
    );
  });

  it('a message the bots would not understand fails the wire-format case', async () => {
    const f = failing(await gradeFile('bully', brokenModule('wrong-wire')));
    expect(f.wire!.reason).toMatch(/OK\.election/);
  });
});

describe('the student module format, read before it runs', () => {
  it('names a syntax error with its line, and refuses imports', () => {
    expect(
      checkSource(
        'export default {\n  name: "bully",\n  init(config) { return config self; },\n};',
      )[0],
    ).toMatchObject({ line: 3, message: expect.stringMatching(/^Syntax error/) });
    const p = checkSource(
      "import fs from 'node:fs';\nexport default { x: () => import('./y.js') };",
    );
    expect(p.map((x) => [x.line, x.message.slice(0, 32)])).toEqual([
      [1, 'A module may not import anything'],
      [2, 'A module may not load code with '],
    ]);
    expect(checkSource('export const x = 1;')[0]!.message).toMatch(/No `export default`/);
  });

  it('checks the exports against the contract and the lab', async () => {
    const { checkExports } = await import('@shared/grader/student.ts');
    const ok = { init() {}, step() {}, report() {} };
    expect(() => checkExports({}, 'bully')).toThrow(/no default export/);
    expect(() =>
      checkExports({ default: { ...ok, name: 'ring', messageTypes: ['ELECTION'] } }, 'bully'),
    ).toThrow(/this is a bully lab/);
    expect(() =>
      checkExports({ default: { ...ok, name: 'bully', messageTypes: ['HEARTBEAT'] } }, 'bully'),
    ).toThrow(/host runs the failure detector/);
    expect(() =>
      checkExports({ default: { ...ok, name: 'bully', messageTypes: ['VOTE'] } }, 'bully'),
    ).toThrow(/bots do not know/);
  });
});

describe('npm run grade', () => {
  // How long it takes is measured by npm run bench:grade, not asserted here.
  it('passes the Bully example (exit 0), naming each case and the time per phase', () => {
    const r = cli(['--algorithm', 'bully', 'shared/grader/examples/bully.js']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/pass {2}figure-6-20/);
    expect(r.stdout).toMatch(/PASS: 14 of 14 cases passed/);
    expect(r.stdout).toMatch(
      /time: start the sandbox .* s, load the module .* s, scenario cases .* s, explorer .* s; total/,
    );
  });

  it('fails a broken module (exit 1) and writes the failing traces for the replay page', () => {
    const r = cli(['--algorithm', 'bully', '--seconds', '1', brokenModule('bully-no-wait')]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/FAIL {2}explore/);
    const trace = join(r.out, 'bully-explore.jsonl');
    expect(existsSync(trace)).toBe(true);
    expect(r.stdout).toContain(trace);
    const parsed = parseTraceFile(readFileSync(trace, 'utf8'));
    expect(parsed.ok && parsed.trace.header).toMatchObject({
      source: 'explorer',
      algorithm: 'bully',
    });
  });

  it('grades the reference with --reference, and reports as JSON with --json', () => {
    const r = cli(['--algorithm', 'raft', '--reference', '--seconds', '0.5', '--json']);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as GradeReport;
    expect(report).toMatchObject({ algorithm: 'raft', subject: 'reference', pass: true });
  });

  it.each([
    // The wording is QuickJS's: her module runs behind the wall (shared/grader/student-wall.ts).
    [
      'throws-on-load',
      /does not load: the module threw while loading: TypeError: cannot read property 'rows' of undefined \(line 3:/,
    ],
    ['exports-nothing', /does not load: No `export default`/],
    ['syntax-error', /does not load: Syntax error: Unexpected token \(line 4:/],
  ])('a module that does not load (%s) exits 2 with the reason and line', (name, reason) => {
    const r = cli(['--algorithm', 'bully', fixture(name)]);
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(reason);
  });

  it('a usage error exits 2 and names the problem', () => {
    expect(cli(['--algorithm', 'paxos', 'x.js'])).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/--algorithm must be one of/),
    });
    expect(cli(['--algorithm', 'bully'])).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/the module file is missing/),
    });
  });
});

describe('the sandbox', () => {
  it('stops a call that never returns, names the process, the time and the event, and carries on with the other cases', () => {
    const r = cli([
      '--algorithm',
      'bully',
      '--seconds',
      '0.5',
      '--step-ms',
      '300',
      '--json',
      brokenModule('loops-forever'),
    ]);
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout) as GradeReport;
    const first = report.cases[0]!;
    expect(first.fault).toMatchObject({
      kind: 'runaway',
      process: 5,
      t: 100,
      event: 'message ELECTION from 4',
    });
    expect(first.reason).toMatch(/did not return within 300 ms/);
    // The cases in which nobody receives an ELECTION still ran.
    expect(report.cases.find((c) => c.id === 'best-4')!.pass).toBe(true);
  });

  it('stops a module that allocates without bound at the heap limit', () => {
    const r = cli([
      '--algorithm',
      'bully',
      '--seconds',
      '0.5',
      '--memory',
      '64',
      '--json',
      brokenModule('allocates'),
    ]);
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout) as GradeReport;
    expect(report.cases[0]!.fault).toMatchObject({
      kind: 'memory',
      process: 5,
      event: 'message ELECTION from 4',
    });
  });

  it.each([
    [
      'malformed-effects',
      /effects\[0\] has kind "sned"; an effect is one of send, set-timer, cancel-timer/,
    ],
    ['send-outside', /a send to 99, which is not in this lab \(ids 0, 1, 2, 3, 4, 5, 6, 7\)/],
    ['not-json', /effects\[0\]\.message\.reply is a function \(messages must be JSON\)/],
    ['floods', /10000 sends in one step; at most 64/],
  ])(
    'refuses the effects of %s with a clear reason, the process and the event',
    async (name, reason) => {
      const f = failing(await gradeFile('bully', brokenModule(name as BrokenName), 200));
      expect(f['figure-6-20']!.fault).toMatchObject({
        kind: 'effects',
        process: 5,
        t: 100,
        event: 'message ELECTION from 4',
        message: expect.stringMatching(reason),
      });
    },
  );
});

describe('the examples and templates', () => {
  it('type-check against the contract their JSDoc states (so an editor completes them)', () => {
    const files = ALGORITHM_NAMES.flatMap((a) => [
      `shared/grader/examples/${a}.js`,
      `shared/grader/templates/${a}.js`,
    ]);
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const r = spawnSync(
      process.execPath,
      [
        tsc,
        '--allowJs',
        '--checkJs',
        '--noEmit',
        '--strict',
        '--target',
        'es2022',
        '--module',
        'esnext',
        '--moduleResolution',
        'bundler',
        ...files,
      ],
      { cwd: root, encoding: 'utf8', timeout: 90_000 },
    );
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 100_000); // a whole tsc run: seconds alone, much longer on a busy machine
});
