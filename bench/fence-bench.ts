// npx tsx bench/fence-bench.ts: what reserving numbers on disk costs (server/lab/lab-fence.ts,
// docs/RELIABILITY.md "Numbers never go back"). Times `reserve` (the epoch check and the
// record's write in place) in a data folder under the system's temp directory, and prints the
// cost per call and per number handed out (a call covers NUMBER_BLOCK numbers).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fencePath, LabFence, NUMBER_BLOCK } from '../server/lab/lab-fence.ts';

const CALLS = 2000;
const dir = await mkdtemp(join(tmpdir(), 'fence-bench-'));
try {
  const fence = new LabFence(fencePath(dir, 'bench'), 0, (err) => {
    throw err;
  });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) fence.reserve(i * NUMBER_BLOCK, i * NUMBER_BLOCK + 1);
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / CALLS;
  fence.close();
  console.log(
    `reserve: ${us.toFixed(1)} µs a call (${CALLS} calls), ${((us * 1000) / NUMBER_BLOCK).toFixed(1)} ns a number`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
