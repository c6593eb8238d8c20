// The relay side of the live checker (shared/analysis/checker.ts): every event a lab journals is fed to
// it, and each finding goes back into the same trace as a `finding` event, so the dashboard,
// replay and the trace file all see it. One timer per lab at most, armed for the checker's next
// deadline (a quiet period ending, an election bound, a split brain outlasting its hand-over),
// so findings appear on time even when nothing else happens.
import type { ProcessConfig } from '@shared/protocol/frames.ts';
import {
  createChecker,
  type Checker,
  type CheckerSummary,
  type Finding,
  type FindingKind,
} from '@shared/analysis/checker.ts';
import { FINDING_KINDS, RECENT_FINDINGS } from '@shared/protocol/finding.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import type { Clock } from '../clock/clock.ts';

interface LabCheckerDeps {
  clock: Clock;
  /** What the processes run: algorithm, ids, timing already scaled by the lab's time scale. */
  config: () => ProcessConfig;
  /** The lab's clock, ms since it started (the trace's `t`). */
  now: () => number;
  /** Journal a finding (the lab records it as a `finding` trace event). */
  emit: (finding: Finding) => void;
  onError: (err: unknown) => void;
}

/** What survives a reconfiguration (the timeline goes on); a reset starts from nothing. */
interface Carried {
  counts: Record<FindingKind, number>;
  spuriousElections: number;
  recent: Finding[];
}

const NOTHING: Carried = {
  counts: Object.fromEntries(FINDING_KINDS.map((k) => [k, 0])) as Record<FindingKind, number>,
  spuriousElections: 0,
  recent: [],
};

export class LabChecker {
  private checker: Checker;
  private seen: ProcessConfig;
  private key: string;
  private carried: Carried = NOTHING;
  private timer: unknown = null;
  private timerAt = Infinity;
  private disposed = false;

  constructor(private readonly deps: LabCheckerDeps) {
    this.seen = deps.config();
    this.key = keyOf(this.seen);
    this.checker = this.build();
  }

  /** Feed one journaled event. Findings are emitted through `deps.emit` (and never fed back). */
  observe(event: TraceEvent): void {
    if (event.kind === 'finding' || this.disposed) return;
    // A fault in the checker must never stop the lab from journaling: log it and go on.
    try {
      this.followConfig();
      this.publish(this.checker.observe(event, Math.max(event.t, this.deps.now())));
    } catch (err) {
      this.deps.onError(err);
    }
  }

  /** The lab's timeline starts over (reset): a fresh checker, counts cleared. */
  restart(): void {
    this.carried = NOTHING;
    this.seen = this.deps.config();
    this.key = keyOf(this.seen);
    this.checker = this.build();
    this.arm();
  }

  summary(): CheckerSummary {
    const s = this.checker.summary();
    const c = this.carried;
    const counts = { ...s.counts };
    for (const k of Object.keys(counts) as FindingKind[]) counts[k] += c.counts[k];
    return {
      ...s,
      counts,
      spuriousElections: s.spuriousElections + c.spuriousElections,
      recent: [...c.recent, ...s.recent].slice(-RECENT_FINDINGS),
    };
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private build(): Checker {
    const c = this.seen;
    return createChecker({
      algorithm: c.algorithm,
      ids: c.ids,
      timing: c.timing,
      options: c.options,
      ...(c.workload ? { workload: c.workload } : {}),
    });
  }

  /**
   * New settings (algorithm, ids, timing, options): the processes restart, so a new checker
   * starts too, carrying the counts. A fabric change that leaves them alone keeps the checker.
   */
  private followConfig(): void {
    const now = this.deps.config();
    if (now === this.seen) return;
    this.seen = now;
    const key = keyOf(now);
    if (key === this.key) return;
    this.key = key;
    const s = this.summary();
    this.carried = { counts: s.counts, spuriousElections: s.spuriousElections, recent: s.recent };
    this.checker = this.build();
  }

  private publish(findings: Finding[]): void {
    for (const f of findings) this.deps.emit(f);
    this.arm();
  }

  /**
   * One timer, for the checker's next deadline. It is re-armed only when that deadline comes
   * sooner: while messages flow, the quiet-period deadline moves later with every event, and
   * re-arming a timer per message cost an allocation and a timer-list insert each. A timer that
   * fires before the deadline it was set for finds nothing due and re-arms for the current one.
   */
  private arm(): void {
    if (this.disposed) return;
    const due = this.checker.nextDue();
    if (this.timer !== null && this.timerAt <= due) return;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = due;
    if (!Number.isFinite(due)) return;
    // +1 ms: the lab's clock is rounded to 0.1 ms, and a timer may fire a hair early.
    this.timer = this.deps.clock.setTimeout(
      () => this.fire(),
      Math.max(0, due - this.deps.now()) + 1,
    );
  }

  private fire(): void {
    this.timer = null;
    this.timerAt = Infinity;
    try {
      this.publish(this.checker.tick(this.deps.now()));
    } catch (err) {
      this.deps.onError(err);
    }
  }
}

function keyOf(c: ProcessConfig): string {
  return JSON.stringify([c.algorithm, c.ids, c.timing, c.options, c.workload ?? null]);
}
