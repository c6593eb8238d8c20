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
import { roundTripBound, type AlgorithmName, type ProcessId, type Report, type Timing } from '../algorithms/algorithm.ts';
import { FINDING_KINDS, RECENT_FINDINGS, type CheckerBounds, type CheckerSummary, type Finding, type FindingKind } from '../protocol/finding.ts';
import { checkerProfile } from './checker-profiles.ts';
import { createCoordinatorWatch } from './checker-coordinators.ts';
import { judgeAgreement } from './checker-agreement.ts';
import { leads } from './properties.ts';
import type { TraceEvent } from '../protocol/trace.ts';

export type { CheckerBounds, CheckerSummary, Finding, FindingKind } from '../protocol/finding.ts';

export interface CheckerSetup {
  algorithm: AlgorithmName;
  ids: readonly ProcessId[];
  timing: Timing;
  options?: Readonly<Record<string, unknown>>;
  /** Replace any derived bound (tests, experiments). */
  bounds?: Partial<CheckerBounds>;
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

interface Proc {
  live: boolean;
  report: Report | null;
  /** Time of an `elect` request not yet answered by a report: that election is asked for, not spurious. */
  asked: number | null;
  /** Time it was last handed an election message: electing right after it is joining, not detecting. */
  told: number | null;
}

export function createChecker(setup: CheckerSetup): Checker {
  const profile = checkerProfile(setup, setup.bounds);
  const { bounds } = profile;
  const procs = new Map<ProcessId, Proc>();
  const inFlight = new Set<number>();
  let groupOf: Map<ProcessId, number> | null = null;
  let clock = 0;
  let lastActivity = 0;
  let quietChecked = false;
  let paused: number | null = null;
  let election: { since: number; deadline: number; flagged: boolean; spurious: boolean; lost: number } | null = null;
  let spuriousElections = 0;
  /** Relays that took the lab over (cluster failover): each is a fault the election may follow. */
  const owners: { relay: string; epoch: number; since: number }[] = [];
  const counts = Object.fromEntries(FINDING_KINDS.map((k) => [k, 0])) as Record<FindingKind, number>;
  const recent: Finding[] = [];
  const coordinators = createCoordinatorWatch(profile);

  const proc = (id: ProcessId): Proc => {
    let p = procs.get(id);
    if (!p) procs.set(id, (p = { live: false, report: null, asked: null, told: null }));
    return p;
  };
  const liveIds = () => [...procs].filter(([, p]) => p.live).map(([id]) => id).sort((a, b) => a - b);
  const isQuiet = () => paused === null && inFlight.size === 0 && clock >= lastActivity + bounds.quiet;

  const emit = (out: Finding[], f: Finding) => {
    counts[f.kind]++;
    recent.push(f);
    if (recent.length > RECENT_FINDINGS) recent.shift();
    out.push(f);
  };
  const activity = (t: number) => {
    lastActivity = t;
    quietChecked = false;
  };
  const fault = (t: number) => {
    activity(t);
    if (election) election.deadline = t + bounds.election;
  };
  // Live processes whose report says electing, kept as reports come (labs of 1,000 ids report at once).
  const electingNow = new Set<ProcessId>();
  const electingIds = () => [...electingNow].sort((a, b) => a - b);

  /** Open or close the election episode after a change at time t. */
  const updateElection = (t: number, asked = false) => {
    const any = electingNow.size > 0;
    if (!election && (any || asked)) election = { since: t, deadline: t + bounds.election, flagged: false, spurious: false, lost: 0 };
    else if (election && !any && !asked) election = null;
  };

  const coordinatorChanged = (out: Finding[], t: number) => {
    for (const f of coordinators.update(t, procs)) emit(out, f);
  };

  const agreement = (out: Finding[], t: number) => {
    quietChecked = true;
    const live = liveIds();
    const reports = Object.fromEntries(live.map((id) => [id, procs.get(id)!.report]));
    const d = judgeAgreement(setup.algorithm, profile.expects, live, reports);
    if (!d) return;
    const part = groupOf ? ' (partitioned)' : '';
    emit(out, { kind: 'agreement', at: t, processes: d.processes, since: lastActivity, detail: `quiet fabric${part}: ${d.detail}` });
  };


  const deadlines = () => ({
    overlapAt: coordinators.nextDue(bounds.overlap),
    quietAt: !quietChecked && inFlight.size === 0 ? lastActivity + bounds.quiet : Infinity,
    lateAt: election && !election.flagged ? election.deadline : Infinity,
  });

  /** Fire every deadline up to `now`, in time order. */
  const advance = (now: number): Finding[] => {
    const out: Finding[] = [];
    if (now < clock) now = clock;
    if (paused !== null) {
      clock = now;
      return out;
    }
    for (let guard = 0; guard < 1000; guard++) {
      const { overlapAt, quietAt, lateAt } = deadlines();
      const at = Math.min(overlapAt, quietAt, lateAt);
      if (at > now) break;
      clock = Math.max(clock, at);
      if (at === overlapAt) for (const f of coordinators.due(at, bounds.overlap)) emit(out, f);
      else if (at === lateAt) {
        const electing = electingIds();
        if (electing.length === 0) {
          // Asked for, but nobody took it up (an idle told to elect, a winner at once): no election.
          election = null;
          continue;
        }
        election!.flagged = true;
        const lost = election!.lost > 0 ? `, ${election!.lost} messages lost meanwhile` : '';
        emit(out, { kind: 'liveness', at, since: election!.since, processes: electing, detail: `election unfinished after ${bounds.election} ms (${setup.algorithm} bound)${lost}; electing: ${electing.join(',')}` });
      } else agreement(out, at);
    }
    clock = now;
    return out;
  };

  /**
   * A false detection (003, "Spurious"): this process began electing on its own (not asked to,
   * not on an election message it was just handed, not to settle rival coordinators) while the
   * coordinator it believed was alive and still acting as coordinator.
   * In the relay a process reports one round trip after the relay hands it something.
   */
  const spuriousCheck = (out: Finding[], id: ProcessId, before: Report | null, p: Proc, t: number) => {
    const window = roundTripBound(setup.timing);
    const asked = p.asked !== null && t - p.asked <= window;
    const joined = p.told !== null && t - p.told <= window;
    p.asked = null;
    const c = before?.coordinator ?? null;
    // With rival coordinators about, electing is how the algorithm resolves them (003, "Uniqueness").
    const rivals = !profile.terms && coordinators.current().length > 0;
    // A coordinator that crashed and came back, or stepped down, is no longer one: suspecting it is right.
    const leading = c !== null && procs.get(c)?.live === true && leads(procs.get(c)?.report);
    if (asked || joined || rivals || c === id || !leading) return;
    spuriousElections++;
    if (!election || election.spurious) return;
    election.spurious = true;
    const behind = groupOf && (groupOf.get(c) ?? -1) !== (groupOf.get(id) ?? -1) ? ' (behind a partition)' : '';
    emit(out, { kind: 'spurious', at: t, processes: [id], detail: `${id} started an election while its coordinator ${c} was alive${behind}` });
  };

  const apply = (e: TraceEvent): Finding[] => {
    const out: Finding[] = [];
    const t = e.t;
    switch (e.kind) {
      case 'send':
      case 'duplicate':
        if (profile.steady.has(e.type)) break;
        inFlight.add(e.msg);
        activity(t);
        break;
      case 'deliver':
      case 'drop':
        if (e.kind === 'drop' && e.reason === 'loss' && election) election.lost++;
        if (e.kind === 'deliver' && !profile.steady.has(e.type)) proc(e.to).told = t;
        if (inFlight.delete(e.msg)) activity(t);
        break;
      case 'elect':
        proc(e.node).asked = t;
        updateElection(t, true);
        activity(t);
        break;
      case 'crash':
      case 'leave':
      case 'fault':
        // A fault: the host restarted it from scratch (a crash and a recovery in one), so it is
        // live but holds no beliefs until it reports again.
        Object.assign(proc(e.node), { ...(e.kind === 'fault' ? {} : { live: false }), report: null, asked: null, told: null });
        electingNow.delete(e.node);
        fault(t);
        updateElection(t);
        coordinatorChanged(out, t);
        break;
      case 'recover':
      case 'join':
        Object.assign(proc(e.node), { live: true, report: null });
        electingNow.delete(e.node);
        fault(t);
        break;
      case 'report': {
        const p = proc(e.node);
        const before = p.report;
        p.live = true;
        p.report = e.report;
        if (e.report.electing) electingNow.add(e.node);
        else electingNow.delete(e.node);
        const changed = !before || before.coordinator !== e.report.coordinator || before.electing !== e.report.electing || before.term !== e.report.term;
        if (!changed) break;
        activity(t);
        updateElection(t);
        if (e.report.electing && !before?.electing) spuriousCheck(out, e.node, before, p, t);
        else if (p.asked !== null && !e.report.electing) p.asked = null;
        coordinatorChanged(out, t);
        break;
      }
      case 'owner':
        owners.push({ relay: e.relay, epoch: e.epoch, since: t });
        if (owners.length > 1) fault(t);
        break;
      case 'partition':
        groupOf = e.groups ? new Map(e.groups.flatMap((g, i) => g.map((id) => [id, i] as const))) : null;
        fault(t);
        break;
      case 'control':
        if (e.action === 'pause') paused ??= t;
        else if (e.action === 'resume' && paused !== null) {
          const d = t - paused;
          paused = null;
          lastActivity += d;
          if (election) election.deadline += d;
          coordinators.shift(d);
        } else if (e.action === 'reset' || e.action === 'reconfigure') {
          for (const p of procs.values()) Object.assign(p, { report: null, asked: null });
          inFlight.clear();
          electingNow.clear();
          election = null;
          coordinators.reset();
          activity(t);
        } else fault(t);
        break;
      default:
        break;
    }
    return out;
  };

  return {
    observe(e, now = e.t) {
      const before = advance(e.t);
      const during = apply(e);
      return [...before, ...during, ...advance(now)];
    },
    tick: advance,
    nextDue() {
      if (paused !== null) return Infinity;
      const d = deadlines();
      return Math.min(d.overlapAt, d.quietAt, d.lateAt);
    },
    summary: () => ({
      counts: { ...counts },
      spuriousElections,
      splitBrain: coordinators.current(),
      quiet: isQuiet(),
      election: { active: election !== null, since: election?.since ?? null, deadline: election?.deadline ?? null },
      bounds,
      recent: [...recent],
      ...(owners.length > 0 ? { owners: owners.slice(-8), takeovers: owners.length - 1 } : {}),
    }),
  };
}

/** Run the checker over a whole trace (a simulator run), then on to `until` (default: the last event). */
export function checkTrace(trace: readonly TraceEvent[], setup: CheckerSetup, until?: number): { findings: Finding[]; summary: CheckerSummary } {
  const checker = createChecker(setup);
  const findings: Finding[] = [];
  for (const e of trace) findings.push(...checker.observe(e));
  findings.push(...checker.tick(until ?? trace[trace.length - 1]?.t ?? 0));
  return { findings, summary: checker.summary() };
}
