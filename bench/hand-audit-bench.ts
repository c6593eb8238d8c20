// npm run bench:hand-audit [-- --students N]: what the relay's own coach costs (server/lab/hand-audit.ts,
// docs/RELIABILITY.md "What the board vouches for"). N hand-played students in a Bully lab of N + 1
// ids, each fed 600 entries (ELECTIONs delivered and her OKs, 5 ms apart: a flood a peer could
// cause); prints what an entry costs (the fold is fed one at a time), what a look costs (the relay
// looks at each student every 500 ms; median and worst of 20 rounds), and the heap per student.
import { parseArgs } from 'node:util';
import { ClassFigures } from '../server/lab/class-figures.ts';
import type { Clock } from '../server/clock/clock.ts';
import { handleHelp, usageError } from '../scripts/cli.ts';

const USAGE = `Usage: npm run bench:hand-audit -- [--students N]

Cost of the relay's coach per entry and per look for each hand-played student, and heap per student (npm runs it with --expose-gc).
  --students N   hand-played students (1 to 200; default 30)
  --help         this text`;
handleHelp(process.argv.slice(2), USAGE);
let students = '30';
try {
  students = parseArgs({ options: { students: { type: 'string', default: '30' } } }).values
    .students;
} catch (e) {
  usageError('bench:hand-audit', USAGE, e);
}
const N = Number(students);
if (!Number.isInteger(N) || N < 1 || N > 200)
  usageError('bench:hand-audit', USAGE, new Error('--students: 1 to 200'));
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const heap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

// A clock that only moves when told, whose timers never fire: the bench folds by hand.
let t = 0;
const clock: Clock = { now: () => t, setTimeout: () => null, clearTimeout: () => {} };
const ids = Array.from({ length: N + 1 }, (_, i) => i);
const config = {
  algorithm: 'bully' as const,
  ids,
  ring: [],
  timing: { transmission: 2000, processing: 50, heartbeatInterval: 500, heartbeatTimeout: 1500 },
  detector: 'none' as const,
  options: {},
  seed: 1,
};
let marks = 0;
const before = heap();
const figures = new ClassFigures({
  clock,
  config: () => config,
  journal: () => marks++,
  onError: (e) => {
    throw e;
  },
});
for (let id = 1; id <= N; id++) figures.start(id);
// 600 entries each: ELECTIONs from the lower id 0 and her OKs, 5 ms apart.
const fed = performance.now();
for (let k = 0; k < 300; k++) {
  t += 5;
  for (let id = 1; id <= N; id++) {
    figures.delivered(id, 0, JSON.stringify({ type: 'ELECTION', election: k + 1 }));
    figures.sent(id, 0, { type: 'OK', election: k + 1 });
  }
}
const perEntry = ((performance.now() - fed) * 1000) / (600 * N);
const held = heap() - before;
const rounds: number[] = [];
for (let r = 0; r < 20; r++) {
  t += 500;
  const start = performance.now();
  // The relay looks from each audit's timer (which never fires here): by hand.
  figures.judgeAll();
  rounds.push((performance.now() - start) / N);
}
rounds.sort((a, b) => a - b);
console.log(`${N} hand-played students in a Bully lab of ${N + 1} ids, 600 entries each`);
console.log(`an entry: ${perEntry.toFixed(1)} µs`);
console.log(
  `a look per student: median ${(rounds[10]! * 1000).toFixed(1)} µs, worst ${(rounds[19]! * 1000).toFixed(1)} µs (every 500 ms: ${((rounds[10]! * N) / 5).toFixed(2)} % of one core for the class)`,
);
console.log(`heap held by the audits: ${(held / N / 1024).toFixed(0)} KiB per student`);
console.log(`marks journaled: ${marks}`);
figures.dispose();
