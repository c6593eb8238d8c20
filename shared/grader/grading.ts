// The grader: a module (a student's, through student.ts, or a reference algorithm) run through
// every scenario case of its algorithm in the simulator, then through the explorer, which
// searches its delivery orders in a small lab for the shortest schedule that breaks safety or
// agreement. Pure and synchronous: a worker (the browser's or a Node worker_thread) runs it, one
// case at a time, telling its runner as it goes (grade-runner.ts).
import {
  DEFAULT_TIMING,
  type AlgorithmName,
  type AnyAlgorithm,
  type ProcessId,
  type Report,
} from '../algorithms/algorithm.ts';
import { getAlgorithm } from '../algorithms/registry.ts';
import { checkerProfile } from '../analysis/checker-profiles.ts';
import { checkAgreement, checkSafety, leads } from '../analysis/properties.ts';
import { counting } from '../experiments/experiment.ts';
import { serializeTrace } from '../protocol/trace-file.ts';
import type { TraceEvent } from '../protocol/trace.ts';
import { simulate, type SimulationResult } from '../sim/simulator.ts';
import { casesFor } from './cases.ts';
import type { GradeCase } from './grade-case.ts';
import { withPeers } from './peers.ts';
import { describeDivergence, firstDivergence } from './divergence.ts';
import { describeFault, type FaultInfo } from './module-fault.ts';
import { asFault, gradeExplore, type ExploreCounts } from './grade-explore.ts';
import type { CaseResult, Figure } from './case-result.ts';
import type { WireProblem } from './student.ts';

export interface GradeReport {
  algorithm: AlgorithmName;
  /** What was graded: a file name, "editor", or "reference". */
  subject: string;
  pass: boolean;
  /** The module did not load (nothing ran). */
  loadError: FaultInfo | null;
  cases: CaseResult[];
  /** Wall time per phase, ms. */
  phases: { name: string; ms: number }[];
  totalMs: number;
}

/** A run may have at most this many events: a module that never quiets (a 0 ms timer loop) stops here. */
const MAX_EVENTS = 400_000;
/** Failing traces larger than this are cut (the replay page opens them; the relay keeps a copy for the board). */
const MAX_TRACE_EVENTS = 4000;

interface CaseOptions {
  algorithm: AlgorithmName;
  /** The module under test as an Algorithm (a student's via studentAlgorithm, or a reference). */
  subject: AnyAlgorithm;
  /** False when grading the reference itself: no divergence to look for. */
  compare: boolean;
  clock: () => number;
}

/** One scenario case: run, judged, and for a failure compared with the reference. */
function gradeCase(kase: GradeCase, opts: CaseOptions): CaseResult {
  const started = opts.clock();
  const base = { id: kase.id, group: kase.group, title: kase.title };
  const counted: Record<string, number> = {};
  const subject = withPeers(opts.subject, kase.peers);
  const algorithm = kase.counts ? counting(subject, kase.counts.from, counted) : subject;
  let run: SimulationResult;
  try {
    run = simulate({ ...kase.spec, algorithm, trace: true, maxEvents: MAX_EVENTS });
  } catch (err) {
    const fault = asFault(err);
    return {
      ...base,
      pass: false,
      figures: [],
      reason: describeFault(fault),
      fault,
      divergence: null,
      trace: null,
      ms: opts.clock() - started,
    };
  }
  const figures = judge(kase, opts.algorithm, run, counted);
  const failed = figures.find((f) => !f.pass) ?? null;
  let divergence: string | null = null;
  let trace: string | null = null;
  if (failed) {
    if (opts.compare) {
      const ref = simulate({
        ...kase.spec,
        algorithm: withPeers(getAlgorithm(opts.algorithm), kase.peers),
        trace: true,
        maxEvents: MAX_EVENTS,
      });
      const d = firstDivergence(
        ref.trace,
        run.trace,
        checkerProfile({ algorithm: opts.algorithm, ids: kase.spec.ids, timing: DEFAULT_TIMING })
          .steady,
      );
      divergence = d
        ? describeDivergence(d)
        : "her run and the reference's agree on every send and belief (the difference is elsewhere: timing or a field)";
    }
    trace = caseTrace(
      opts.algorithm,
      kase,
      run.trace,
      `${failed.name}: ${failed.measured}, expected ${failed.expected}`,
    );
  }
  return {
    ...base,
    pass: !failed,
    figures,
    reason: failed
      ? `${failed.name}: measured ${failed.measured}, expected ${failed.expected}`
      : null,
    fault: null,
    divergence,
    trace,
    ms: opts.clock() - started,
  };
}

/** The figures of one run against the case's expectations. */
function judge(
  kase: GradeCase,
  name: AlgorithmName,
  run: SimulationResult,
  counted: Record<string, number>,
): Figure[] {
  const figures: Figure[] = [];
  if (run.truncated && run.events >= MAX_EVENTS) {
    figures.push({
      name: 'the run ends',
      measured: `still busy after ${MAX_EVENTS} events (t=${Math.round(run.endTime)})`,
      expected: 'the election to end and the processes to quiet',
      pass: false,
    });
  }
  if (kase.counts) {
    for (const [type, expected] of Object.entries(kase.counts.expected)) {
      const measured = counted[type] ?? 0;
      figures.push({
        name: `${type} messages`,
        measured: String(measured),
        expected: `${expected} (${kase.counts.formulas[type] ?? 'formula'})`,
        pass: measured === expected,
      });
    }
  }
  const profile = checkerProfile({ algorithm: name, ids: kase.spec.ids, timing: DEFAULT_TIMING });
  if (kase.safety) {
    const v = safetyOverTime(run.trace, profile.bounds.overlap, kase.safetyFrom);
    const from = kase.safetyFrom ? ` from t=${kase.safetyFrom} on` : '';
    const bound = `never two leaders for more than ${profile.bounds.overlap} ms${profile.terms ? ' in one term' : ''}${from}`;
    const predicted = v !== null && kase.predictedSplit ? kase.predictedSplit : undefined;
    figures.push({
      name: 'safety',
      measured: v ?? 'never two leaders at once',
      expected: predicted ? `${bound}, or what the documents predict` : bound,
      pass: v === null || predicted !== undefined,
      ...(predicted ? { predicted } : {}),
    });
  }
  if (kase.noMajority) figures.push(leaderless(run.trace, kase.noMajority));
  if (kase.pool) {
    const { min, max, formula } = kase.pool;
    const size = run.live.filter((id) =>
      ['slave', 'candidate'].includes(run.reports[id]?.role ?? ''),
    ).length;
    figures.push({
      name: 'slave pool at the end',
      measured: `${size} slaves`,
      expected: `${min} to ${max} (${formula})`,
      pass: size >= min && size <= max,
    });
  }
  const agreement = checkAgreement(name, run.live, run.reports);
  const believed = [...new Set(run.live.map((id) => run.reports[id]?.coordinator ?? null))];
  const winnerOk = kase.winner === null || (believed.length === 1 && believed[0] === kase.winner);
  figures.push({
    name: 'agreement (e_i = P)',
    measured: agreement ? agreement.message : `every live process follows ${believed[0]}`,
    expected:
      kase.winner === null
        ? 'every live process follows one live leader'
        : `every live process follows ${kase.winner}`,
    pass: agreement === null && winnerOk,
  });
  const settled = settledAt(run.trace, run.live);
  const took = Math.max(0, settled - kase.liveness.from);
  figures.push({
    name: kase.counts ? 'election time' : 'liveness',
    measured: `${round(took)} ms`,
    expected: `≤ ${round(kase.liveness.bound)} ms (${kase.liveness.formula})`,
    pass: took <= kase.liveness.bound + 1e-6,
  });
  return figures;
}

const round = (x: number) => Math.round(x * 100) / 100;

/** No majority alive until `until`: no leader is expected (the citation); one that leads then is hers. */
function leaderless(
  trace: readonly TraceEvent[],
  { until, citation }: NonNullable<GradeCase['noMajority']>,
): Figure {
  // Who leads at the end of each instant (a process that reports and crashes at t=0 never led).
  const leading = new Map<ProcessId, number | undefined>();
  let found: string | null = null;
  for (const [i, e] of trace.entries()) {
    if (e.t >= until) break;
    if (e.kind === 'report') {
      if (leads(e.report)) leading.set(e.node, e.report.term);
      else leading.delete(e.node);
    } else if (e.kind === 'crash') leading.delete(e.node);
    if ((trace[i + 1]?.t ?? Infinity) === e.t || leading.size === 0) continue;
    const [id, term] = [...leading][0]!;
    found = `${id} leads at t=${round(e.t)}${term === undefined ? '' : ` in term ${term}`}`;
    break;
  }
  return {
    name: `a leader before t=${until} (no majority alive)`,
    measured: found ?? 'none',
    expected: 'none',
    pass: found === null,
    ...(found === null ? { predicted: citation } : {}),
  };
}

/** When the processes alive at the end last changed what they believe (leading, coordinator, electing). */
function settledAt(trace: readonly TraceEvent[], live: readonly ProcessId[]): number {
  const alive = new Set(live);
  const last = new Map<ProcessId, string>();
  let at = 0;
  for (const e of trace) {
    if (e.kind === 'crash' || e.kind === 'recover') last.delete(e.node);
    if (e.kind !== 'report' || !alive.has(e.node)) continue;
    const r = e.report;
    const k = `${leads(r)}|${r.coordinator}|${r.electing}`;
    if (last.get(e.node) === k) continue;
    last.set(e.node, k);
    at = e.t;
  }
  return at;
}

/** Two live leaders (of one term, where there are terms) for longer than `overlap` ms: the first such, described. */
function safetyOverTime(trace: readonly TraceEvent[], overlap: number, from = 0): string | null {
  const reports = new Map<ProcessId, Report>();
  const live = new Set<ProcessId>();
  let since: number | null = null;
  let who = '';
  for (const e of trace) {
    if (since !== null && e.t - since > overlap)
      return `${who} from t=${round(since)} to at least t=${round(e.t)}`;
    if (e.kind === 'report') {
      reports.set(e.node, e.report);
      live.add(e.node);
    } else if (e.kind === 'crash') {
      live.delete(e.node);
      reports.delete(e.node);
    } else continue;
    const v = checkSafety([...live], Object.fromEntries(reports));
    if (v && since === null) {
      since = Math.max(e.t, from);
      who = v.message;
    } else if (!v) since = null;
  }
  return since !== null && (trace[trace.length - 1]?.t ?? 0) - since > overlap
    ? `${who} from t=${round(since)} until the end`
    : null;
}

function caseTrace(
  algorithm: AlgorithmName,
  kase: GradeCase,
  events: readonly TraceEvent[],
  verdict: string,
): string {
  const cut = events.length > MAX_TRACE_EVENTS ? events.slice(0, MAX_TRACE_EVENTS) : events;
  const last = cut[cut.length - 1];
  const note: TraceEvent = {
    seq: (last?.seq ?? -1) + 1,
    t: last?.t ?? 0,
    kind: 'note',
    text: `grader, ${kase.id}: ${verdict}${cut.length < events.length ? ` (trace cut at ${MAX_TRACE_EVENTS} events)` : ''}`,
  };
  return serializeTrace(
    {
      source: 'simulator',
      algorithm,
      ids: [...kase.spec.ids],
      seed: kase.spec.seed ?? 1,
      grader: { case: kase.id, title: kase.title },
    },
    [...cut, note],
  );
}

/** The wire-format check: every message she sent in the cases fits what the lab's bots understand. */
function gradeWire(problems: readonly WireProblem[]): CaseResult {
  const distinct = [...new Map(problems.map((p) => [p.message, p])).values()];
  const pass = distinct.length === 0;
  return {
    id: 'wire',
    group: 'wire',
    title: 'wire format: the bots in a live lab understand every message',
    pass,
    figures: [
      {
        name: 'messages that do not fit',
        measured: pass
          ? 'none'
          : `${problems.length} (${distinct
              .slice(0, 3)
              .map((p) => `process ${p.process}: ${p.message}`)
              .join('; ')})`,
        expected: 'none',
        pass,
      },
    ],
    reason: pass ? null : `a message the bots would ignore: ${distinct[0]!.message}`,
    fault: null,
    divergence: null,
    trace: null,
    ms: 0,
  };
}

/** The report from the case results, in case order. */
export function assemble(
  algorithm: AlgorithmName,
  subject: string,
  cases: CaseResult[],
  phases: { name: string; ms: number }[],
  loadError: FaultInfo | null = null,
): GradeReport {
  return {
    algorithm,
    subject,
    pass: loadError === null && cases.length > 0 && cases.every((c) => c.pass),
    loadError,
    cases,
    phases,
    totalMs: phases.reduce((a, p) => a + p.ms, 0),
  };
}

interface RunOptions extends CaseOptions {
  subjectName: string;
  /** The explorer's time budget, ms (0: no explorer). */
  exploreMs: number;
  /** Bound the explorer by counts instead of time (then `exploreMs` only needs to be above 0). */
  exploreCounts?: ExploreCounts;
  /** The module for the explorer, if it needs other guards (a student's copies her state per step). */
  exploreSubject?: AnyAlgorithm;
  /** Wire-format problems her module's sends had (student.ts's onWire); null: not checked (a reference). */
  wire: WireProblem[] | null;
  /** Case ids already graded elsewhere (a worker that died): skipped. */
  skip?: ReadonlySet<string>;
  /** Told as each case starts and ends (a worker passes these to its runner). */
  onStart?: (id: string) => void;
  onCase?: (r: CaseResult) => void;
}

/** Every case, the wire check and the explorer, in this thread: a worker's body (and the tests'). */
export function gradeAll(opts: RunOptions): GradeReport {
  const results: CaseResult[] = [];
  const phases: { name: string; ms: number }[] = [];
  const add = (r: CaseResult) => {
    results.push(r);
    opts.onCase?.(r);
  };
  let t = opts.clock();
  for (const kase of casesFor(opts.algorithm)) {
    if (opts.skip?.has(kase.id)) continue;
    opts.onStart?.(kase.id);
    add(gradeCase(kase, opts));
  }
  phases.push({ name: 'scenario cases', ms: opts.clock() - t });
  if (opts.wire && !opts.skip?.has('wire')) add(gradeWire(opts.wire));
  if (opts.exploreMs > 0 && !opts.skip?.has('explore')) {
    t = opts.clock();
    opts.onStart?.('explore');
    const unplain = results.find((r) => r.fault?.kind === 'state');
    if (unplain) {
      add({
        id: 'explore',
        group: 'explore',
        title: 'explorer',
        pass: false,
        figures: [],
        reason: `not run: ${unplain.reason}`,
        fault: null,
        divergence: null,
        trace: null,
        ms: 0,
      });
    } else
      add(
        gradeExplore(
          opts.algorithm,
          opts.exploreSubject ?? opts.subject,
          opts.exploreMs,
          opts.clock,
          opts.exploreCounts,
        ),
      );
    phases.push({ name: 'explorer', ms: opts.clock() - t });
  }
  return assemble(opts.algorithm, opts.subjectName, results, phases);
}
