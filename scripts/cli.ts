// What every command line tool does the same way: `--help` prints its usage and exits 0; a usage
// error prints the problem (naming the option) and the usage to stderr and exits 2.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
export function helpRequested(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

export function usageError(name: string, usage: string, err: unknown): never {
  console.error(`${name}: ${err instanceof Error ? err.message : String(err)}\n\n${usage}`);
  process.exit(2);
}

/** Prints the usage and exits 0 when --help is among the arguments. */
export function handleHelp(argv: readonly string[], usage: string): void {
  if (!helpRequested(argv)) return;
  console.log(usage);
  process.exit(0);
}

/** Where a progress line goes: process.stderr, or a test's stand-in. */
interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface Progress {
  /** Replaces the line with `text`, after the time since the run began. */
  step(text: string): void;
  /** Clears the line: call before printing anything else to the terminal. */
  done(): void;
}

/**
 * The progress line of every long run (bench, experiment, explore): rewritten in place on stderr
 * when stderr is a terminal, and nothing at all otherwise, so CI logs and redirected output keep
 * only the results.
 */
export function progressLine(
  stream: ProgressStream = process.stderr,
  started = performance.now(),
): Progress {
  let shown = false;
  return {
    step(text) {
      if (stream.isTTY !== true) return;
      const seconds = ((performance.now() - started) / 1000).toFixed(0);
      const line = `[${seconds.padStart(4)} s] ${text}`.slice(
        0,
        Math.max(20, (stream.columns || 100) - 1),
      );
      stream.write(`\r\x1b[2K${line}`);
      shown = true;
    },
    done() {
      if (shown) stream.write('\r\x1b[2K');
      shown = false;
    },
  };
}

/**
 * A checker of data files (`npm run lesson`, `npm run challenge`): the files named, or every
 * `*.json` of `folder`; each file's lines printed; exit code 1 if any file failed.
 */
export function checkFilesCli(
  name: string,
  usage: string,
  folder: URL,
  check: (file: string) => { lines: string[]; ok: boolean },
  argv: string[],
): number {
  handleHelp(argv, usage);
  let files: string[];
  try {
    files = parseArgs({
      args: argv,
      options: {},
      allowPositionals: true,
      strict: true,
    }).positionals;
  } catch (err) {
    usageError(name, usage, err);
  }
  if (files.length === 0) {
    const dir = folder.pathname;
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
