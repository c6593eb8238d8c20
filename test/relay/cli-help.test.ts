// Issue 14, "CLIs that explain themselves": every command answers --help with its usage (exit
// 0), and a usage error names the option and exits 2; simulate refuses a crashed initiator and
// warns when the processes agree on a crashed coordinator or the initiator detects nothing.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { progressLine } from '../../scripts/cli.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = (script: string, args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30_000,
  });

const COMMANDS = {
  simulate: 'scripts/simulate.ts',
  class: 'scripts/class.ts',
  experiment: 'scripts/experiment.ts',
  explore: 'scripts/explore.ts',
  bots: 'scripts/bots.ts',
  cluster: 'scripts/cluster.ts',
  contract: 'scripts/contract.ts',
  lesson: 'scripts/lesson.ts',
  challenge: 'scripts/challenge.ts',
  grade: 'scripts/grade.ts',
  maelstrom: 'scripts/maelstrom.ts',
  'maelstrom-node': 'scripts/maelstrom-node.ts',
  bench: 'bench/relay-bench.ts',
  'bench:scale': 'bench/scale-1000.ts',
  'bench:cluster': 'bench/cluster-bench.ts',
  'bench:held': 'bench/held-memory.ts',
  'bench:core': 'bench/core-bench.ts',
  'bench:grade': 'bench/grade-bench.ts',
  'bench:hand-audit': 'bench/hand-audit-bench.ts',
  'bench:wall': 'bench/wall-bench.ts',
  'bench:class': 'bench/class-property.ts',
};

describe.each(Object.entries(COMMANDS))('npm run %s', (name, script) => {
  it('prints its usage for --help and exits 0', () => {
    const r = run(script, ['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Usage: npm run /);
  });

  it('names an unknown option and exits 2', () => {
    const r = run(script, ['--no-such-option']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--no-such-option/);
  });
});

describe('simulate explains what it cannot do', () => {
  it('refuses a crashed initiator', () => {
    const r = run(COMMANDS.simulate, ['--crash', '7,3', '--initiator', '3']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--initiator 3 is crashed/);
  });

  it('warns when the processes agree on a crashed coordinator, and when an emergent initiator is idle', () => {
    const r = run(COMMANDS.simulate, [
      '--algorithm',
      'emergent',
      '--nodes',
      '8',
      '--crash',
      '7',
      '--initiator',
      '0',
    ]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/warning: every live process believes in 7, which crashed at time 0/);
    expect(r.stdout).toMatch(/warning: initiator 0 is an idle process/);
    const fine = run(COMMANDS.simulate, ['--nodes', '8', '--crash', '7', '--initiator', '0']);
    expect(fine.stdout).not.toMatch(/warning/);
  });
});

describe('maelstrom and maelstrom-node name what is missing', () => {
  it('refuses a host without an executable or a lab, and a node without an algorithm', () => {
    const noNode = run(COMMANDS.maelstrom, ['--lab', 'demo']);
    expect(noNode.status).toBe(2);
    expect(noNode.stderr).toMatch(/no executable: give it after --, e\.g\. -- \.\/my-node/);
    const noLab = run(COMMANDS.maelstrom, ['--', './my-node']);
    expect(noLab.status).toBe(2);
    expect(noLab.stderr).toMatch(/--lab is required/);
    const noAlgorithm = run(COMMANDS['maelstrom-node'], ['--detector', 'poll']);
    expect(noAlgorithm.status).toBe(2);
    expect(noAlgorithm.stderr).toMatch(/--algorithm must be one of bully, ring/);
  }, 120_000);
});

describe('progress on long runs (bench, experiment, explore: scripts/cli.ts progressLine)', () => {
  const fake = (isTTY: boolean) => {
    const writes: string[] = [];
    return { writes, stream: { isTTY, columns: 40, write: (t: string) => writes.push(t) } };
  };

  it('rewrites one line in place on a terminal, cut to its width, and clears it when done', () => {
    const { writes, stream } = fake(true);
    const line = progressLine(stream, performance.now());
    line.step('ws: throughput round 1/3');
    line.step(`ws: latency slice 2/4 ${'x'.repeat(60)}`);
    line.done();
    line.done();
    expect(writes[0]).toBe('\r\x1b[2K[   0 s] ws: throughput round 1/3');
    expect(writes[1]!.length).toBe('\r\x1b[2K'.length + 39);
    expect(writes.slice(2)).toEqual(['\r\x1b[2K']);
  });

  it('prints nothing when the output is not a terminal (CI, a file)', () => {
    const { writes, stream } = fake(false);
    const line = progressLine(stream);
    line.step('depth 3, 1,234 states...');
    line.done();
    expect(writes).toEqual([]);
    // The real commands, run here with stderr a pipe: no progress characters in what they print.
    const r = run(COMMANDS.explore, ['--algorithm', 'bully', '--nodes', '3', '--depth', '3']);
    // eslint-disable-next-line no-control-regex -- the terminal's erase-line escape is what must be absent
    expect(r.stderr).not.toMatch(/\x1b\[2K|depth \d/);
  });
});
