// One way for every CLI to explain itself: `--help` / `-h` prints the usage and exits 0; a usage
// error prints `<command>: <what is wrong>` naming the option, points at --help and exits 2.

/** Prints `usage` and exits 0 when argv asks for help. */
export function helpRequested(argv: readonly string[], usage: string): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage.trimEnd());
    process.exit(0);
  }
}

/** A usage error: the message names the option; exit code 2. */
export function usageError(command: string, err: unknown): never {
  console.error(`${command}: ${(err as Error).message}\nTry 'npm run ${command} -- --help'.`);
  process.exit(2);
}
