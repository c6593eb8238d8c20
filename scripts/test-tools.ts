// npm test's first step: the browser, cluster and other-language tests need three programs from
// the system (Debian's chromium, redis-server, python3). Where one is missing and we run as root
// with apt-get, they are installed; otherwise the run stops at once with one line naming the
// command to run, instead of a hundred failing browser tests.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface Tool {
  /** The Debian package that provides it. */
  pkg: string;
  present(): boolean;
}

const onPath = (cmd: string) =>
  spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

export const TOOLS: readonly Tool[] = [
  // The browser tests' path (test/helpers/browser.ts) can be pointed elsewhere with CHROMIUM_PATH.
  {
    pkg: 'chromium',
    present: () => existsSync(process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'),
  },
  { pkg: 'redis-server', present: () => onPath('redis-server') },
  { pkg: 'python3', present: () => onPath('python3') },
];

export type Plan =
  { kind: 'ready' } | { kind: 'install'; pkgs: string[] } | { kind: 'stop'; line: string };

/** What to do about the missing packages: nothing, install them (root with apt-get), or stop. */
export function plan(missing: readonly string[], canInstall: boolean): Plan {
  if (missing.length === 0) return { kind: 'ready' };
  if (canInstall) return { kind: 'install', pkgs: [...missing] };
  return {
    kind: 'stop',
    line: `npm test needs ${missing.join(', ')}: run  sudo apt-get install -y ${missing.join(' ')}  (or your system's equivalent), then npm test again`,
  };
}

function main(): number {
  const missing = TOOLS.filter((t) => !t.present()).map((t) => t.pkg);
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const next = plan(missing, root && onPath('apt-get'));
  if (next.kind === 'ready') return 0;
  if (next.kind === 'stop') {
    console.error(next.line);
    return 1;
  }
  console.error(
    `npm test: installing ${next.pkgs.join(', ')} with apt-get (the browser, cluster and Python tests need them)`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...next.pkgs],
  ]) {
    const r = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (r.status !== 0) {
      console.error(
        `npm test: apt-get ${args[0]} failed (exit ${r.status}); install ${next.pkgs.join(' ')} by hand, then npm test again`,
      );
      return 1;
    }
  }
  const still = TOOLS.filter((t) => !t.present()).map((t) => t.pkg);
  if (still.length > 0) {
    console.error(`npm test: still missing after apt-get: ${still.join(', ')}`);
    return 1;
  }
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(main());
