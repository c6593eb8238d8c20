// What the live checker reports: findings (values, never thrown) and a summary for the stats.
// The relay appends each finding to the trace as a `finding` event and returns the summary in
// GET /api/labs/:lab/stats under `checker`; the dashboard reads both.
import { z } from 'zod';
import type { ProcessId } from '../algorithms/algorithm.ts';
import { ProcessIdSchema } from './lab-config.ts';

export const FINDING_KINDS = [
  'safety',
  'agreement',
  'liveness',
  'spurious',
  'result-lost',
  'counted-twice',
  'stale-order',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];
/** The work schedule's findings: only a lab with a workload can have them. */
export const WORK_FINDING_KINDS: readonly FindingKind[] = [
  'result-lost',
  'counted-twice',
  'stale-order',
];

export interface Finding {
  /**
   * - safety: two or more processes act as coordinator at once (for Raft: in one term, at once
   *   or one after the other, Raft's Election Safety);
   * - agreement: the fabric is quiet and a live process believes a coordinator other than the
   *   one the algorithm must elect;
   * - liveness: an election still unfinished after the bound the algorithm's analysis gives;
   * - spurious: an election started while the coordinator its initiator believed was alive.
   *
   * With a workload (003's work schedule, docs/WORK_SCHEDULE.md), from the work messages relayed:
   * - result-lost: a task's result that no live process holds or can still hand in (every holder
   *   crashed; static sharing: ordered to, or sent to, a machine that crashed);
   * - counted-twice: a process's answer to "what do you hold?" lists one task twice (its claim);
   * - stale-order: a process obeyed an order older than a token the relay had already delivered
   *   to it (it answered the order: a result or a "what I hold").
   */
  kind: FindingKind;
  /** When the checker concluded it, ms on the lab's (or simulation's) clock. */
  at: number;
  /** One line for people: what was seen, with the ids and the bound that applied. */
  detail: string;
  /** The processes concerned: the rival coordinators, the disagreeing or the electing ones. */
  processes: ProcessId[];
  /** The term concerned (Raft). */
  term?: number;
  /** When the condition began (a split brain, an election), where that differs from `at`. */
  since?: number;
}

/** For reading `finding` trace events back (replay); trace.ts checks it against `Finding`. */
export const FindingSchema = z
  .object({
    kind: z.enum(FINDING_KINDS),
    at: z.number().min(0),
    detail: z.string().max(2000),
    processes: z.array(ProcessIdSchema).max(5000),
    term: z.int().min(0).optional(),
    since: z.number().min(0).optional(),
  })
  .strict();

/** The checker's state for GET /api/labs/:lab/stats (`checker`). */
export interface CheckerSummary {
  /** Findings so far, by kind. */
  counts: Record<FindingKind, number>;
  /**
   * False detections: processes that began electing on their own (not asked with `elect`, not
   * joining on an election message) while the coordinator they believed was alive. The
   * `spurious` count is per election episode (one finding each).
   */
  spuriousElections: number;
  /** Rival coordinators right now, each group with the time it began (term for Raft). */
  splitBrain: { processes: ProcessId[]; since: number; term?: number }[];
  /** True while the fabric is quiet (see `CheckerBounds.quiet`). */
  quiet: boolean;
  /** The election episode in progress (some live process electing), if any. */
  election: { active: boolean; since: number | null; deadline: number | null };
  /** The bounds in force, ms, so a reader can see what "late" and "quiet" mean here. */
  bounds: CheckerBounds;
  /** The most recent findings, oldest first (at most `RECENT_FINDINGS`). */
  recent: Finding[];
  /** A cluster's owners of the lab (`owner` trace events, last 8) and how many takeovers there were. */
  owners?: { relay: string; epoch: number; since: number }[];
  takeovers?: number;
}

export interface CheckerBounds {
  /** Fabric quiet: no election message in flight and no belief change for this long. */
  quiet: number;
  /** An election episode longer than this (from its start or the last fault) is a liveness finding. */
  election: number;
  /** Rival coordinators (no terms) tolerated this long: the time the winner's announcement needs to reach the loser. */
  overlap: number;
}

export const RECENT_FINDINGS = 50;
