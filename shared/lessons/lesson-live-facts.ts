// A lesson step's run in the live lab, measured from the lab's own trace: the relay hands every
// event it journals during the run to `observe`, and `facts` gives the reveal what the simulator
// gives it (lesson-runner.ts `RunFacts`), by the simulator's own rules: an election starts at the
// first `elect` or electing report, and a process settles when its coordinator or its electing
// last changed. Times are the run's own (0 at its start, divided by the lab's time scale). With
// a work schedule, its figures are the Work panel's fold of the relayed work messages
// (work-board.ts), so a live reveal of "results lost" counts what the relay carried. Pure.
import type { ProcessId, Report } from '../algorithms/algorithm.ts';
import { WorkBoard } from '../analysis/work-board.ts';
import type { Workload } from '../protocol/lab-config.ts';
import type { TraceEvent } from '../protocol/trace.ts';
import type { RunFacts } from './lesson-runner.ts';

export class LiveRunFold {
  private readonly events: TraceEvent[] = [];
  private readonly byType: Record<string, number> = {};
  private readonly reports = new Map<ProcessId, Report | null>();
  private readonly settledAt = new Map<ProcessId, number>();
  private readonly up = new Set<ProcessId>();
  private electionStart: number | null = null;
  private readonly work: WorkBoard | null;
  /** More events than the bound: the run is not measured (as the simulator's event bound). */
  overflow = false;

  constructor(
    /** The lab's time when the run began, and its time scale (10: ten times slower). */
    private readonly t0: number,
    private readonly scale: number,
    /** Every process is up at the start, with what it reported then. */
    start: ReadonlyMap<ProcessId, Report | null>,
    private readonly maxEvents: number,
    /** The lab's work schedule, if the run has one: its task figures are folded too. */
    workload: Workload | null = null,
  ) {
    this.work = workload ? new WorkBoard(workload) : null;
    for (const [id, r] of start) {
      this.up.add(id);
      this.reports.set(id, r);
      this.settledAt.set(id, 0);
    }
  }

  observe(raw: TraceEvent): void {
    if (this.events.length >= this.maxEvents) {
      this.overflow = true;
      return;
    }
    const t = Math.round(((raw.t - this.t0) / this.scale) * 1000) / 1000;
    const e = { ...raw, t } as TraceEvent;
    this.events.push(e);
    this.work?.observe(e);
    switch (e.kind) {
      case 'send':
        this.byType[e.type] = (this.byType[e.type] ?? 0) + 1;
        return;
      case 'elect':
        this.electionStart ??= t;
        return;
      case 'report': {
        const prev = this.reports.get(e.node);
        if (
          !prev ||
          prev.coordinator !== e.report.coordinator ||
          prev.electing !== e.report.electing
        )
          this.settledAt.set(e.node, t);
        this.reports.set(e.node, e.report);
        if (e.report.electing) this.electionStart ??= t;
        return;
      }
      case 'crash':
      case 'leave':
        this.up.delete(e.node);
        return;
      case 'recover':
      case 'join':
        this.up.add(e.node);
        this.reports.set(e.node, null);
        return;
      default:
        return;
    }
  }

  /** The run so far as the reveal reads it; `end`: the lab's time at the end. */
  facts(end: number): RunFacts {
    const coordinatorByNode: Record<ProcessId, ProcessId | null> = {};
    let settled = 0;
    for (const id of this.up) {
      coordinatorByNode[id] = this.reports.get(id)?.coordinator ?? null;
      settled = Math.max(settled, this.settledAt.get(id) ?? 0);
    }
    return {
      trace: this.events,
      endTime: (end - this.t0) / this.scale,
      byType: { ...this.byType },
      coordinatorByNode,
      electionTime: this.electionStart === null ? null : Math.max(0, settled - this.electionStart),
      tasks: this.work?.view((end - this.t0) / this.scale) ?? null,
    };
  }

  get trace(): readonly TraceEvent[] {
    return this.events;
  }
}
