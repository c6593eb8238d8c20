// The work schedule's figures for a whole run, gathered from the processes' states as the
// simulator stores them (SimulationSpec.observe): counters are summed over every life of every
// process (a crash loses a process's own counters, not the audit's), and at the end a result
// counts as completed only if a live process keeps it as analyser.
import type { ProcessId } from '../algorithms/algorithm.ts';
import { entries } from './task-results.ts';
import { ZERO_COUNTERS, type WorkCounters, type WorkState } from './work-state.ts';

/** What `npm run simulate -- --tasks K --json` prints as `tasks`. */
export interface TaskFigures {
  total: number;
  /** Tasks whose checked result a live analyser keeps at the end. */
  completed: number;
  /** total - completed: never computed, or computed and lost with every holder. */
  lost: number;
  /** Computations beyond the first of each task (work done twice). */
  duplicates: number;
  reassigned: number;
  wrong: number;
  staleRefused: number;
  staleAccepted: number;
  /** When the last completed result reached the analyser keeping it (virtual ms); null: none. */
  makespanMs: number | null;
}

const SUMMED = ['reassigned', 'wrong', 'staleRefused', 'staleAccepted', 'computed'] as const;

export class WorkAudit {
  private readonly before = new Map<ProcessId, WorkCounters>();
  private readonly latest = new Map<ProcessId, WorkState | null>();
  private readonly sums: Record<(typeof SUMMED)[number], number> = { reassigned: 0, wrong: 0, staleRefused: 0, staleAccepted: 0, computed: 0 };
  private readonly computedTasks = new Set<number>();
  private readonly storedAt = new Map<number, number>();

  constructor(private readonly total: number) {}

  /** The simulator's observer: after every step of `id`, and null when it crashes. */
  readonly observe = (id: ProcessId, state: unknown, now: number): void => {
    if (state === null) {
      this.before.set(id, ZERO_COUNTERS);
      this.latest.set(id, null);
      return;
    }
    const s = state as WorkState;
    const prev = this.before.get(id) ?? ZERO_COUNTERS;
    if (s.c !== prev) {
      for (const k of SUMMED) this.sums[k] += Math.max(0, s.c[k] - prev[k]);
      this.before.set(id, s.c);
    }
    if (s.lastDone !== null) this.computedTasks.add(s.lastDone);
    if (s.lastStored !== null) this.storedAt.set(s.lastStored, now);
    this.latest.set(id, s);
  };

  figures(): TaskFigures {
    const kept = new Set<number>();
    for (const s of this.latest.values()) if (s) for (const [t] of entries(s.store)) kept.add(t);
    let makespan: number | null = null;
    for (const t of kept) makespan = Math.max(makespan ?? 0, this.storedAt.get(t) ?? 0);
    return {
      total: this.total,
      completed: kept.size,
      lost: this.total - kept.size,
      duplicates: this.sums.computed - this.computedTasks.size,
      reassigned: this.sums.reassigned,
      wrong: this.sums.wrong,
      staleRefused: this.sums.staleRefused,
      staleAccepted: this.sums.staleAccepted,
      makespanMs: makespan === null ? null : Math.round(makespan * 1000) / 1000,
    };
  }

  /** Results kept more than once by one analyser: 0 by construction (keyed by task), checked by the tests. */
  countedTwice(): number {
    let n = 0;
    for (const s of this.latest.values()) if (s) n += s.storeSize - entries(s.store).length;
    return n;
  }
}
