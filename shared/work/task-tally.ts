// The work schedule's figures, one bookkeeping for two sources: the simulator's audit reads the
// processes' states (work-audit.ts), the dashboard reads the relay's trace (client
// shared/analysis/work-board.ts). Both feed this tally and print its figures, so `npm run simulate --
// --tasks` and the Work panel count duplicates, completed results and the makespan alike.

/** What `npm run simulate -- --tasks K --json` prints as `tasks`. */
export interface TaskFigures {
  total: number;
  /** Tasks whose checked result a live analyser keeps. */
  completed: number;
  /** total - completed: never computed, or computed and lost with every holder. */
  lost: number;
  /** Computations beyond the first of each task (work done twice). */
  duplicates: number;
  reassigned: number;
  wrong: number;
  staleRefused: number;
  staleAccepted: number;
  /** When the last completed result reached the analyser keeping it (ms); null: none. */
  makespanMs: number | null;
}

export const TALLIED = [
  'reassigned',
  'wrong',
  'staleRefused',
  'staleAccepted',
  'computed',
] as const;
type Tallied = (typeof TALLIED)[number];

export class TaskTally {
  private readonly sums: Record<Tallied, number> = {
    reassigned: 0,
    wrong: 0,
    staleRefused: 0,
    staleAccepted: 0,
    computed: 0,
  };
  private readonly computedTasks = new Set<number>();
  private readonly storedAt = new Map<number, number>();

  add(k: Tallied, n = 1): void {
    this.sums[k] += Math.max(0, n);
  }

  /** A machine finished computing `task` (a second computation of a task is duplicate work). */
  computed(task: number): void {
    this.sums.computed++;
    this.markComputed(task);
  }

  /** `task` was computed at least once (for a source that counts the computations by itself). */
  markComputed(task: number): void {
    this.computedTasks.add(task);
  }

  wasComputed(task: number): boolean {
    return this.computedTasks.has(task);
  }

  /** An analyser kept `task`'s result at `now` (the latest keeping counts for the makespan). */
  stored(task: number, now: number): void {
    this.storedAt.set(task, now);
  }

  /** The figures, given the tasks live analysers keep now; `since`: when the job began (0: the run's start). */
  figures(total: number, kept: ReadonlySet<number>, since = 0): TaskFigures {
    let makespan: number | null = null;
    for (const t of kept)
      makespan = Math.max(makespan ?? 0, (this.storedAt.get(t) ?? since) - since);
    return {
      total,
      completed: kept.size,
      lost: total - kept.size,
      duplicates: this.sums.computed - this.computedTasks.size,
      reassigned: this.sums.reassigned,
      wrong: this.sums.wrong,
      staleRefused: this.sums.staleRefused,
      staleAccepted: this.sums.staleAccepted,
      makespanMs: makespan === null ? null : Math.round(makespan * 1000) / 1000,
    };
  }
}
