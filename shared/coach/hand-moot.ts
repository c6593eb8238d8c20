// When her queued items go moot (hand-queue.ts decides which): this holds what the pass reads
// besides the queue (the detector's suspicions, when she last settled whom she believes) and
// skips a pass while nothing it reads changed and no deadline came.
import type { ProcessId, Report } from '../algorithms/algorithm.ts';
import type { CoachView } from './coach.ts';
import type { HandQueue, QueuedItem } from './hand-queue.ts';

/** What the moot pass reads besides its own books, as it is now. */
export interface MootInput {
  coach: CoachView;
  report: Report;
  self: ProcessId;
  ub: number;
  now: number;
}

export class MootPass {
  /** Coordinators the detector found silent, and when (her clock). */
  private readonly suspected = new Map<ProcessId, number>();
  /** Suspicions so far (a new one, even of the same coordinator, can make items moot). */
  private suspicions = 0;
  /** When she last changed whom she believes (her clock). */
  private settledAt: number | null = null;
  /** What the last pass read, and until when it stands. */
  private last: {
    coach: CoachView;
    items: QueuedItem[];
    report: Report;
    suspicions: number;
    until: number;
  } | null = null;

  /** She starts over: her suspicions and belief go (the count of suspicions keeps growing). */
  reset(): void {
    this.last = null;
    this.suspected.clear();
    this.settledAt = null;
  }

  suspect(leader: ProcessId, at: number): void {
    this.suspected.set(leader, at);
    this.suspicions++;
  }

  settled(at: number | null): void {
    this.settledAt = at;
  }

  /** Moot items go, judged against what the coach still owes; true when any went. */
  run(items: HandQueue, x: MootInput): boolean {
    const before = items.items;
    // Mootness reads only these and the items' UB deadlines: while none changed and no deadline
    // came, the last pass stands (a class of 30 spent a sixth of its time passing again).
    const e = this.last;
    if (
      e &&
      e.coach === x.coach &&
      e.items === before &&
      e.report === x.report &&
      e.suspicions === this.suspicions &&
      x.now < e.until
    )
      return false;
    const c = x.coach;
    const owed = new Set([...c.suggestions, ...c.owed].map((s) => `${s.to}:${s.message.type}`));
    items.expire({
      now: x.now,
      ub: x.ub,
      self: x.self,
      believes: x.report.coordinator,
      settledAt: this.settledAt,
      suspected: this.suspected,
      owes: (to, type) => owed.has(`${to}:${type}`),
    });
    this.last = {
      coach: c,
      items: items.items,
      report: x.report,
      suspicions: this.suspicions,
      until: items.nextDeadline(x.ub),
    };
    return items.items !== before;
  }
}
