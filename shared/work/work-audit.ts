// The work schedule's figures for a whole run, gathered from the processes' states as the
// simulator stores them (SimulationSpec.observe): counters are summed over every life of every
// process (a crash loses a process's own counters, not the audit's), and at the end a result
// counts as completed only if a live process keeps it as analyser.
import type { ProcessId } from '../algorithms/algorithm.ts';
import { entries } from './task-results.ts';
import { TALLIED, TaskTally, type TaskFigures } from './task-tally.ts';
import { ZERO_COUNTERS, type WorkCounters, type WorkState } from './work-state.ts';

export type { TaskFigures } from './task-tally.ts';

export class WorkAudit {
  private readonly before = new Map<ProcessId, WorkCounters>();
  private readonly latest = new Map<ProcessId, WorkState | null>();
  private readonly tally = new TaskTally();

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
      for (const k of TALLIED) this.tally.add(k, s.c[k] - prev[k]);
      this.before.set(id, s.c);
    }
    if (s.lastDone !== null) this.tally.markComputed(s.lastDone);
    if (s.lastStored !== null) this.tally.stored(s.lastStored, now);
    this.latest.set(id, s);
  };

  figures(): TaskFigures {
    const kept = new Set<number>();
    for (const s of this.latest.values()) if (s) for (const [t] of entries(s.store)) kept.add(t);
    return this.tally.figures(this.total, kept);
  }

  /** Results kept more than once by one analyser: 0 by construction (keyed by task), checked by the tests. */
  countedTwice(): number {
    let n = 0;
    for (const s of this.latest.values()) if (s) n += s.storeSize - entries(s.store).length;
    return n;
  }
}
