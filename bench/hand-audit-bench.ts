// npm run bench:hand-audit [-- --students N]: what the relay's own coach costs (server/lab/hand-audit.ts,
// docs/RELIABILITY.md "What the board vouches for"), in two labs in one run. N hand-played students
// in a Bully lab of N + 1 ids:
// - the election alone: each fed 600 entries (ELECTIONs delivered and her OKs, 5 ms apart: a flood
//   a peer could cause);
// - with a workload (003's work schedule, docs/WORK_SCHEDULE.md): each a worker fed 900 entries, a
//   task every 5 ms (the order delivered, her accepting it, her result for the one before), so
//   the shadow runs the work layer on top of the election.
// Prints what an entry costs (the fold is fed one at a time), what a look costs (the relay looks at
// each student every 500 ms; median and worst of 20 rounds), the heap per student, and the
// workload's ratios against the election alone.
import { parseArgs } from 'node:util';
import { ClassFigures } from '../server/lab/class-figures.ts';
import type { Clock } from '../server/clock/clock.ts';
import type { Workload } from '../shared/protocol/lab-config.ts';
import { answerKey, jobOf, makeToken } from '../shared/work/work-job.ts';
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
const ROUNDS = 300;
/** One task per round, each 1 ms of work: done by the next round, 5 ms later. */
const WORKLOAD: Workload = {
  tasks: ROUNDS,
  size: 10,
  taskMs: 1,
  sharing: 'dynamic',
  fencing: true,
  slow: [],
};

interface Figures {
  entries: number;
  perEntry: number;
  lookMedian: number;
  lookWorst: number;
  heapPerStudent: number;
  marks: number;
}

/** The election alone: a peer's ELECTION and her OK each round. */
function electionFeed(figures: ClassFigures, id: number, k: number): number {
  figures.delivered(id, 0, JSON.stringify({ type: 'ELECTION', election: k + 1 }));
  figures.sent(id, 0, { type: 'OK', election: k + 1 });
  return 2;
}

const KEY = answerKey(jobOf(WORKLOAD));
/** The coordinator of the workload's lab: the highest id, played by no student. */
const BOSS = N;
const TOKEN = makeToken(1, BOSS);
/**
 * A worker that does her job right: first she hears the coordinator's COORDINATOR and believes it,
 * then each round her result for the last task, the next order, her accepting it (a status naming it).
 */
function workFeed(figures: ClassFigures, id: number, k: number): number {
  let n = 0;
  if (k === 0) {
    figures.delivered(id, BOSS, JSON.stringify({ type: 'COORDINATOR' }));
    figures.reported(id, { role: 'follower', coordinator: BOSS, electing: false });
    n++;
  } else {
    const value = KEY[k - 1]!;
    figures.sent(id, BOSS, { type: 'WORK_RESULT', token: TOKEN, task: k - 1, value });
    n++;
  }
  const order = { type: 'WORK_ASSIGN', token: TOKEN, task: k, reportTo: BOSS };
  figures.delivered(id, BOSS, JSON.stringify(order));
  figures.sent(id, BOSS, { type: 'WORK_STATUS', token: TOKEN, task: k, boot: 0 });
  return n + 2;
}

function measure(
  workload: Workload | undefined,
  feed: (f: ClassFigures, id: number, k: number) => number,
  students: readonly number[],
): Figures {
  const config = {
    algorithm: 'bully' as const,
    ids,
    ring: [],
    timing: { transmission: 2000, processing: 50, heartbeatInterval: 500, heartbeatTimeout: 1500 },
    detector: 'none' as const,
    options: {},
    seed: 1,
    ...(workload ? { workload } : {}),
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
  for (const id of students) figures.start(id);
  let entries = 0;
  const fed = performance.now();
  for (let k = 0; k < ROUNDS; k++) {
    t += 5;
    for (const id of students) entries += feed(figures, id, k);
  }
  const perEntry = ((performance.now() - fed) * 1000) / entries;
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
  figures.dispose();
  return {
    entries: entries / N,
    perEntry,
    lookMedian: rounds[10]! * 1000,
    lookWorst: rounds[19]! * 1000,
    heapPerStudent: held / N / 1024,
    marks,
  };
}

function print(name: string, f: Figures): void {
  console.log(`${name}: ${f.entries} entries each`);
  console.log(`  an entry: ${f.perEntry.toFixed(1)} µs`);
  console.log(
    `  a look per student: median ${f.lookMedian.toFixed(1)} µs, worst ${f.lookWorst.toFixed(1)} µs (every 500 ms: ${((f.lookMedian * N) / 5000).toFixed(2)} % of one core for the class)`,
  );
  console.log(`  heap held by the audits: ${f.heapPerStudent.toFixed(0)} KiB per student`);
  console.log(`  marks journaled: ${f.marks}`);
}

console.log(`${N} hand-played students in a Bully lab of ${N + 1} ids`);
// Each case once before it is measured: the JIT warms on both, so the first measured is not the colder.
for (let warm = 0; warm < 2; warm++) {
  measure(
    undefined,
    electionFeed,
    ids.filter((id) => id !== 0),
  );
  measure(
    WORKLOAD,
    workFeed,
    ids.filter((id) => id !== BOSS),
  );
}
// The election alone: students 1..N, the peer 0 below them all; with the workload: students
// 0..N-1, the coordinator N above them all. The same lab size either way.
const alone = measure(
  undefined,
  electionFeed,
  ids.filter((id) => id !== 0),
);
print('the election alone', alone);
const work = measure(
  WORKLOAD,
  workFeed,
  ids.filter((id) => id !== BOSS),
);
print(`with a workload (${ROUNDS} tasks, dynamic sharing, fencing on; each a worker)`, work);
console.log(
  `workload / election alone: an entry x${(work.perEntry / alone.perEntry).toFixed(2)}, a look x${(work.lookMedian / alone.lookMedian).toFixed(2)}, heap x${(work.heapPerStudent / alone.heapPerStudent).toFixed(2)}`,
);
