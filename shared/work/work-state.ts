// The work layer's state beside the election's. Every table is keyed by task or by process id,
// so it is bounded by the job and the lab, never by the number of messages.
import type { ProcessId, Report, Timing } from '../algorithms/algorithm.ts';
import type { WorkJob } from './work-job.ts';
import type { Results } from './task-results.ts';

/** What the audit and the dashboard count; each only grows during one life of a process. */
export interface WorkCounters {
  /** Orders (assign, store, hold) refused for an old token (fencing on). */
  staleRefused: number;
  /** Orders obeyed although their token was older than the newest seen (fencing off). */
  staleAccepted: number;
  /** Results with a wrong value, for an unknown task, or for a task never given to their sender. */
  wrong: number;
  /** Tasks this process computed (the audit's duplicate work is computations beyond one per task). */
  computed: number;
  /** Results that arrived for a task already done (a slow worker's, after reassignment). */
  duplicates: number;
  /** Tasks given to another worker after theirs was presumed crashed or came back empty. */
  reassigned: number;
  /** Orders dropped because the worker's queue was full. */
  dropped: number;
  /** Work messages that did not fit their schema or came from an unknown id. */
  ignored: number;
}

export const ZERO_COUNTERS: WorkCounters = {
  staleRefused: 0,
  staleAccepted: 0,
  wrong: 0,
  computed: 0,
  duplicates: 0,
  reassigned: 0,
  dropped: 0,
  ignored: 0,
};

/** An order a worker holds: the task, the token it came with and whom it came from. */
export interface Order {
  task: number;
  token: number;
  from: ProcessId;
  reportTo: ProcessId;
}

/** A coordinator's term of office (dynamic sharing). */
export interface Office {
  token: number;
  /** Gathering: waiting for answers to "what do you hold?" before handing out tasks. */
  phase: 'gathering' | 'running';
  analyser: ProcessId | null;
  /** Tasks not done and not running, in order. */
  queued: number[];
  /** Worker -> the task it runs. */
  running: Record<ProcessId, number>;
  /** Worker -> when its running task was given (or found running). */
  since: Record<ProcessId, number>;
  /** Task -> its checked value: the coordinator's copy of every result. */
  done: Results;
  doneCount: number;
  /** Task -> the workers it was ever given to (a result from anyone else is "never given"). */
  givenTo: readonly (readonly ProcessId[])[];
  /** Worker -> its boot as last heard: a new one means it restarted empty. */
  boots: Record<ProcessId, number>;
  /** Worker -> when it was last heard (ctx.now); absent: presumed crashed. */
  heard: Record<ProcessId, number>;
  /** While gathering: what each answerer keeps as analyser. */
  storedBy: Record<ProcessId, number[]>;
}

export interface WorkState<S = unknown> {
  election: S;
  self: ProcessId;
  /** ctx.now when this life began: tells the coordinator a restarted process from a live one. */
  boot: number;
  ids: readonly ProcessId[];
  job: WorkJob;
  /** The job's answers (answerKey): shared by every state, never copied. */
  key: readonly number[];
  timing: Timing;
  /** The election's last report, read after every step: who believes itself coordinator. */
  last: Report;
  /** The newest token this process has seen. */
  newest: number;
  /** Whom status and results go to: the sender of the newest order obeyed. */
  boss: ProcessId | null;
  /** The boot of the office that asked "what do you hold?" with the newest token. */
  askedBy: number | null;
  running: Order | null;
  queue: Order[];
  /** Results this process computed or received, until the job ends. */
  held: Record<number, number>;
  /** As analyser: the results kept, keyed by task; `storeSize` of them; the last one added. */
  store: Results;
  storeSize: number;
  lastStored: number | null;
  /** The task finished in this step, for the audit (null otherwise). */
  lastDone: number | null;
  office: Office | null;
  c: WorkCounters;
}

export const count = <S>(s: WorkState<S>, k: keyof WorkCounters, n = 1): WorkState<S> => ({
  ...s,
  c: { ...s.c, [k]: s.c[k] + n },
});
