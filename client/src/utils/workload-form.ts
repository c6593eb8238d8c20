// The instructor's workload form (003's work schedule) to and from the lab's `workload`
// (shared/protocol/lab-config.ts): the slow factors are typed as "ID:FACTOR, ..." like
// simulate's --slow. Pure; the form only draws it.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import { MAX_TASKS, WorkloadSchema, type Workload } from '@shared/protocol/lab-config.ts';
import { DEFAULT_JOB } from '@shared/work/work-job.ts';

export interface WorkloadFields {
  /** Off: the election alone (the update sends workload: null). */
  on: boolean;
  tasks: number;
  size: number;
  taskMs: number;
  sharing: Workload['sharing'];
  fencing: boolean;
  /** "ID:FACTOR, ..." */
  slow: string;
}

export function fieldsOf(w: Workload | undefined): WorkloadFields {
  const base = w ?? {
    tasks: DEFAULT_JOB.tasks,
    size: DEFAULT_JOB.size,
    taskMs: DEFAULT_JOB.taskMs,
    sharing: DEFAULT_JOB.sharing,
    fencing: DEFAULT_JOB.fencing,
    slow: [],
  };
  return {
    on: !!w,
    tasks: base.tasks,
    size: base.size,
    taskMs: base.taskMs,
    sharing: base.sharing,
    fencing: base.fencing,
    slow: base.slow.map((s) => `${s.id}:${s.factor}`).join(', '),
  };
}

/** The update's `workload` (null: none), or the first thing wrong in words. */
export function workloadOf(
  f: WorkloadFields,
  ids: readonly ProcessId[],
): { ok: true; workload: Workload | null } | { ok: false; error: string } {
  if (!f.on) return { ok: true, workload: null };
  const slow: Workload['slow'] = [];
  for (const part of f.slow
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(\d+)\s*:\s*(\d+(?:\.\d+)?)$/.exec(part);
    if (!m)
      return {
        ok: false,
        error: `Slow factors: “${part}” is not ID:FACTOR (3:4 makes 3 four times slower)`,
      };
    const id = Number(m[1]);
    const factor = Number(m[2]);
    if (!ids.includes(id))
      return { ok: false, error: `Slow factors: ${id} is not one of the lab's ids` };
    if (!(factor >= 0.1 && factor <= 100))
      return { ok: false, error: `Slow factors: ${factor} is outside 0.1 … 100` };
    if (slow.some((s) => s.id === id))
      return { ok: false, error: `Slow factors: ${id} is given twice` };
    slow.push({ id, factor });
  }
  const workload = {
    tasks: f.tasks,
    size: f.size,
    taskMs: f.taskMs,
    sharing: f.sharing,
    fencing: f.fencing,
    slow,
  };
  const parsed = WorkloadSchema.safeParse(workload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const limits: Record<string, string> = {
      tasks: `Tasks: 1 … ${MAX_TASKS}`,
      size: 'Task size: 1 … 1000 numbers',
      taskMs: 'Task time: 1 … 600000 ms',
    };
    return { ok: false, error: limits[String(issue.path[0])] ?? issue.message };
  }
  return { ok: true, workload: parsed.data };
}
