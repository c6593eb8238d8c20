// Runs a challenge's schedule in the deterministic simulator and says whether the target was
// reached (the student's worker and the relay call the same function, so what she saw is what the
// relay re-runs); `verifySubmission` first holds a submission to the challenge's set-up and budget.
// Pure: no I/O, no clock; the run is bounded in events and in virtual time (the set-up's `until`).
import type { ProcessId, Report } from '../algorithms/algorithm.ts';
import { leads } from '../analysis/properties.ts';
import { checkRun, stepSpec } from '../lessons/lesson-runner.ts';
import { simulate } from '../sim/simulator.ts';
import type { Finding } from '../protocol/finding.ts';
import type { TraceEvent } from '../protocol/trace.ts';
import {
  overBudget,
  totalFaults,
  type Challenge,
  type Schedule,
  type Submission,
  type Target,
} from './challenge-schema.ts';

/** A challenge's run is a few thousand events; this bounds what one submission costs the relay. */
export const MAX_CHALLENGE_EVENTS = 60_000;

export interface ChallengeRun {
  reached: boolean;
  /** When the target was first met, ms of virtual time. */
  at: number | null;
  /** One line for people: what was seen, or how close the run came. */
  detail: string;
  events: number;
  /** True when the event bound cut the run short (it is then not judged). */
  cut: boolean;
  trace: TraceEvent[];
  endTime: number;
}

type Refusal =
  | 'wrong-challenge'
  | 'setup-changed'
  | 'unknown-process'
  | 'over-budget'
  | 'run-too-long'
  | 'not-reproduced';

type Verdict =
  | { accepted: true; faults: number; at: number; detail: string }
  | { accepted: false; reason: Refusal; message: string };

export function runChallenge(challenge: Challenge, seed: number, schedule: Schedule): ChallengeRun {
  const step = { setup: { ...challenge.setup, seed }, run: schedule };
  const spec = { ...stepSpec(step), maxEvents: MAX_CHALLENGE_EVENTS };
  const r = simulate(spec);
  const cut = r.events >= MAX_CHALLENGE_EVENTS;
  const base = { events: r.events, cut, trace: r.trace, endTime: r.endTime };
  if (cut)
    return { ...base, reached: false, at: null, detail: 'The run was cut at the event bound' };
  return {
    ...base,
    ...judge(challenge.target, () => checkRun(step, r).findings, r.trace, r.endTime),
  };
}

function judge(
  target: Target,
  findings: () => readonly Finding[],
  trace: readonly TraceEvent[],
  end: number,
): Pick<ChallengeRun, 'reached' | 'at' | 'detail'> {
  if (target.kind === 'split-brain') {
    const f = findings().find((x) => x.kind === 'safety');
    return f
      ? { reached: true, at: f.at, detail: f.detail }
      : { reached: false, at: null, detail: 'No two processes acted as coordinator at once' };
  }
  const gap = longestLeaderless(trace, end, target.ms);
  return gap.reachedAt !== null
    ? {
        reached: true,
        at: gap.reachedAt,
        detail: `No live process acted as coordinator from ${gap.since} ms for ${gap.longest} ms`,
      }
    : {
        reached: false,
        at: null,
        detail: `The longest stretch without a coordinator was ${gap.longest} ms (the target is ${target.ms} ms)`,
      };
}

/**
 * A live run's verdict (the instructor's replay in the live lab): the same target read off the
 * relay's own trace of the run, where a split brain is the live checker's `finding` event, not
 * a re-check (docs/RUN_A_CLASS.md, "Challenges": timing in a live lab may differ).
 */
export function judgeLive(
  target: Target,
  trace: readonly TraceEvent[],
  end: number,
): Pick<ChallengeRun, 'reached' | 'at' | 'detail'> {
  const found = () =>
    trace.flatMap((e) => (e.kind === 'finding' ? [{ ...e.finding, at: e.t }] : []));
  return judge(target, found, trace, end);
}

/**
 * The longest stretch with no live process acting as coordinator (its role leads, as the
 * checker reads it), and when a stretch first lasted `ms`. A run that ends inside a stretch
 * counts it up to its end.
 */
export function longestLeaderless(
  trace: readonly TraceEvent[],
  end: number,
  ms: number,
): { longest: number; since: number | null; reachedAt: number | null } {
  const reports = new Map<ProcessId, Report>();
  const leaders = new Set<ProcessId>();
  let since: number | null = null;
  let best = { longest: 0, since: null as number | null, reachedAt: null as number | null };
  const close = (t: number) => {
    if (since === null) return;
    const length = t - since;
    if (length > best.longest) best = { ...best, longest: length, since };
    if (length >= ms && best.reachedAt === null) best.reachedAt = since + ms;
  };
  for (const e of trace) {
    if (e.kind === 'report') reports.set(e.node, e.report);
    else if (e.kind === 'crash') reports.delete(e.node);
    else continue;
    const wasLed = leaders.size > 0;
    if (e.kind === 'report' && leads(e.report)) leaders.add(e.node);
    else leaders.delete(e.node);
    if (wasLed && leaders.size === 0) since = e.t;
    if (!wasLed && leaders.size > 0 && since !== null) {
      close(e.t);
      since = null;
    }
  }
  close(end);
  return best;
}

/** Canonical JSON (keys sorted), so two set-ups compare by value whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/** The set-up's fields that differ from the challenge's (the seed is the student's own). */
function changedFields(challenge: Challenge, setup: Submission['setup']): string[] {
  const keys = new Set([...Object.keys(challenge.setup), ...Object.keys(setup)]);
  keys.delete('seed');
  const a = challenge.setup as Record<string, unknown>;
  const b = setup as Record<string, unknown>;
  return [...keys].filter((k) => canonical(a[k]) !== canonical(b[k])).sort();
}

function strangers(challenge: Challenge, s: Schedule): ProcessId[] {
  const ids = new Set(challenge.setup.ids);
  const named = [
    ...(['crash', 'recover', 'elect'] as const).flatMap((k) => (s[k] ?? []).map((e) => e.id)),
    ...(s.partition ?? []).flatMap((p) => (p.groups ?? []).flat()),
    ...(s.links ?? []).flatMap((l) => [l.from, l.to]),
  ];
  return [...new Set(named.filter((id) => !ids.has(id)))];
}

/** The relay's verdict on a submission: accepted only when its own run reaches the target. */
export function verifySubmission(challenge: Challenge, sub: Submission): Verdict {
  const refuse = (reason: Refusal, message: string): Verdict => ({
    accepted: false,
    reason,
    message,
  });
  if (sub.challenge !== challenge.id)
    return refuse('wrong-challenge', `The open challenge is "${challenge.id}"`);
  const changed = changedFields(challenge, sub.setup);
  if (changed.length)
    return refuse(
      'setup-changed',
      `The set-up differs from the challenge's in ${changed.join(', ')}`,
    );
  const unknown = strangers(challenge, sub.schedule);
  if (unknown.length)
    return refuse('unknown-process', `The schedule names ${unknown.join(', ')}, not in the set-up`);
  const over = overBudget(challenge, sub.schedule);
  if (over.length) return refuse('over-budget', `Over the fault budget: ${over.join('; ')}`);
  const run = runChallenge(challenge, sub.seed, sub.schedule);
  if (run.cut)
    return refuse('run-too-long', `The run took over ${MAX_CHALLENGE_EVENTS} events; not judged`);
  if (!run.reached)
    return refuse('not-reproduced', `The relay's run did not reach the target: ${run.detail}`);
  return { accepted: true, faults: totalFaults(sub.schedule), at: run.at!, detail: run.detail };
}
