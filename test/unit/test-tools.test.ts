// npm test on a fresh machine: the system programs the browser, cluster and Python tests need are
// checked first, installed where we may (root with apt-get), else one line names the command.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { plan, TOOLS } from '../../scripts/test-tools.ts';

describe('npm test checks its system programs first', () => {
  it('runs the check before the type check and the tests', () => {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { scripts: Record<string, string> };
    expect(pkg.scripts['test']!.startsWith('tsx scripts/test-tools.ts && ')).toBe(true);
  });

  it('checks chromium, redis-server and python3', () => {
    expect(TOOLS.map((t) => t.pkg)).toEqual(['chromium', 'redis-server', 'python3']);
  });

  it('does nothing when all are present', () => {
    expect(plan([], false)).toEqual({ kind: 'ready' });
  });

  it('installs what is missing when it may (root with apt-get)', () => {
    expect(plan(['chromium', 'python3'], true)).toEqual({
      kind: 'install',
      pkgs: ['chromium', 'python3'],
    });
  });

  it('otherwise stops with one line naming the command to run', () => {
    const next = plan(['redis-server'], false);
    expect(next.kind).toBe('stop');
    const line = (next as { line: string }).line;
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('apt-get install -y redis-server');
  });

  it('finds the programs this machine has', () => {
    // The suite itself needs them: after the check ran, every one is present.
    expect(TOOLS.filter((t) => !t.present()).map((t) => t.pkg)).toEqual([]);
  });
});
