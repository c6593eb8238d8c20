// npm run bench:grade [-- --seconds S]
// How long grading one module takes (issue 13's target: under 15 s for every case plus an
// explorer run of a few seconds), per phase, for each algorithm's example module through the
// command line exactly as a student runs it; beside it, in the same run, the lab's own
// implementation graded the same way (--reference), so the ratio shows what the sandbox and her
// module's guards cost.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ALGORITHM_NAMES } from '@shared/algorithms/algorithm.ts';
import type { GradeReport } from '@shared/grader/grading.ts';
import { handleHelp, usageError } from '../scripts/cli.ts';

const USAGE = `Usage: npm run bench:grade [-- --seconds S]

Grades every algorithm's example module and its reference implementation with npm run grade
(--json) and prints the time per phase, the wall time of the command, and example / reference.

  --seconds S   the explorer's budget per grade (default 3, as npm run grade)
  --help        this text`;

const TARGET_MS = 15_000;
const root = fileURLToPath(new URL('..', import.meta.url));

function grade(args: string[]): { report: GradeReport; wallMs: number } {
  const t = performance.now();
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'scripts/grade.ts', '--json', '--out', 'grade-out/bench', ...args],
    { cwd: root, encoding: 'utf8', timeout: 120_000 },
  );
  const wallMs = performance.now() - t;
  if (r.status !== 0)
    throw new Error(
      `npm run grade ${args.join(' ')} exited ${r.status}: ${r.stderr || r.stdout.slice(0, 500)}`,
    );
  return { report: JSON.parse(r.stdout) as GradeReport, wallMs };
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function main(argv: string[]): void {
  handleHelp(argv, USAGE);
  let seconds: string;
  try {
    seconds = parseArgs({
      args: argv,
      strict: true,
      options: { seconds: { type: 'string', default: '3' } },
    }).values.seconds;
  } catch (err) {
    return usageError('bench:grade', USAGE, err);
  }
  if (!(Number(seconds) > 0))
    return usageError('bench:grade', USAGE, new Error('--seconds must be a positive number'));
  console.log(
    `| algorithm | phases (example module) | grade total | command wall | reference wall | example / reference | under ${TARGET_MS / 1000} s |`,
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  let worst = 0;
  for (const algorithm of ALGORITHM_NAMES) {
    const ex = grade([
      '--algorithm',
      algorithm,
      '--seconds',
      seconds,
      `shared/grader/examples/${algorithm}.js`,
    ]);
    const ref = grade(['--algorithm', algorithm, '--seconds', seconds, '--reference']);
    worst = Math.max(worst, ex.wallMs);
    const phases = ex.report.phases.map((p) => `${p.name} ${s(p.ms)}`).join(', ');
    console.log(
      `| ${algorithm} | ${phases} | ${s(ex.report.totalMs)} | ${s(ex.wallMs)} | ${s(ref.wallMs)} | ${(ex.wallMs / ref.wallMs).toFixed(2)}x | ${ex.wallMs < TARGET_MS ? 'yes' : 'NO'} |`,
    );
  }
  console.log(`\nslowest grade: ${s(worst)} of wall time (target: under ${TARGET_MS / 1000} s)`);
}

main(process.argv.slice(2));
