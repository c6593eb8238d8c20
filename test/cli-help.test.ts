// Every CLI explains itself: --help prints its usage and exits 0; an unknown or bad option exits 2
// naming the option. simulate refuses a crashed initiator and warns about misleading runs.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const TSX = new URL('../node_modules/.bin/tsx', import.meta.url).pathname;

function run(script: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(TSX, [script, ...args], { cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

const CLIS: { name: string; script: string; bad: string[]; names: string }[] = [
  { name: 'simulate', script: 'scripts/simulate.ts', bad: ['--frobnicate'], names: '--frobnicate' },
  { name: 'experiment', script: 'scripts/experiment.ts', bad: ['--runs', 'many'], names: '--runs' },
  { name: 'explore', script: 'scripts/explore.ts', bad: ['--frobnicate'], names: '--frobnicate' },
  { name: 'bots', script: 'scripts/bots.ts', bad: ['--frobnicate'], names: '--frobnicate' },
  { name: 'bench', script: 'bench/relay-bench.ts', bad: ['--transports', 'carrier-pigeon'], names: '--transports' },
  { name: 'bench:scale', script: 'bench/scale-1000.ts', bad: ['--transport', 'udp'], names: '--transport' },
  { name: 'contract', script: 'scripts/contract.ts', bad: ['--frobnicate'], names: '--frobnicate' },
];

describe('CLIs explain themselves', () => {
  for (const cli of CLIS) {
    it(`${cli.name} --help prints its usage and exits 0; a bad option exits 2 naming it`, async () => {
      const [help, bad] = await Promise.all([run(cli.script, ['--help']), run(cli.script, cli.bad)]);
      expect(help.code, help.err).toBe(0);
      expect(help.out).toContain(`npm run ${cli.name}`);
      expect(bad.code, bad.out + bad.err).toBe(2);
      expect(bad.err).toContain(cli.names);
    }, 60_000);
  }

  it('simulate refuses a crashed initiator (exit 2) and warns when an emergent initiator is idle', async () => {
    const [crashed, idle, fine] = await Promise.all([
      run('scripts/simulate.ts', ['--crash', '7,3', '--initiator', '3']),
      run('scripts/simulate.ts', ['--algorithm', 'emergent', '--initiator', '0']),
      run('scripts/simulate.ts', ['--crash', '7', '--initiator', '3']),
    ]);
    expect(crashed.code).toBe(2);
    expect(crashed.err).toMatch(/--initiator 3 is crashed/);
    expect(idle.code).toBe(0);
    expect(idle.out).toMatch(/WARNING: --initiator 0 is an idle process/);
    expect(fine.code).toBe(0);
    expect(fine.out).not.toMatch(/WARNING/);
  }, 60_000);
});
