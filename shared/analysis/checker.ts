// The live checker: a pure, incremental observer of a lab's trace that flags split brain,
// disagreement once the fabric is quiet, elections that overrun their bound, and spurious
// elections (003's constraints "Uniqueness" and "Spurious"; 002's requirement that every live
// process ends up believing the highest live id). The relay feeds it every trace event as it
// happens; `checkTrace` runs it over a simulator's trace. Time only arrives with events and
// `tick`, so the same trace always gives the same findings.
//
// Definitions (docs/ALGORITHMS.md explains them with examples):
// - Acting as coordinator: a live process whose role leads (properties.ts: coordinator, leader,
//   master). Agreement's verdict is properties.ts's `checkAgreement`, as in the explorer.
// - Fabric quiet: no election message in flight (steady heartbeats and polls excepted) and no
//   belief change (coordinator, electing, term), crash, recovery, partition or fabric change
//   for `bounds.quiet`, the longest wait after which the algorithm would itself act.
// - Election episode: from the first live process electing (or an `elect` request) until none
//   is; its deadline restarts at every fault (crash, recovery, partition, fabric change).
import {
  roundTripBound,
  type AlgorithmName,
  type ProcessId,
  type Report,
  type Timing,
} from '../algorithms/algorithm.ts';
import {
  FINDING_KINDS,
  RECENT_FINDINGS,
  type CheckerBounds,
  type CheckerSummary,
  type Finding,
  type FindingKind,
} from '../protocol/finding.ts';
import { checkerProfile, type CheckerProfile } from './checker-profiles.ts';
import { createCoordinatorWatch, type CoordinatorWatch } from './checker-coordinators.ts';
import { judgeAgreement } from './checker-agreement.ts';
import { cutOf, type Cut } from '../sim/network.ts';
import { leads } from './properties.ts';
import type { TraceEvent } from '../protocol/trace.ts';
import { IntSet } from './int-set.ts';
import { WorkWatch } from './checker-work.ts';
import type { Workload } from '../protocol/lab-config.ts';

export type { CheckerSummary, Finding, FindingKind } from '../protocol/finding.ts';

export interface CheckerSetup {
  algorithm: AlgorithmName;
  ids: readonly ProcessId[];
  timing: Timing;
  options?: Readonly<Record<string, unknown>>;
  /** Replace any derived bound (tests, experiments). */
  bounds?: Partial<CheckerBounds>;
  /** The lab's work schedule: adds the work findings (checker-work.ts). */
  workload?: Workload;
}

export interface Checker {
  /** Feed one trace event; `now` (default `event.t`) may run ahead of it. Returns new findings. */
  observe(event: TraceEvent, now?: number): Finding[];
  /** Let time pass without an event (the relay calls this on a timer). Returns new findings. */
  tick(now: number): Finding[];
  /** The earliest time a finding may fall due without another event (Infinity: none); the relay arms one timer for it. */
  nextDue(): number;
  summary(): CheckerSummary;
}

interface CheckedProcess {
  live: boolean;
  report: Report | null;
  /** Time of an `elect` request not yet answered by a report: that election is asked for, not spurious. */
  asked: number | null;
  /** Time it was last handed an election message: electing right after it is joining, not detecting. */
  told: number | null;
}

/** The election episode in progress. */
interface Episode {
  since: number;
  deadline: number;
  flagged: boolean;
  spurious: boolean;
  lost: number;
}

export function createChecker(setup: CheckerSetup): Checker {
  return new LiveChecker(setup);
}

/** The checker's state and its steps; `observe`, `tick`, `nextDue` and `summary` are the Checker. */
class LiveChecker implements Checker {
  private readonly profile: CheckerProfile;
  private readonly bounds: CheckerBounds;
  private readonly procs = new Map<ProcessId, CheckedProcess>();
  /** Election messages in flight (steady heartbeats and polls excepted); an IntSet, not a Set: int-set.ts says why. */
  private readonly inFlight = new IntSet();
  /** Live processes whose report says electing, kept as reports come (labs of 1,000 ids report at once). */
  private readonly electingNow = new Set<ProcessId>();
  private readonly coordinators: CoordinatorWatch;
  private cut: Cut | null = null;
  private clock = 0;
  private lastActivity = 0;
  private quietChecked = false;
  private paused: number | null = null;
  private election: Episode | null = null;
  private spuriousElections = 0;
  /** Owners of the lab in a cluster (`owner` events, the last 8) and how many there were. */
  private readonly owners: { relay: string; epoch: number; since: number }[] = [];
  private ownerCount = 0;
  private readonly counts = Object.fromEntries(FINDING_KINDS.map((k) => [k, 0])) as Record<
    FindingKind,
    number
  >;
  private readonly recent: Finding[] = [];
  private readonly work: WorkWatch | null;

  constructor(private readonly setup: CheckerSetup) {
    this.work = setup.workload ? new WorkWatch(setup.workload) : null;
    this.profile = checkerProfile(setup, setup.bounds);
    this.bounds = this.profile.bounds;
    this.coordinators = createCoordinatorWatch(this.profile);
  }

  // One array per event, filled in place: the relay calls this for every message it journals.
  observe(e: TraceEvent, now = e.t): Finding[] {
    const out: Finding[] = [];
    this.tickInto(out, e.t);
    this.apply(out, e);
    if (this.work) for (const f of this.work.observe(e)) this.emit(out, f);
    this.tickInto(out, now);
    return out;
  }

  /** Fire every deadline up to `now`, in time order. */
  tick(now: number): Finding[] {
    const out: Finding[] = [];
    this.tickInto(out, now);
    return out;
  }

  private tickInto(out: Finding[], now: number): void {
    if (now < this.clock) now = this.clock;
    if (this.paused !== null) {
      this.clock = now;
      return;
    }
    for (let guard = 0; guard < 1000; guard++) {
      const overlapAt = this.overlapAt();
      const lateAt = this.lateAt();
      const at = Math.min(overlapAt, this.quietAt(), lateAt);
      if (at > now) break;
      this.clock = Math.max(this.clock, at);
      if (at === overlapAt)
        for (const f of this.coordinators.due(at, this.bounds.overlap)) this.emit(out, f);
      else if (at === lateAt) this.late(out, at);
      else this.agreement(out, at);
    }
    this.clock = now;
  }

  nextDue(): number {
    if (this.paused !== null) return Infinity;
    return Math.min(this.overlapAt(), this.quietAt(), this.lateAt());
  }

  summary(): CheckerSummary {
    const { election } = this;
    return {
      counts: { ...this.counts },
      spuriousElections: this.spuriousElections,
      splitBrain: this.coordinators.current(),
      quiet:
        this.paused === null &&
        this.inFlight.size === 0 &&
        this.clock >= this.lastActivity + this.bounds.quiet,
      election: {
        active: election !== null,
        since: election?.since ?? null,
        deadline: election?.deadline ?? null,
      },
      bounds: this.bounds,
      recent: [...this.recent],
      ...(this.ownerCount > 0 ? { owners: [...this.owners], takeovers: this.ownerCount - 1 } : {}),
    };
  }

  // --- the events -----------------------------------------------------------------------------

  private apply(out: Finding[], e: TraceEvent): void {
    switch (e.kind) {
      case 'send':
      case 'duplicate':
      case 'deliver':
      case 'drop':
        this.message(e);
        break;
      case 'elect':
        this.proc(e.node).asked = e.t;
        this.updateElection(e.t, true);
        this.activity(e.t);
        break;
      case 'crash':
      case 'leave':
      case 'fault':
        // A fault: the host restarted it from scratch (a crash and a recovery in one), so it is
        // live but holds no beliefs until it reports again.
        Object.assign(this.proc(e.node), {
          ...(e.kind === 'fault' ? {} : { live: false }),
          report: null,
          asked: null,
          told: null,
        });
        this.electingNow.delete(e.node);
        this.fault(e.t);
        this.updateElection(e.t);
        this.coordinatorChanged(out, e.t);
        break;
      case 'recover':
      case 'join':
        Object.assign(this.proc(e.node), { live: true, report: null });
        this.electingNow.delete(e.node);
        this.fault(e.t);
        break;
      case 'report':
        this.report(out, e.node, e.report, e.t);
        break;
      case 'owner':
        // A cluster's relay took the lab over (its processes reconnect): a fault after the first owner.
        this.owners.push({ relay: e.relay, epoch: e.epoch, since: e.t });
        if (this.owners.length > 8) this.owners.shift();
        if (++this.ownerCount > 1) this.fault(e.t);
        break;
      case 'partition':
        this.cut = cutOf(e.groups);
        this.fault(e.t);
        break;
      case 'control':
        this.control(e.action, e.t);
        break;
      default:
        break;
    }
  }

  private message(
    e: Extract<TraceEvent, { kind: 'send' | 'duplicate' | 'deliver' | 'drop' }>,
  ): void {
    const steady = this.profile.steady.has(e.type);
    if (e.kind === 'send' || e.kind === 'duplicate') {
      if (steady) return;
      this.inFlight.add(e.msg);
      this.activity(e.t);
      return;
    }
    if (e.kind === 'drop' && e.reason === 'loss' && this.election) this.election.lost++;
    if (e.kind === 'deliver' && !steady) this.proc(e.to).told = e.t;
    if (this.inFlight.delete(e.msg)) this.activity(e.t);
  }

  private report(out: Finding[], id: ProcessId, report: Report, t: number): void {
    const p = this.proc(id);
    const before = p.report;
    p.live = true;
    p.report = report;
    if (report.electing) this.electingNow.add(id);
    else this.electingNow.delete(id);
    const changed =
      !before ||
      before.coordinator !== report.coordinator ||
      before.electing !== report.electing ||
      before.term !== report.term;
    if (!changed) return;
    this.activity(t);
    this.updateElection(t);
    if (report.electing && !before?.electing) this.spuriousCheck(out, id, before, p, t);
    else if (p.asked !== null && !report.electing) p.asked = null;
    this.coordinatorChanged(out, t);
  }

  private control(action: Extract<TraceEvent, { kind: 'control' }>['action'], t: number): void {
    if (action === 'pause') this.paused ??= t;
    else if (action === 'resume' && this.paused !== null) {
      const d = t - this.paused;
      this.paused = null;
      this.lastActivity += d;
      if (this.election) this.election.deadline += d;
      this.coordinators.shift(d);
    } else if (action === 'reset' || action === 'reconfigure' || action === 'restart-job') {
      for (const p of this.procs.values()) Object.assign(p, { report: null, asked: null });
      this.inFlight.clear();
      this.electingNow.clear();
      this.election = null;
      this.coordinators.reset();
      this.activity(t);
    } else this.fault(t);
  }

  // --- the findings ---------------------------------------------------------------------------

  private emit(out: Finding[], f: Finding): void {
    this.counts[f.kind]++;
    this.recent.push(f);
    if (this.recent.length > RECENT_FINDINGS) this.recent.shift();
    out.push(f);
  }

  private coordinatorChanged(out: Finding[], t: number): void {
    for (const f of this.coordinators.update(t, this.procs)) this.emit(out, f);
  }

  /** The fabric has been quiet for `bounds.quiet`: every live process must agree by now. */
  private agreement(out: Finding[], t: number): void {
    this.quietChecked = true;
    const live = [...this.procs]
      .filter(([, p]) => p.live)
      .map(([id]) => id)
      .sort((a, b) => a - b);
    const reports = Object.fromEntries(live.map((id) => [id, this.procs.get(id)!.report]));
    const d = judgeAgreement(this.setup.algorithm, this.profile.expects, live, reports);
    if (!d) return;
    const part = this.cut ? ' (partitioned)' : '';
    this.emit(out, {
      kind: 'agreement',
      at: t,
      processes: d.processes,
      since: this.lastActivity,
      detail: `quiet fabric${part}: ${d.detail}`,
    });
  }

  /** The election episode's deadline passed: flag it, unless nobody took it up. */
  private late(out: Finding[], at: number): void {
    const electing = [...this.electingNow].sort((a, b) => a - b);
    const election = this.election!;
    if (electing.length === 0) {
      // Asked for, but nobody took it up (an idle told to elect, a winner at once): no election.
      this.election = null;
      return;
    }
    election.flagged = true;
    const lost = election.lost > 0 ? `, ${election.lost} messages lost meanwhile` : '';
    this.emit(out, {
      kind: 'liveness',
      at,
      since: election.since,
      processes: electing,
      detail: `election unfinished after ${this.bounds.election} ms (${this.setup.algorithm} bound)${lost}; electing: ${electing.join(',')}`,
    });
  }

  /**
   * A false detection (003, "Spurious"): this process began electing on its own (not asked to,
   * not on an election message it was just handed, not to settle rival coordinators) while the
   * coordinator it believed was alive and still acting as coordinator.
   * In the relay a process reports one round trip after the relay hands it something.
   */
  private spuriousCheck(
    out: Finding[],
    id: ProcessId,
    before: Report | null,
    p: CheckedProcess,
    t: number,
  ): void {
    const window = roundTripBound(this.setup.timing);
    const asked = p.asked !== null && t - p.asked <= window;
    const joined = p.told !== null && t - p.told <= window;
    p.asked = null;
    const c = before?.coordinator ?? null;
    // With rival coordinators about, electing is how the algorithm resolves them (003, "Uniqueness").
    const rivals = !this.profile.terms && this.coordinators.current().length > 0;
    // A coordinator that crashed and came back, or stepped down, is no longer one: suspecting it is right.
    const leading =
      c !== null && this.procs.get(c)?.live === true && leads(this.procs.get(c)?.report);
    if (asked || joined || rivals || c === id || !leading) return;
    this.spuriousElections++;
    if (!this.election || this.election.spurious) return;
    this.election.spurious = true;
    const behind = this.cut?.separates(c, id) ? ' (behind a partition)' : '';
    this.emit(out, {
      kind: 'spurious',
      at: t,
      processes: [id],
      detail: `${id} started an election while its coordinator ${c} was alive${behind}`,
    });
  }

  // --- time and bookkeeping -------------------------------------------------------------------

  private proc(id: ProcessId): CheckedProcess {
    let p = this.procs.get(id);
    if (!p) this.procs.set(id, (p = { live: false, report: null, asked: null, told: null }));
    return p;
  }

  private activity(t: number): void {
    this.lastActivity = t;
    this.quietChecked = false;
  }

  /** A crash, recovery, partition or fabric change: activity, and the episode's deadline starts again. */
  private fault(t: number): void {
    this.activity(t);
    if (this.election) this.election.deadline = t + this.bounds.election;
  }

  /** Open or close the election episode after a change at time t. */
  private updateElection(t: number, asked = false): void {
    const any = this.electingNow.size > 0;
    if (!this.election && (any || asked))
      this.election = {
        since: t,
        deadline: t + this.bounds.election,
        flagged: false,
        spurious: false,
        lost: 0,
      };
    else if (this.election && !any && !asked) this.election = null;
  }

  // The three deadlines, each read on its own (no object per call: this runs for every event).
  private overlapAt(): number {
    return this.coordinators.nextDue(this.bounds.overlap);
  }

  private quietAt(): number {
    return !this.quietChecked && this.inFlight.size === 0
      ? this.lastActivity + this.bounds.quiet
      : Infinity;
  }

  private lateAt(): number {
    return this.election && !this.election.flagged ? this.election.deadline : Infinity;
  }
}

/** Run the checker over a whole trace (a simulator run), then on to `until` (default: the last event). */
export function checkTrace(
  trace: readonly TraceEvent[],
  setup: CheckerSetup,
  until?: number,
): { findings: Finding[]; summary: CheckerSummary } {
  const checker = createChecker(setup);
  const findings: Finding[] = [];
  for (const e of trace) findings.push(...checker.observe(e));
  findings.push(...checker.tick(until ?? trace[trace.length - 1]?.t ?? 0));
  return { findings, summary: checker.summary() };
}
