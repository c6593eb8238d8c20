// npm run lesson -- [FILE.json ...]: checks lesson files as the relay would load them, runs every
// step in the simulator and prints what it measures beside what the file expects. Exit 1 when a
// file is refused or a step disagrees (docs/RUN_A_CLASS.md, "Writing a lesson").
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { parseLesson } from '@shared/lessons/lesson-schema.ts';
import { runStep } from '@shared/lessons/lesson-runner.ts';
import { handleHelp, usageError } from './cli.ts';

const USAGE = `Usage: npm run lesson -- [FILE.json ...]

Checks lesson files against the lesson schema (docs/schema.json, Lesson), runs every step in the
deterministic simulator and prints the measured value beside the expected one. Without files:
every lessons/*.json. Exits 1 when a file is refused or a step's run disagrees with its file.

  --help    this text`;

/** One file's report lines and whether it holds. */
function check(path: string): { lines: string[]; ok: boolean } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return {
      lines: [
        `${path}: refused: not readable JSON (${err instanceof Error ? err.message : 'unreadable'})`,
      ],
      ok: false,
    };
  }
  const parsed = parseLesson(raw);
  if (!parsed.ok)
    return { lines: [`${path}: refused`, ...parsed.errors.map((e) => `  ${e}`)], ok: false };
  const lines = [`${path}: ${parsed.lesson.id}, ${parsed.lesson.steps.length} steps`];
  let ok = true;
  parsed.lesson.steps.forEach((step, i) => {
    const o = runStep(step);
    ok &&= o.agrees;
    const cut = o.run.truncated && o.measured === null ? ' (the run hit the event bound)' : '';
    lines.push(
      `  step ${i} ${o.agrees ? 'ok      ' : 'DISAGREES'} measured ${o.measured ?? 'no value'}, expected ${o.expected}${cut}: ${step.title}`,
    );
  });
  return { lines, ok };
}

function main(argv: string[]): number {
  handleHelp(argv, USAGE);
  let files: string[];
  try {
    files = parseArgs({
      args: argv,
      options: {},
      allowPositionals: true,
      strict: true,
    }).positionals;
  } catch (err) {
    usageError('lesson', USAGE, err);
  }
  if (files.length === 0) {
    const dir = new URL('../lessons/', import.meta.url).pathname;
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => join(dir, f));
  }
  let ok = true;
  for (const f of files) {
    const r = check(relative(process.cwd(), f) || f);
    ok &&= r.ok;
    console.log(r.lines.join('\n'));
  }
  return ok ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
