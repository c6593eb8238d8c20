// npm run bench:held [-- --count N]: memory per message the relay holds (a paused lab), the
// figure that sizes the per-lab caps (docs/RELIABILITY.md). Sends N Bully-sized messages through
// an in-process session into a paused lab and prints the heap growth per held message, beside
// the same number of bare { at, seq } heap entries (the baseline: the queue's own cost).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EventQueue } from '@shared/sim/event-queue.ts';
import { createRelay } from '../server/relay.ts';
import { handleHelp, usageError } from '../scripts/cli.ts';

const USAGE = `Usage: npm run bench:held -- [--count N]

Heap bytes per message a paused lab holds, beside bare queue entries (npm runs it with --expose-gc).
  --count N   messages to hold (1,000 to 5,000,000; default 200,000)
  --help      this text`;
handleHelp(process.argv.slice(2), USAGE);
let count = '200000';
try {
  count = parseArgs({ options: { count: { type: 'string', default: '200000' } } }).values.count;
} catch (e) {
  usageError('bench:held', USAGE, e);
}
const N = Number(count);
if (!Number.isInteger(N) || N < 1000 || N > 5_000_000)
  usageError('bench:held', USAGE, new Error('--count: 1,000 to 5,000,000'));
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const heap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

const dir = await mkdtemp(join(tmpdir(), 'held-'));
const relay = await createRelay({
  dataDir: dir,
  token: 't',
  clientDir: null,
  bots: false,
  rateLimits: { rate: 1e9, burst: 1e9 },
  onError: () => {},
});
const made = await relay.labs.create({
  name: 'held',
  size: 1000,
  detector: 'none',
  fabric: { link: { delay: 1000 } },
  limits: { maxHeld: 5_000_000 },
} as never);
if (!made.ok) throw new Error(made.error.message);
const lab = made.value;
lab.scheduler.pause();
const session = relay.session({
  id: -1,
  transport: 'server',
  sendText: () => {},
  overloaded: () => false,
  close: () => {},
});
session.onFrame({ type: 'join', lab: 'held', id: 0 }, false);
await lab.deps.store.flush();
const before = heap();
for (let i = 0; i < N; i++) {
  session.onFrame(
    { type: 'send', to: 1 + (i % 999), message: { type: 'ELECTION', election: 1, term: 3 } },
    false,
  );
  // Let the trace writer drain, so only what is held stays on the heap.
  if (i % 20_000 === 0) await lab.deps.store.flush();
}
await lab.deps.store.flush();
const after = heap();
const held = lab.scheduler.size;

const q = new EventQueue<{ at: number; seq: number }>();
const q0 = heap();
for (let i = 0; i < N; i++) q.push({ at: i });
const q1 = heap();

console.log(
  `held ${held.toLocaleString('en')} messages: ${((after - before) / held).toFixed(0)} bytes each on the heap; bare queue entries: ${((q1 - q0) / N).toFixed(0)} bytes each; ratio ${((after - before) / held / ((q1 - q0) / N)).toFixed(1)}x`,
);
await relay.close();
await rm(dir, { recursive: true, force: true });
