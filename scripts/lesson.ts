// npm run lesson -- [FILE.json ...]: checks lesson files as the relay would load them, runs every
// step in the simulator and prints what it measures beside what the file expects. Exit 1 when a
// file is refused or a step disagrees (docs/RUN_A_CLASS.md, "Writing a lesson").
import { readFileSync } from 'node:fs';
import { parseLesson } from '@shared/lessons/lesson-schema.ts';
import { runStep } from '@shared/lessons/lesson-runner.ts';
import { checkFilesCli } from './cli.ts';

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

process.exitCode = checkFilesCli(
  'lesson',
  USAGE,
  new URL('../lessons/', import.meta.url),
  check,
  process.argv.slice(2),
);
