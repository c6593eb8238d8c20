// What a lab takes in from its processes before anything is recorded, and how much of it the
// trace journals: the lab's byte budget (with the sender address's, rate-limit.ts), a trace that
// is behind its disk (trace-store.ts), and the per-id cap on journaled faults (deviations: class-figures.ts).
// The caps belong to the id until the lab is reset, so leaving and rejoining does not start
// them over.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { Clock } from '../clock/clock.ts';
import { Counters } from './counters.ts';
import { TokenBucket, type RateLimits } from './rate-limit.ts';
import type { TraceStore } from '../trace/trace-store.ts';

/** Why a message was refused before anything was recorded (the sender is told; `refused` counts it). */
export type SendRefusal = 'too-large' | 'address-budget' | 'lab-budget' | 'trace-behind';

/** Fault events journaled per id until a reset; past it they are only counted. */
const MAX_FAULT_EVENTS = 20;

export class LabIntake {
  /** Messages refused before they were recorded, by reason (the lab's stats). */
  readonly refused = new Counters();
  private readonly bytesIn: TokenBucket | null;
  /** Fault events journaled per id. */
  private readonly faults = new Map<ProcessId, number>();

  constructor(
    private readonly store: TraceStore,
    clock: Clock,
    /** Message bytes a second into the lab, all senders together; absent: no lab budget. */
    byteLimits: RateLimits | undefined,
  ) {
    this.bytesIn = byteLimits ? new TokenBucket(byteLimits, () => clock.now()) : null;
  }

  /**
   * Whether a message of `bytes` may come in now: the trace keeps up, and both byte budgets (the
   * sender address's, the lab's) have room; only then are both charged. A refusal is counted.
   */
  admit(bytes: number, sender: TokenBucket | undefined): SendRefusal | null {
    let refusal: SendRefusal | null = null;
    if (this.store.behind) refusal = 'trace-behind';
    else if (sender && !sender.has(bytes)) refusal = 'address-budget';
    else if (this.bytesIn && !this.bytesIn.take(bytes)) refusal = 'lab-budget';
    if (refusal) this.refused.inc(refusal);
    else sender?.spend(bytes);
    return refusal;
  }

  /** Whether one more fault event by `id` may be journaled: at most MAX_FAULT_EVENTS per id until a reset. */
  journalFault(id: ProcessId): boolean {
    const n = (this.faults.get(id) ?? 0) + 1;
    this.faults.set(id, n);
    return n <= MAX_FAULT_EVENTS;
  }

  /** A fresh timeline (lab reset): the per-id caps start over. */
  clear(): void {
    this.faults.clear();
  }
}
