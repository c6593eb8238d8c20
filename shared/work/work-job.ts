// The job of 003's work schedule: K independent tasks with checkable results, and the fencing
// token every order carries. Pure: a task is "count the primes in [a, b)"; the job's answer key
// is counted once, so a wrong or forged result is detected (a real job would check a
// certificate instead).
import type { ProcessId } from '../algorithms/algorithm.ts';
import type { Workload } from '../protocol/lab-config.ts';

type Sharing = 'static' | 'dynamic';

export interface WorkJob {
  /** How many tasks (ids 0..tasks-1). */
  tasks: number;
  /** Task i counts the primes in [i*size, (i+1)*size). */
  size: number;
  /** Virtual ms one task of this size takes on a machine of speed factor 1. */
  taskMs: number;
  sharing: Sharing;
  /** Workers and the analyser refuse orders stamped with a token older than the newest they saw. */
  fencing: boolean;
  /** Per-process slow factor (absent: 1): its tasks take taskMs x factor. */
  slow: Readonly<Record<ProcessId, number>>;
}

export const DEFAULT_JOB: WorkJob = {
  tasks: 12,
  size: 1000,
  taskMs: 400,
  sharing: 'dynamic',
  fencing: true,
  slow: {},
};

/** A lab's workload (shared/protocol/lab-config.ts) as the layer's job. */
export function jobOf(w: Workload): WorkJob {
  const slow: Record<ProcessId, number> = {};
  for (const s of w.slow) slow[s.id] = s.factor;
  return {
    tasks: w.tasks,
    size: w.size,
    taskMs: w.taskMs,
    sharing: w.sharing,
    fencing: w.fencing,
    slow,
  };
}

export const isTask = (job: WorkJob, t: number): boolean =>
  Number.isInteger(t) && t >= 0 && t < job.tasks;

/** How long `self` works on one task, virtual ms. */
export function taskTime(job: WorkJob, self: ProcessId): number {
  const f = job.slow[self];
  return job.taskMs * (typeof f === 'number' && f > 0 ? f : 1);
}

/**
 * Every task's answer (the primes in [i*size, (i+1)*size)), computed once when the layer is
 * composed (withWork) with a sieve: a worker's computing is modelled by virtual time, and every
 * check is then a lookup, not a recount.
 */
export function answerKey(job: WorkJob): readonly number[] {
  const end = job.tasks * job.size;
  const composite = new Uint8Array(end + 1);
  const key = new Array<number>(job.tasks).fill(0);
  for (let x = 2; x < end; x++) {
    if (composite[x]) continue;
    key[Math.floor(x / job.size)]!++;
    for (let m = x * x; m < end; m += x) composite[m] = 1;
  }
  return key;
}

/** True when `value` is the task's answer in `key` (a wrong or forged result is refused by this). */
export const checks = (key: readonly number[], task: number, value: number): boolean =>
  Number.isInteger(task) && key[task] === value;

// A token is (epoch, coordinator id) in one number: epochs order offices, the id breaks a tie
// between two coordinators that took office in the same epoch on two sides of a partition.
const ID_SPAN = 2 ** 20; // above the relay's largest id (1,000,000)

export const makeToken = (epoch: number, id: ProcessId): number => epoch * ID_SPAN + id;
export const epochOf = (token: number): number => Math.floor(token / ID_SPAN);
