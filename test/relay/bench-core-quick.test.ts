// The core benchmark's quick mode, as CI runs it: `npm run bench:core -- --quick` must measure the
// simulator beside a bare event loop and the explorer, and print every figure with its target.
// The figures depend on the machine and are printed, not asserted; that they are there is.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('bench:core --quick prints the simulator events/s beside a bare event loop, the ratio, and the explorer states/s', async () => {
  const script = fileURLToPath(new URL('../../bench/core-bench.ts', import.meta.url));
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', script, '--quick'],
      { cwd: root, timeout: 50_000 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
  console.log(out);
  const n = String.raw`[\d,]+`;
  expect(out).toMatch(
    new RegExp(
      `^simulator: bully worst case, 200 processes .*: ${n} events \\(${n} messages\\) in ${n} ms: ${n} events/s$`,
      'm',
    ),
  );
  expect(out).toMatch(
    new RegExp(`^bare event loop, same ${n} events: ${n} ms: ${n} events/s$`, 'm'),
  );
  expect(out).toMatch(/^simulator \/ bare loop: \d+\.\d+x the time$/m);
  expect(out).toMatch(
    new RegExp(
      `^work schedule: bully, 200 processes, 2,000 tasks \\(2,000 completed\\): ${n} events \\(${n} messages\\) in ${n} ms; the election alone, same virtual time: ${n} events in ${n} ms$`,
      'm',
    ),
  );
  expect(out).toMatch(
    new RegExp(
      `^explorer: --algorithm ring --nodes 4 --faults slow --states 20000 --probes 0: 20,000 states, ${n} transitions, depth \\d+, stopped by states, in ${n} ms: ${n} states/s$`,
      'm',
    ),
  );
  expect(out.match(/^target /gm)).toHaveLength(3);
}, 60_000);
