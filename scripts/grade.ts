// npm run grade -- --algorithm bully path/to/module.js [--json] [--seconds S] [--out DIR]
//   npm run grade -- --algorithm bully --reference      grades the lab's own Bully
//
// Grades a student's module (docs/STUDENT_MODULES.md): the documents' worked example, best and
// worst cases with their message counts, a crash mid-election, a recovery, two initiators, loss
// with the failure detector on, the wire format, and the explorer over its delivery orders. Her
// code runs in QuickJS (shared/grader/student-wall.ts) inside a worker thread, each call bounded
// in time and memory; never here.
// Exit 0: every case passed; 1: some failed (their traces are written for the replay page);
// 2: a usage error, or a module that does not load.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { ALGORITHM_NAMES, type AlgorithmName } from '@shared/algorithms/algorithm.ts';
import type { GradeReport } from '@shared/grader/grading.ts';
import { runGrade, type SpawnWorker } from '@shared/grader/grade-runner.ts';
import { MAX_MEMORY_MB } from '@shared/grader/student-wall.ts';
import { formatReport } from '@shared/grader/report-text.ts';
import { handleHelp, usageError } from './cli.ts';

export const GRADE_USAGE = `Usage: npm run grade -- --algorithm NAME path/to/module.js [options]

Grades a student's election module (docs/STUDENT_MODULES.md) behind a wall (QuickJS): scenario
cases in the simulator (the documents' worked example, best and worst cases against the message
count formulas, a crash mid-election, a recovery, two initiators, loss with the failure detector
on), the wire format, and the explorer over its delivery orders. Prints each case, pass or fail,
measured against expected; for a failure, where the run first parted from the reference's.

  --algorithm NAME   ${ALGORITHM_NAMES.join(' | ')}
  --seconds S        the explorer's time budget (default 3)
  --step-ms MS       each call into the module may take this long (default 1000)
  --memory MB        the module's memory limit, everything it allocates (default 256, at most 2032)
  --out DIR          where failing runs are written as trace files (default grade-out)
  --reference        grade the lab's own implementation instead of a file
  --json             the report as JSON
  --help             this text

Exit status: 0 every case passed; 1 some failed; 2 a usage error or a module that does not load.`;

export interface GradeCli {
  algorithm: AlgorithmName;
  file: string | null;
  seconds: number;
  stepMs: number;
  memoryMb: number;
  out: string;
  json: boolean;
}

export function parseGradeCli(argv: string[]): GradeCli {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      algorithm: { type: 'string' },
      seconds: { type: 'string', default: '3' },
      'step-ms': { type: 'string', default: '1000' },
      memory: { type: 'string', default: '256' },
      out: { type: 'string', default: 'grade-out' },
      reference: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const algorithm = values.algorithm as AlgorithmName | undefined;
  if (!algorithm) throw new Error('--algorithm is required');
  if (!ALGORITHM_NAMES.includes(algorithm))
    throw new Error(`--algorithm must be one of ${ALGORITHM_NAMES.join(', ')}`);
  if (values.reference && positionals.length > 0)
    throw new Error("--reference grades the lab's own module: give no file");
  if (!values.reference && positionals.length !== 1)
    throw new Error(
      positionals.length === 0
        ? 'the module file is missing'
        : `one module file, not ${positionals.length}`,
    );
  const atMost = (n: number, max: number, what: string, why: string) => {
    if (n > max) throw new Error(`${what}: at most ${max} (${why})`);
    return n;
  };
  const num = (v: string, what: string, min: number) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new Error(`${what}: "${v}" is not a number ≥ ${min}`);
    return n;
  };
  return {
    algorithm,
    file: values.reference ? null : positionals[0]!,
    seconds: num(values.seconds, '--seconds', 0),
    stepMs: num(values['step-ms'], '--step-ms', 10),
    memoryMb: atMost(
      num(values.memory, '--memory', 16),
      MAX_MEMORY_MB,
      '--memory',
      'the engine her module runs in is 32-bit WebAssembly: 2 GB with its own 16 MB',
    ),
    out: values.out,
    json: values.json,
  };
}

/** The module's text; a .ts module has its types stripped first (TypeScript is optional). */
async function readModule(file: string): Promise<string> {
  const text = readFileSync(file, 'utf8');
  if (!/\.[mc]?ts$/.test(file)) return text;
  const ts = (await import('typescript')).default;
  return ts.transpileModule(text, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: file,
  }).outputText;
}

/** A worker thread running scripts/grade/worker.ts (under tsx, as this process): the grader, with her module behind the wall inside it. */
export function nodeWorker(): SpawnWorker {
  return (events) => {
    // A worker's entry point is loaded before an inherited --import takes effect, so the worker
    // registers tsx itself and then imports its TypeScript body.
    const boot = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(new URL('./grade/worker.ts', import.meta.url).href)});`;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), {
      execArgv: [],
      // Her memory is bounded inside the wall (--memory); this heap is the grader's own (the explorer's visited set).
      resourceLimits: { stackSizeMb: 4 },
      stdout: true,
      stderr: true,
    });
    let gone = false;
    worker.on('message', (m) => events.message(m));
    worker.on('error', (err: Error & { code?: string }) => {
      if (gone) return;
      gone = true;
      events.died({ memory: err.code === 'ERR_WORKER_OUT_OF_MEMORY', message: err.message });
    });
    worker.on('exit', (code) => {
      if (gone) return;
      gone = true;
      events.died({ memory: false, message: `the worker exited (code ${code})` });
    });
    return {
      post: (req) => worker.postMessage(req),
      terminate: () => {
        gone = true;
        void worker.terminate();
      },
    };
  };
}

/** Writes each failing case's trace under `dir`; returns case id -> path. */
function writeTraces(report: GradeReport, dir: string): Map<string, string> {
  const written = new Map<string, string>();
  for (const c of report.cases) {
    if (!c.trace) continue;
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${report.algorithm}-${c.id}.jsonl`);
    writeFileSync(path, c.trace);
    written.set(c.id, path);
  }
  return written;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  handleHelp(argv, GRADE_USAGE);
  let cli: GradeCli;
  try {
    cli = parseGradeCli(argv);
  } catch (e) {
    usageError('grade', GRADE_USAGE, e);
  }
  let source: string | null = null;
  if (cli.file) {
    try {
      source = await readModule(cli.file);
    } catch (e) {
      console.error(`grade: cannot read ${cli.file}: ${(e as Error).message}`);
      process.exit(2);
    }
  }
  const report = await runGrade({
    spawn: nodeWorker(),
    memoryMb: cli.memoryMb,
    algorithm: cli.algorithm,
    source,
    subject: cli.file ? basename(cli.file) : 'reference',
    exploreMs: cli.seconds * 1000,
    stepMs: cli.stepMs,
    clock: () => performance.now(),
    onCase:
      cli.json || !process.stderr.isTTY
        ? undefined
        : (r) => process.stderr.write(`\r${r.pass ? 'pass' : 'FAIL'} ${r.id}`.padEnd(60)),
  });
  if (process.stderr.isTTY && !cli.json) process.stderr.write('\r'.padEnd(61) + '\r');
  const traces = writeTraces(report, cli.out);
  if (cli.json)
    console.log(
      JSON.stringify({
        ...report,
        cases: report.cases.map((c) => ({ ...c, trace: traces.get(c.id) ?? null })),
      }),
    );
  else console.log(formatReport(report, traces));
  process.exit(report.loadError ? 2 : report.pass ? 0 : 1);
}

if (import.meta.url === `file://${process.argv[1]}`) void main();
