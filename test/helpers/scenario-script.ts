// Scenario scripts (etcd raft's testdata style): a few lines of setup and steps, run in the
// deterministic simulator, and the whole trace it gives, one line per event, in the same file
// after a separator line `----`. test/unit/scenario-scripts.test.ts runs every test/scenarios/*.txt
// (the older whole-trace snapshots, *.trace.txt, excepted) and compares the trace;
// `UPDATE_SCENARIOS=1 npx vitest run test/unit/scenario-scripts.test.ts` writes the traces afresh, to
// be reviewed as a diff.
//
// Setup (before the first step):
//   algorithm bully              bully | ring | ring-active-list | emergent | raft
//   nodes 0..7                   ids: a range, or a list 1,2,5
//   ring 1,2,3,4                 ring order (default: ascending ids)
//   coordinator 7 | none         the agreed coordinator at start (default: the highest id);
//                                none: every process starts fresh and holds an election
//   detector none                heartbeat | poll | none (default heartbeat)
//   link delay=100 jitter=0 drop=0 duplicate=0   the network (default delay 100, nothing else)
//   link 2->3 delay=1            one directed link's overrides
//   timing heartbeatInterval=500 heartbeatTimeout=1500 transmission=100 processing=10
//   option name=value            an algorithm option (numbers and true/false are read as such)
//   seed 1
//   work tasks=4 task-ms=400 sharing=dynamic fencing=on slow=1:3   run 003's work schedule
//                                (shared/work/) over the election; every key optional
//                                (defaults: shared/work/work-job.ts's DEFAULT_JOB)
// Steps (at the script's clock, which starts at 0 ms):
//   crash 7 | recover 7 | elect 4    one id or a list (4,5)
//   partition 0,1 | 2,3          groups; ids in no group share one more group
//   heal                         the partition ends
//   advance 500ms | advance 2s   the clock moves on; everything due meanwhile happens
//   deliver-all                  the clock moves on (timers fire too) until no message is in
//                                flight, then 1 ms more, so the next step follows the last delivery
//   settle                       the clock moves on until nothing is due at all (no message, no
//                                timer: a run without a failure detector ends), then 1 ms more
// `#` starts a comment. Steps at one instant run crashes, then recoveries, elections and
// partitions (the simulator's order); a script that writes them otherwise is refused.
import type { ProcessId, Timing } from '@shared/algorithms/algorithm.ts';
import { ALGORITHM_NAMES, type AlgorithmName } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { simulate, type LinkModel, type SimulationSpec } from '@shared/sim/simulator.ts';
import { renderTrace } from '@shared/protocol/trace-format.ts';
import { DEFAULT_JOB, type WorkJob } from '@shared/work/work-job.ts';
import { withWork } from '@shared/work/with-work.ts';

export const SEPARATOR = '----';

export interface ScenarioFile {
  /** The script: everything before the separator line, as written. */
  script: string;
  /** The expected trace after it ('' when there is none yet). */
  expected: string;
}

export function splitScenario(text: string): ScenarioFile {
  const lines = text.split('\n');
  const at = lines.indexOf(SEPARATOR);
  if (at < 0) return { script: text.endsWith('\n') ? text : `${text}\n`, expected: '' };
  return { script: lines.slice(0, at).join('\n') + '\n', expected: lines.slice(at + 1).join('\n') };
}

export function joinScenario(f: ScenarioFile): string {
  return `${f.script}${SEPARATOR}\n${f.expected}`;
}

/** The order the simulator runs scheduled events of one instant in. */
const ORDER = { crash: 0, recover: 1, elect: 2, partition: 3 } as const;

class ScriptError extends Error {}

/** A compiled script: the simulator's spec and, with `work`, the job and the election under it. */
export type ScenarioSpec = SimulationSpec & {
  work?: { job: WorkJob; election: SimulationSpec['algorithm'] };
};

/** Compiles a script to the simulator's spec; throws with the line number on a mistake. */
export function compileScenario(script: string): ScenarioSpec {
  let algorithm: AlgorithmName | null = null;
  let ids: ProcessId[] | null = null;
  let job: WorkJob | null = null;
  const spec: Omit<SimulationSpec, 'algorithm' | 'ids'> & {
    link: Partial<LinkModel>;
    links: Record<string, Partial<LinkModel>>;
    timing: Partial<Timing>;
    options: Record<string, unknown>;
  } = {
    link: {},
    links: {},
    timing: {},
    options: {},
    crashes: [],
    recoveries: [],
    elections: [],
    partitions: [],
  };
  let clock = 0;
  let stepping = false;
  let last: { at: number; order: number } = { at: -1, order: -1 };
  const lines = script.split('\n');

  const full = (): ScenarioSpec => {
    if (!algorithm || !ids)
      throw new ScriptError('a script needs `algorithm` and `nodes` before its first step');
    const election = getAlgorithm(algorithm);
    if (!job) return { ...spec, algorithm: election, ids, until: clock };
    return {
      ...spec,
      algorithm: withWork(election, job),
      ids,
      until: clock,
      work: { job, election },
    };
  };
  const step = (kind: keyof typeof ORDER) => {
    if (!stepping) full();
    stepping = true;
    const order = ORDER[kind];
    if (last.at === clock && order < last.order)
      throw new ScriptError(
        `\`${kind}\` after a later kind of step at the same instant: put an \`advance\` between them`,
      );
    last = { at: clock, order };
  };

  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.replace(/#.*/, '').trim();
    if (!line) continue;
    const [word, ...rest] = line.split(/\s+/);
    const arg = rest.join(' ');
    try {
      if (stepping && SETUP.has(word!))
        throw new ScriptError(`\`${word}\` is setup: it goes before the first step`);
      switch (word) {
        case 'algorithm':
          if (!(ALGORITHM_NAMES as readonly string[]).includes(arg))
            throw new ScriptError(`unknown algorithm ${arg}`);
          algorithm = arg as AlgorithmName;
          break;
        case 'nodes':
          ids = idList(arg);
          break;
        case 'ring':
          spec.ring = idList(arg);
          break;
        case 'coordinator':
          spec.initialCoordinator = arg === 'none' ? null : id(arg);
          break;
        case 'detector':
          if (arg !== 'heartbeat' && arg !== 'poll' && arg !== 'none')
            throw new ScriptError(`unknown detector ${arg}`);
          spec.detector = arg;
          break;
        case 'link': {
          const m = /^(\d+)->(\d+)\s+(.*)$/.exec(arg);
          if (m)
            spec.links[`${m[1]}->${m[2]}`] = {
              ...spec.links[`${m[1]}->${m[2]}`],
              ...numbers(m[3]!, LINK_KEYS),
            };
          else Object.assign(spec.link, numbers(arg, LINK_KEYS));
          break;
        }
        case 'timing':
          Object.assign(spec.timing, numbers(arg, TIMING_KEYS));
          break;
        case 'option': {
          const m = /^([A-Za-z][\w-]*)=(\S+)$/.exec(arg);
          if (!m) throw new ScriptError('option name=value');
          const v = m[2]!;
          spec.options[m[1]!] =
            v === 'true'
              ? true
              : v === 'false'
                ? false
                : Number.isFinite(Number(v))
                  ? Number(v)
                  : v;
          break;
        }
        case 'work':
          job = workJob(arg);
          break;
        case 'seed':
          spec.seed = Number(arg);
          if (!Number.isInteger(spec.seed)) throw new ScriptError('seed: a whole number');
          break;
        case 'crash':
        case 'recover':
        case 'elect':
          step(word);
          for (const i of idList(arg))
            (word === 'crash'
              ? spec.crashes!
              : word === 'recover'
                ? spec.recoveries!
                : spec.elections!
            ).push({ id: i, at: clock });
          break;
        case 'partition':
          step('partition');
          spec.partitions!.push({ at: clock, groups: arg.split('|').map((g) => idList(g.trim())) });
          break;
        case 'heal':
          step('partition');
          spec.partitions!.push({ at: clock, groups: null });
          break;
        case 'advance':
          if (!stepping) full();
          stepping = true;
          clock += duration(arg);
          break;
        case 'deliver-all':
        case 'settle':
          if (!stepping) full();
          stepping = true;
          clock = (word === 'settle' ? idleAfter : quietAfter)(full(), clock) + 1;
          break;
        default:
          throw new ScriptError(`unknown command \`${word}\``);
      }
    } catch (err) {
      if (err instanceof ScriptError) throw new Error(`line ${n + 1}: ${err.message}`);
      throw err;
    }
  }
  return full();
}

const SETUP = new Set([
  'algorithm',
  'nodes',
  'ring',
  'coordinator',
  'detector',
  'link',
  'timing',
  'option',
  'seed',
  'work',
]);

function workJob(arg: string): WorkJob {
  const job = { ...DEFAULT_JOB, slow: {} as Record<number, number> };
  for (const pair of arg.split(/\s+/).filter(Boolean)) {
    const [k, v = ''] = pair.split('=');
    if (k === 'tasks' || k === 'task-ms' || k === 'size') {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new ScriptError(`work ${k}: a whole number above 0`);
      if (k === 'tasks') job.tasks = n;
      else if (k === 'size') job.size = n;
      else job.taskMs = n;
    } else if (k === 'sharing' && (v === 'static' || v === 'dynamic')) job.sharing = v;
    else if (k === 'fencing' && (v === 'on' || v === 'off')) job.fencing = v === 'on';
    else if (k === 'slow')
      for (const s of v.split(',')) job.slow[id(s.split(':')[0]!)] = Number(s.split(':')[1]);
    else
      throw new ScriptError(
        `work: tasks= task-ms= size= sharing=static|dynamic fencing=on|off slow=ID:F,... ; got ${pair}`,
      );
  }
  return job;
}
const LINK_KEYS = ['delay', 'jitter', 'drop', 'duplicate'] as const;
const TIMING_KEYS = [
  'transmission',
  'processing',
  'heartbeatInterval',
  'heartbeatTimeout',
] as const;

function id(s: string): ProcessId {
  const n = Number(s.trim());
  if (!Number.isInteger(n) || n < 0) throw new ScriptError(`not an id: ${s}`);
  return n;
}

function idList(s: string): ProcessId[] {
  const range = /^(\d+)\.\.(\d+)$/.exec(s.trim());
  if (range) {
    const [a, b] = [Number(range[1]), Number(range[2])];
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  }
  return s.split(',').map(id);
}

function numbers<K extends string>(s: string, keys: readonly K[]): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const pair of s.split(/\s+/)) {
    const [k, v] = pair.split('=');
    if (!keys.includes(k as K) || v === undefined || !Number.isFinite(Number(v)))
      throw new ScriptError(`expected ${keys.join('|')}=<number>, got ${pair}`);
    out[k as K] = Number(v);
  }
  return out;
}

function duration(s: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(s.trim());
  if (!m) throw new ScriptError(`a duration is like 500ms or 2s, got ${s}`);
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
}

/** The longest `deliver-all` waits for the network to empty, virtual ms. */
const QUIET_LIMIT = 600_000;

/** The first instant at or after `from` when, with every event up to it done, no message is in flight. */
function quietAfter(spec: SimulationSpec, from: number): number {
  const { trace } = simulate({ ...spec, until: from + QUIET_LIMIT });
  let inFlight = 0;
  for (let i = 0; i < trace.length; i++) {
    const e = trace[i]!;
    if (e.kind === 'send' || e.kind === 'duplicate') inFlight++;
    else if (e.kind === 'deliver' || e.kind === 'drop') inFlight--;
    const instantDone = i + 1 === trace.length || trace[i + 1]!.t > e.t;
    if (instantDone && e.t >= from && inFlight === 0) return e.t;
  }
  if (inFlight === 0) return from;
  throw new ScriptError(`deliver-all: messages still in flight ${QUIET_LIMIT} ms later`);
}

/** When the run has nothing more to do (its queue is empty) after `from`. */
function idleAfter(spec: SimulationSpec, from: number): number {
  const r = simulate({ ...spec, until: from + QUIET_LIMIT, trace: false });
  if (r.truncated)
    throw new ScriptError(
      `settle: still busy ${QUIET_LIMIT} ms later (a failure detector never rests: use advance or deliver-all)`,
    );
  return Math.max(from, r.endTime);
}

/** Runs a script: the trace, one line per event. */
export function runScenario(script: string): string {
  return renderTrace(simulate(compileScenario(script)).trace);
}
