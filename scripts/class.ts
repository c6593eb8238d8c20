// npm run class -- --algorithm bully --students 30 [--think 1-4s] [--mistakes 3] [--scale 100]
//   [--seed S] [--json]
//
// A class playing by hand in virtual time (shared/coach/class-sim.ts): how long the start
// election and the election after the coordinator's crash take with this many students at this
// time scale, and who the coach marked or left behind.
import { parseArgs } from 'node:util';
import { ALGORITHM_NAMES, type AlgorithmName } from '@shared/algorithms/algorithm.ts';
import {
  runClass,
  type ClassResult,
  type ClassSpec,
  type PhaseResult,
} from '@shared/coach/class-sim.ts';
import { handleHelp, usageError } from './cli.ts';

export const CLASS_USAGE = `Usage: npm run class -- [options]

A class of simulated students playing by hand, each a hand runner with its coach, on the lab's
network model in virtual time. Each follows the coach's hints after a think time; some make one
scripted mistake (late: one answer after its deadline; extra: an election nobody asked for;
believe: a wrong coordinator). The class holds the start election, then the coordinator crashes
and the heartbeat detector tells them.

  --algorithm NAME     ${ALGORITHM_NAMES.join(' | ')} (default bully)
  --students N         class size, ids 0..N-1 (default 12, at most 200)
  --think A-Bs         think time before each click, uniform, in seconds (default 1-4s)
  --mistakes K         students who make one scripted mistake each (default 0)
  --scale S            the lab's time scale, 0.1 to 100 (default 100: UB = 21 s)
  --seed S             random seed (default 1)
  --json               print one JSON object instead of text
  --help               this text`;

export function parseClassCli(argv: string[]): { spec: ClassSpec; json: boolean } {
  const { values } = parseArgs({
    args: argv,
    options: {
      algorithm: { type: 'string', default: 'bully' },
      students: { type: 'string', default: '12' },
      think: { type: 'string', default: '1-4s' },
      mistakes: { type: 'string', default: '0' },
      scale: { type: 'string', default: '100' },
      seed: { type: 'string', default: '1' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const algorithm = values.algorithm as AlgorithmName;
  if (!ALGORITHM_NAMES.includes(algorithm))
    throw new Error(`--algorithm must be one of ${ALGORITHM_NAMES.join(', ')}`);
  const students = int(values.students, '--students', 2, 200);
  const think = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)s?$/.exec(values.think);
  if (!think || Number(think[1]) > Number(think[2]) || Number(think[2]) > 600)
    throw new Error(`--think: "${values.think}" is not a range like 1-4s (at most 600 s)`);
  const scale = Number(values.scale);
  if (!(scale >= 0.1 && scale <= 100))
    throw new Error(`--scale: "${values.scale}" is not between 0.1 and 100`);
  return {
    spec: {
      algorithm,
      students,
      think: [Number(think[1]), Number(think[2])],
      mistakes: int(values.mistakes, '--mistakes', 0, students),
      scale,
      seed: int(values.seed, '--seed', 0, 2 ** 32 - 1),
    },
    json: values.json,
  };
}

function int(s: string, what: string, min: number, max: number): number {
  const n = Number(s);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${what}: "${s}" is not a whole number from ${min} to ${max}`);
  return n;
}

const secs = (ms: number | null) => (ms === null ? 'not agreed' : `${(ms / 1000).toFixed(1)} s`);

function phaseLines(name: string, p: PhaseResult): string[] {
  const types = [...new Set([...Object.keys(p.worstCase), ...Object.keys(p.messages)])];
  return [
    `${name}: ${p.agreedAfter === null ? 'NOT AGREED within the limit' : `agreed on ${p.coordinator} after ${secs(p.agreedAfter)}`}`,
    `  messages (sent / the documents' worst case): ${types.map((t) => `${t} ${p.messages[t] ?? 0}${t in p.worstCase ? ` / ${p.worstCase[t]}` : ''}`).join(', ')}`,
    `  stuck past 2 x UB: ${p.stuck.length ? p.stuck.join(', ') : 'none'}`,
  ];
}

export function classText(r: ClassResult, wallMs: number): string {
  const s = r.spec;
  const wait = r.coordinatorWait === null ? '' : `, coordinator wait ${secs(r.coordinatorWait)}`;
  return [
    `${s.algorithm}: ${s.students} students, think ${s.think[0]}-${s.think[1]} s, ${s.mistakes} with a mistake, time scale ${s.scale} (UB ${secs(r.ub)}${wait}), seed ${s.seed}`,
    ...phaseLines('start election', r.start),
    ...(r.crash
      ? phaseLines(`after ${r.start.coordinator} crashed`, r.crash)
      : ['after the crash: not run (the start election did not agree)']),
    'students (clicks, marks, late clicks):',
    ...r.students.map(
      (st) =>
        `  ${String(st.id).padStart(3)}: ${st.clicks} clicks, ${st.marks.length} marked${st.marks.length ? ` (${[...new Set(st.marks.map((m) => m.rule))].join(', ')})` : ''}${st.lateClicks ? `, ${st.lateClicks} late` : ''}${st.mistake ? `, mistake: ${st.mistake}` : ''}`,
    ),
    `${secs(r.endTime)} virtual in ${wallMs} ms wall time`,
  ].join('\n');
}

function main(): void {
  const argv = process.argv.slice(2);
  handleHelp(argv, CLASS_USAGE);
  let parsed;
  try {
    parsed = parseClassCli(argv);
  } catch (e) {
    usageError('class', CLASS_USAGE, e);
  }
  const started = performance.now();
  const result = runClass(parsed.spec);
  const wallMs = Math.round(performance.now() - started);
  console.log(parsed.json ? JSON.stringify({ ...result, wallMs }) : classText(result, wallMs));
}

if (import.meta.url === `file://${process.argv[1]}`) main();
