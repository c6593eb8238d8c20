// A work schedule run in the simulator: the election algorithm composed with the work layer,
// the fault schedule, and the audit's figures. The one entry for the CLI, the tests and the bench.
import type { Algorithm, ProcessId } from '../algorithms/algorithm.ts';
import { simulate, type SimulationResult, type SimulationSpec } from '../sim/simulator.ts';
import { WorkAudit, type TaskFigures } from './work-audit.ts';
import type { WorkJob } from './work-job.ts';
import { withWork } from './with-work.ts';

export interface WorkRun {
  result: SimulationResult;
  tasks: TaskFigures;
  countedTwice: number;
}

/** Runs `spec` with its algorithm doing `job`; the spec's crashes, recoveries and partitions apply. */
export function simulateWork(spec: SimulationSpec & { algorithm: Algorithm<any, any> }, job: WorkJob): WorkRun {
  const audit = new WorkAudit(job.tasks);
  const result = simulate({ ...spec, algorithm: withWork(spec.algorithm, job), observe: audit.observe });
  return { result, tasks: audit.figures(), countedTwice: audit.countedTwice() };
}

/** A virtual horizon long enough for the job on the slowest share, plus elections. */
export function workHorizon(job: WorkJob, ids: readonly ProcessId[]): number {
  const slowest = Math.max(1, ...Object.values(job.slow));
  const share = Math.ceil(job.tasks / Math.max(1, ids.length - 2));
  return 20_000 + share * job.taskMs * slowest * 2;
}
