// A work schedule run in the simulator: the election algorithm composed with the work layer,
// the fault schedule, and the audit's figures. The one entry for the CLI, the tests and the bench.
import type { ProcessId } from '../algorithms/algorithm.ts';
import { simulate, type SimulationResult, type SimulationSpec } from '../sim/simulator.ts';
import { WorkAudit, type TaskFigures } from './work-audit.ts';
import type { WorkJob } from './work-job.ts';
import { withWork } from './with-work.ts';

export interface WorkRun {
  result: SimulationResult;
  tasks: TaskFigures;
  countedTwice: number;
}

/** `spec` with its algorithm doing `job`, and the audit that watches it. */
export function workSpec(
  spec: SimulationSpec,
  job: WorkJob,
): { spec: SimulationSpec; audit: WorkAudit } {
  const audit = new WorkAudit(job.tasks);
  return {
    spec: { ...spec, algorithm: withWork(spec.algorithm, job), observe: audit.observe },
    audit,
  };
}

/** Runs `spec` with its algorithm doing `job`; the spec's crashes, recoveries and partitions apply. */
export function simulateWork(spec: SimulationSpec, job: WorkJob): WorkRun {
  const w = workSpec(spec, job);
  const result = simulate(w.spec);
  return { result, tasks: w.audit.figures(), countedTwice: w.audit.countedTwice() };
}

/** A virtual horizon long enough for the job on the slowest share, plus elections. */
export function workHorizon(job: WorkJob, ids: readonly ProcessId[]): number {
  const slowest = Math.max(1, ...Object.values(job.slow));
  const share = Math.ceil(job.tasks / Math.max(1, ids.length - 2));
  return 20_000 + share * job.taskMs * slowest * 2;
}
