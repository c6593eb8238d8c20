// What the coach (coach.ts) reads and shows: her history's entries, the shadow's books, and the
// view with its deviations (each naming the documents' rule it breaks, rules.ts).
import type { AlgorithmEvent, Message, ProcessId, Report } from '../algorithms/algorithm.ts';
import { RULES, type RuleId } from './rules.ts';
import { WORK_COMPUTE_TIMER } from './work-rules.ts';

/** What she did by hand (one click may make several: "declare" also sends COORDINATOR). */
export type HandAction =
  | { kind: 'send'; to: ProcessId; message: Message }
  | { kind: 'declare' }
  | { kind: 'believe'; coordinator: ProcessId }
  /** 003's work schedule: she takes the task `from` ordered (her tab says so on the wire with a status beat naming it). */
  | { kind: 'accept'; task: number; from: ProcessId | null };

/** Her history, oldest first: events she saw and actions she took; `at` in ms of her clock, `click` numbers her clicks. */
export type CoachEntry = { at: number } & (
  { kind: 'event'; event: AlgorithmEvent } | { kind: 'action'; action: HandAction; click: number }
);

export interface Suggestion {
  to: ProcessId;
  message: Message;
  /** When the reference would have sent it, and until when an answer counts (since + UB). */
  since: number;
  due: number;
  /** Timers the reference set right after this send: they start at her matching send. */
  timers: TimerMark[];
  /** A COORDINATOR the reference sends as coordinator already (its answer to an ELECTION), not its declaration. */
  reply?: boolean;
}

/** A shadow timer as set (its serial tells a timer set again under the same name apart). */
export interface ShadowTimer {
  at: number;
  serial: number;
  /** False while it waits on sends she has not made (it does not fire then). */
  armed: boolean;
  /** A work task's compute time: it starts when she accepts the task, not when the order came. */
  accept?: number;
}

export interface TimerMark {
  name: string;
  serial: number;
  after: number;
}

export interface Deviation {
  rule: RuleId;
  at: number;
  /** What she did (or failed to do), in words: "sent OK to 2", "no ELECTION to 6 within UB". */
  action: string;
  /** The click it came with; null for a deadline she let pass. */
  click: number | null;
}

export interface CoachView {
  suggestions: Suggestion[];
  /** What it would have sent and she let pass (already marked); a late send of hers answers one. */
  late: Suggestion[];
  /**
   * The late ones the reference still waits on (its wait after them starts at her send) or that
   * announce it as coordinator while it still is: still worth sending, and not marked again.
   */
  owed: Suggestion[];
  /** When the view changes by itself next (a shadow timer, a deadline), her clock; null: never. */
  next: number | null;
  /** Her sends the reference has not made: marked unless it makes the same within UB of hers. */
  pending: { to: ProcessId; type: string; at: number }[];
  deviations: Deviation[];
  /** What the reference believes now (null until it reports). */
  report: Report | null;
  /** True when the reference would declare itself coordinator now (and has not been matched). */
  wouldDeclare: boolean;
  /** The work task the reference has taken and waits on her to accept (null: none). */
  wouldAccept: number | null;
  /** The shadow threw: coaching stopped at this entry. */
  broken: boolean;
}

/** The marks a view lists at most (her tab's fold lives as long as her class). */
export const MAX_MARKS = 1000;
export const MAX_LATE = 50;

export interface Shadow {
  state: unknown;
  timers: Map<string, ShadowTimer>;
  report: Report | null;
  open: Suggestion[];
  /** Suggestions whose UB passed (marked): a late send of hers still answers them, unmarked again. */
  late: Suggestion[];
  deviations: Deviation[];
  /** Her sends the reference had not made (yet): forgiven if it makes the same within UB. */
  ahead: (Deviation & { to: ProcessId; type: string })[];
  /** Her election sends of the last UB: the same message the reference sends again while hers is on its way is hers. */
  recent: { to: ProcessId; message: Message; at: number }[];
}

/** Her sends the reference has not made, waiting at most this many; past it the oldest is marked at once. */
export const MAX_AHEAD = 100;
/**
 * Her election sends of the last UB kept to recognise the same send of the reference's, at most
 * this many: a tab flooding sends within UB costs the relay's coach bounded memory and time (past
 * it the oldest is forgotten, and the reference's same send is owed again).
 */
export const MAX_RECENT = 100;

/** A deviation as one line for the tab and the trace: the rule's source and sentence. */
export function explain(d: Deviation): string {
  const r = RULES[d.rule];
  return `${d.action}: ${r.source === 'the reference' ? '' : `${r.source}: `}${r.text}`;
}

/** A wait of the reference's that starts only at her send of `s` (it does not run without it). */
export function waitedOn(sh: Shadow, s: Suggestion): boolean {
  return s.timers.some((t) => {
    const timer = sh.timers.get(t.name);
    return timer?.serial === t.serial && !timer.armed;
  });
}

/** The earliest moment the view changes with no new entry: a shadow timer fires, a deadline passes. */
export function nextChange(sh: Shadow, ub: number): number | null {
  const times = [
    ...[...sh.timers.values()].filter((t) => t.armed).map((t) => t.at),
    ...sh.open.map((s) => s.due),
    ...sh.ahead.map((a) => a.at + ub),
  ];
  return times.length ? Math.min(...times) : null;
}

/** The reference's compute timer is set and waits on her accepting the task. */
export function waitingCompute(sh: Shadow): boolean {
  const t = sh.timers.get(WORK_COMPUTE_TIMER);
  return t !== undefined && !t.armed && t.accept !== undefined;
}

export function wouldDeclare(sh: Shadow, self: ProcessId): boolean {
  return sh.report?.coordinator === self && sh.report.role !== 'follower';
}
