// What every command line tool does the same way: `--help` prints its usage and exits 0; a usage
// error prints the problem (naming the option) and the usage to stderr and exits 2.
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
