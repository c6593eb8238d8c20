// npm run bench:wall [-- --seconds S]
// What the grader's wall costs (shared/grader/student-wall.ts): for each algorithm's example
// module, graded in this thread two ways in the same run, once imported straight into this realm
// (as the grader did before the wall) and once behind the wall (QuickJS), it prints the scenario
// cases' time and calls (so the cost of one call across the wall), and the explorer's states in
// its budget (states/s).
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  ALGORITHM_NAMES,
  type Algorithm,
  type AlgorithmName,
} from '@shared/algorithms/algorithm.ts';
import { gradeAll } from '@shared/grader/grading.ts';
import { studentAlgorithm } from '@shared/grader/student.ts';
import { openWalled } from '@shared/grader/student-wall.ts';
import { readFileSync } from 'node:fs';
import { handleHelp, usageError } from '../scripts/cli.ts';

const USAGE = `Usage: npm run bench:wall [-- --seconds S]

Grades every algorithm's example module in this thread, imported into this realm and behind the
QuickJS wall, and prints the scenario cases' time per call and the explorer's states/s for each.

  --seconds S   the explorer's budget per run (default 3)
  --help        this text`;

const clock = () => performance.now();

/** Counts the calls of init and step that reach her module. */
function counted(exported: unknown): { exports: unknown; calls: () => number } {
  const d = (exported as { default: Record<string, unknown> }).default;
  let n = 0;
  const wrap =
    (f: unknown) =>
    (...args: unknown[]) => (n++, (f as (...a: unknown[]) => unknown)(...args));
  return { exports: { default: { ...d, init: wrap(d.init), step: wrap(d.step) } }, calls: () => n };
}

function measure(
  algorithm: AlgorithmName,
  exported: unknown,
  exploreMs: number,
  copyState: boolean,
) {
  const c = counted(exported);
  const subject = studentAlgorithm(c.exports, {
    algorithm,
    checkState: true,
  }) as Algorithm<unknown>;
  const exploreSubject = studentAlgorithm(c.exports, {
    algorithm,
    copyState,
  }) as Algorithm<unknown>;
  const t = clock();
  const cases = gradeAll({
    algorithm,
    subject,
    compare: true,
    clock,
    subjectName: algorithm,
    exploreMs: 0,
    wire: [],
  });
  const casesMs = clock() - t;
  const calls = c.calls();
  const explored = gradeAll({
    algorithm,
    subject: exploreSubject,
    compare: false,
    clock,
    subjectName: algorithm,
    exploreMs,
    wire: null,
    skip: new Set(cases.cases.map((x) => x.id)),
  });
  const e = explored.cases.find((x) => x.id === 'explore')!;
  const states = Number(/^(\d+) states/.exec(e.figures[0]?.measured ?? '')?.[1] ?? NaN);
  return {
    pass: cases.pass && explored.pass,
    casesMs,
    calls,
    perCallUs: (casesMs * 1000) / calls,
    states,
    statesPerS: states / (e.ms / 1000),
  };
}

async function main(argv: string[]): Promise<void> {
  handleHelp(argv, USAGE);
  let seconds: number;
  try {
    seconds = Number(
      parseArgs({
        args: argv,
        strict: true,
        options: { seconds: { type: 'string', default: '3' } },
      }).values.seconds,
    );
    if (!(seconds > 0)) throw new Error('--seconds must be a positive number');
  } catch (err) {
    return usageError('bench:wall', USAGE, err);
  }
  console.log(
    '| algorithm | scenario calls | per call, in this realm | per call, behind the wall | explorer states/s, in this realm | behind the wall | all pass |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const algorithm of ALGORITHM_NAMES) {
    const file = `shared/grader/examples/${algorithm}.js`;
    const direct = measure(algorithm, await import(pathToFileURL(file).href), seconds * 1000, true);
    const walled = await openWalled(readFileSync(file, 'utf8'), {
      memoryMb: 256,
      stepMs: 1000,
      loadMs: 2000,
      clock,
    });
    const wall = measure(algorithm, walled.exports, seconds * 1000, false);
    walled.dispose();
    const us = (x: number) => `${x.toFixed(1)} µs`;
    const rate = (x: number) => `${Math.round(x).toLocaleString('en-US')}`;
    console.log(
      `| ${algorithm} | ${wall.calls} | ${us(direct.perCallUs)} | ${us(wall.perCallUs)} | ${rate(direct.statesPerS)} | ${rate(wall.statesPerS)} | ${direct.pass && wall.pass ? 'yes' : 'NO'} |`,
    );
  }
  console.log(
    "\n(per call: the scenario cases' time divided by the calls of init and step, which include the grader's own work around them)",
  );
}

void main(process.argv.slice(2));
