// The benchmark's quick mode, as CI runs it: `npm run bench -- --quick` must start the relay and
// both baselines in their own processes, measure every figure and write the JSON and the table.
// The figures depend on the machine and are printed, not asserted; the shape of the results is.
// The time bounds only stop a hang: on a loaded machine starting the children alone took 30 s.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import type { BenchResults } from '../../bench/bench-report.ts';

it('bench --quick measures the relay and both baselines over both transports and writes results.json and a table', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-quick-'));
  try {
    const out = join(dir, 'results.json');
    const script = fileURLToPath(new URL('../../bench/relay-bench.ts', import.meta.url));
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const log = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', script, '--quick', '--out', out],
        { cwd: root, timeout: 150_000 },
        (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout + stderr),
      ),
    );
    const results = JSON.parse(await readFile(out, 'utf8')) as BenchResults;
    const table = await readFile(out.replace(/\.json$/, '.md'), 'utf8');
    console.log(table);
    expect(results.quick).toBe(true);
    expect(Object.keys(results.transports).sort()).toEqual(['socketio', 'ws']);
    for (const x of Object.values(results.transports)) {
      const figures = [
        x!.throughput.relay.rate,
        x!.throughput.baseline.rate,
        x!.latency.relay.p99,
        x!.latency.baseline.p99,
        x!.delay.p50,
        x!.delay.p99,
        x!.memory.relay.perProcess,
        x!.memory.baseline.perProcess,
      ];
      for (const v of figures) expect(Number.isFinite(v)).toBe(true);
      expect(x!.throughput.relay.delivered).toBeGreaterThan(0);
      expect(x!.latency.relay.count).toBeGreaterThan(0);
      expect(x!.delay.count).toBeGreaterThan(0);
      // What a tail coincided with: the servers' own stalls and the load process's lateness.
      expect(x!.latency.relay.stalls.preempted).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(x!.latency.baseline.loadLoopMax)).toBe(true);
    }
    for (const t of ['ws', 'socketio'])
      expect(log).toMatch(
        new RegExp(
          `${t} latency slice 1: relay p99 [\\d.]+ max [\\d.]+ \\(loop late max [\\d.]+, GC max [\\d.]+, preempted \\d+, load loop late max [\\d.]+\\); baseline p99`,
        ),
      );
    expect(results.targets).toHaveLength(8);
    expect(table).toContain('| throughput (msg/s) | ws |');
    expect(table).toContain('| RSS per connected process (KiB) at 50 | socketio |');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 180_000);
