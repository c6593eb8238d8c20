// The simulate command's work-schedule and fault-schedule options (issue 27), kept apart from
// scripts/simulate.ts so that it only spreads them in: --tasks runs 003's work schedule over the
// election (shared/work/), --crash-at/--recover-at/--partition-at/--heal-at schedule faults in
// virtual time, with or without --tasks.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { SimulationSpec } from '@shared/sim/simulator.ts';
import type { WorkAudit } from '@shared/work/work-audit.ts';
import { MAX_TASKS } from '@shared/protocol/lab-config.ts';
import { DEFAULT_JOB, type WorkJob } from '@shared/work/work-job.ts';
import { workHorizon, workSpec } from '@shared/work/work-sim.ts';

export const WORK_USAGE = `  --tasks K            run 003's work schedule: K tasks (count the primes in 1,000 numbers each)
  --sharing MODE       dynamic | static (default dynamic)
  --fencing on|off     refuse orders with an old token (default on)
  --task-ms MS         virtual time of one task on a machine of factor 1 (default ${DEFAULT_JOB.taskMs})
  --slow ID:F,...      these processes work F times slower
  --crash-at ID@MS,... crash these processes at these virtual times (also without --tasks)
  --recover-at ID@MS,... recover them
  --partition-at MS:0,1,5|2,3,4   cut the lab into these groups at MS; --heal-at MS ends it`;

export const WORK_ARGS = {
  tasks: { type: 'string' },
  sharing: { type: 'string' },
  fencing: { type: 'string' },
  'task-ms': { type: 'string' },
  slow: { type: 'string' },
  'crash-at': { type: 'string' },
  'recover-at': { type: 'string' },
  'partition-at': { type: 'string' },
  'heal-at': { type: 'string' },
} as const;

export interface WorkCli {
  job: WorkJob | null;
  crashAt: { id: ProcessId; at: number }[];
  recoverAt: { id: ProcessId; at: number }[];
  partitions: { at: number; groups: ProcessId[][] | null }[];
}

type Values = Partial<Record<keyof typeof WORK_ARGS, string>>;

export function parseWorkCli(v: Values, ids: readonly ProcessId[]): WorkCli {
  const known = (id: number, what: string) => {
    if (!ids.includes(id)) throw new Error(`${what}: id ${id} is not among the lab's ids`);
    return id;
  };
  const timed = (s: string | undefined, what: string) =>
    (s ? s.split(',').filter(Boolean) : []).map((pair) => {
      const m = /^(\d+)@(\d+(?:\.\d+)?)$/.exec(pair);
      if (!m) throw new Error(`${what}: "${pair}" is not ID@MS`);
      return { id: known(Number(m[1]), what), at: Number(m[2]) };
    });
  const partitions: WorkCli['partitions'] = [];
  if (v['partition-at']) {
    const m = /^(\d+(?:\.\d+)?):(.+)$/.exec(v['partition-at']);
    if (!m) throw new Error('--partition-at: MS:0,1,5|2,3,4');
    partitions.push({
      at: Number(m[1]),
      groups: m[2]!
        .split('|')
        .map((g) => g.split(',').map((x) => known(whole(x, '--partition-at'), '--partition-at'))),
    });
  }
  if (v['heal-at'] !== undefined) {
    if (partitions.length === 0) throw new Error('--heal-at needs --partition-at');
    const at = whole(v['heal-at'], '--heal-at');
    if (at <= partitions[0]!.at) throw new Error('--heal-at must come after --partition-at');
    partitions.push({ at, groups: null });
  }
  const jobOnly = ['sharing', 'fencing', 'task-ms', 'slow'] as const;
  if (v.tasks === undefined) {
    const stray = jobOnly.find((k) => v[k] !== undefined);
    if (stray) throw new Error(`--${stray} needs --tasks`);
    return {
      job: null,
      crashAt: timed(v['crash-at'], '--crash-at'),
      recoverAt: timed(v['recover-at'], '--recover-at'),
      partitions,
    };
  }
  return {
    job: jobOf(v, known),
    crashAt: timed(v['crash-at'], '--crash-at'),
    recoverAt: timed(v['recover-at'], '--recover-at'),
    partitions,
  };
}

function jobOf(v: Values, known: (id: number, what: string) => number): WorkJob {
  const tasks = whole(v.tasks!, '--tasks');
  if (tasks < 1 || tasks > MAX_TASKS) throw new Error(`--tasks must be between 1 and ${MAX_TASKS}`);
  const sharing = v.sharing ?? 'dynamic';
  if (sharing !== 'dynamic' && sharing !== 'static')
    throw new Error('--sharing must be dynamic or static');
  const fencing = v.fencing ?? 'on';
  if (fencing !== 'on' && fencing !== 'off') throw new Error('--fencing must be on or off');
  const taskMs = v['task-ms'] === undefined ? DEFAULT_JOB.taskMs : whole(v['task-ms'], '--task-ms');
  const slow: Record<number, number> = {};
  for (const pair of (v.slow ?? '').split(',').filter(Boolean)) {
    const m = /^(\d+):(\d+(?:\.\d+)?)$/.exec(pair);
    if (!m || !(Number(m[2]) > 0))
      throw new Error(`--slow: "${pair}" is not ID:FACTOR with a factor above 0`);
    slow[known(Number(m[1]), '--slow')] = Number(m[2]);
  }
  return { ...DEFAULT_JOB, tasks, sharing, fencing: fencing === 'on', taskMs, slow };
}

function whole(s: string, what: string): number {
  const n = Number(s);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${what}: "${s}" is not a non-negative number`);
  return n;
}

/** The spec with the fault schedule and, with --tasks, the work layer and its audit. */
export function applyWork(
  spec: SimulationSpec,
  w: WorkCli | undefined,
  untilGiven: boolean,
): { spec: SimulationSpec; audit: WorkAudit | null } {
  if (!w) return { spec, audit: null };
  const faulted: SimulationSpec = {
    ...spec,
    crashes: [...(spec.crashes ?? []), ...w.crashAt],
    recoveries: [...(spec.recoveries ?? []), ...w.recoverAt],
    partitions: [...(spec.partitions ?? []), ...w.partitions],
  };
  if (!w.job) return { spec: faulted, audit: null };
  const until = untilGiven
    ? faulted.until
    : Math.max(
        faulted.until ?? 0,
        workHorizon(w.job, spec.ids) +
          Math.max(0, ...w.crashAt.map((c) => c.at), ...w.partitions.map((p) => p.at)),
      );
  return workSpec({ ...faulted, until }, w.job);
}
