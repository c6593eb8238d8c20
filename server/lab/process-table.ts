// Who holds which id in a lab. An id is held by at most one live connection; a second live claim
// is refused. A connection that drops keeps its id reserved for `graceMs` so that its resume
// token can take it back; after that anyone may claim it. The crashed flag belongs to the id,
// not the connection: a process that reconnects while crashed stays crashed.
import { randomBytes } from 'node:crypto';
import type { ProcessId, Report } from '@shared/algorithms/algorithm.ts';
import { fail, ok, type Result } from '@shared/protocol/errors.ts';
import type { ProcessKind, ProcessStatus } from '@shared/protocol/frames.ts';
import type { GradeSummary, ProcessMode } from '@shared/protocol/grade-summary.ts';
import type { Conn } from './conn.ts';

export interface ProcessEntry {
  readonly id: ProcessId;
  name: string | null;
  kind: ProcessKind | null;
  conn: Conn | null;
  /** Written only by `Lab.setProcessState` (server/lab/lab.ts), as `paused`. */
  readonly crashed: boolean;
  /** Paused by the instructor (SIGSTOP): it gets nothing and may send nothing until resumed. Cleared by crash, reset, reconfigure. */
  readonly paused?: boolean;
  /** Exceptions its algorithm threw (reported by its host with a `fault` frame). */
  faults?: number;
  report: Report | null;
  /** What its tab runs, as it last said (a `mode` frame); absent: never said. */
  mode?: ProcessMode;
  /** Its latest grade (a `grade` frame), when it came (the lab's clock), and the failing run's trace file if sent. */
  grade?: { summary: GradeSummary; at: number; trace: string | null };
  /** Checker findings that named this id while this holder had it. */
  findings?: number;
  resume: string | null;
  /** Until this clock time only the resume token may claim the id. */
  heldUntil: number;
  /** Wall-clock ms of the last join or leave (the roster's "since"); null before the first join. */
  since: number | null;
}

interface ClaimRequest {
  id?: ProcessId;
  resume?: string;
}

export function statusOf(e: ProcessEntry): ProcessStatus {
  return e.crashed ? 'crashed' : e.conn ? 'up' : 'absent';
}

export class ProcessTable {
  private readonly entries = new Map<ProcessId, ProcessEntry>();
  private readonly byToken = new Map<string, ProcessId>();
  /** Ids in ascending order, for "the next free id". */
  private order: ProcessId[] = [];

  constructor(ids: readonly ProcessId[]) {
    this.setIds(ids);
  }

  /** New id set: entries for new ids are added; entries for removed ids are returned (still connected ones must be told). */
  setIds(ids: readonly ProcessId[]): ProcessEntry[] {
    const keep = new Set(ids);
    const removed: ProcessEntry[] = [];
    for (const [id, e] of this.entries) {
      if (keep.has(id)) continue;
      this.entries.delete(id);
      if (e.resume) this.byToken.delete(e.resume);
      removed.push(e);
    }
    for (const id of ids) if (!this.entries.has(id)) this.entries.set(id, blank(id));
    this.order = [...keep].sort((a, b) => a - b);
    return removed;
  }

  get(id: ProcessId): ProcessEntry | undefined {
    return this.entries.get(id);
  }

  has(id: ProcessId): boolean {
    return this.entries.has(id);
  }

  /** The entry a resume token holds, if any (a student's lab session, checked). */
  byResume(token: string): ProcessEntry | null {
    const id = this.byToken.get(token);
    return id === undefined ? null : (this.entries.get(id) ?? null);
  }

  /** Entries in ascending id order. */
  list(): ProcessEntry[] {
    return this.order.map((id) => this.entries.get(id)!);
  }

  /**
   * Gives `conn` an id: the one its resume token names (taking it over from a stale connection),
   * the one it asks for if free, or the lowest free one. A person (any transport but the relay's
   * own bots) may take a server bot's id: the one she asks for, or, when no id is free, the
   * lowest a bot holds (a live one first); the bot yields (`yielded`, told `left`). Returns the
   * previous connection, if one was displaced by a resume.
   */
  claim(
    conn: Conn,
    req: ClaimRequest,
    now: number,
  ): Result<{
    entry: ProcessEntry;
    resumed: boolean;
    displaced: Conn | null;
    yielded?: Conn;
  }> {
    const tokenId = req.resume !== undefined ? this.byToken.get(req.resume) : undefined;
    if (tokenId !== undefined && (req.id === undefined || req.id === tokenId)) {
      const entry = this.entries.get(tokenId)!;
      const displaced = entry.conn && entry.conn !== conn ? entry.conn : null;
      entry.conn = conn;
      entry.heldUntil = 0;
      return ok({ entry, resumed: true, displaced });
    }
    const person = conn.transport !== 'server';
    const botHeld = (e: ProcessEntry) => person && e.conn?.transport === 'server';
    let entry: ProcessEntry | undefined;
    if (req.id !== undefined) {
      entry = this.entries.get(req.id);
      if (!entry) return fail('ID_NOT_IN_LAB');
      if ((entry.conn && !botHeld(entry)) || (!entry.conn && entry.heldUntil > now))
        return fail('ID_TAKEN', { message: `Id ${req.id} is already claimed by a live process` });
    } else {
      const list = this.list();
      entry =
        list.find((e) => !e.conn && e.heldUntil <= now) ??
        list.find((e) => botHeld(e) && !e.crashed) ??
        list.find(botHeld);
      if (!entry) return fail('LAB_FULL');
    }
    const yielded = entry.conn ?? undefined;
    if (entry.resume) this.byToken.delete(entry.resume);
    entry.resume = randomBytes(18).toString('base64url');
    this.byToken.set(entry.resume, entry.id);
    entry.conn = conn;
    entry.heldUntil = 0;
    entry.report = null;
    // Someone new holds the id: the last holder's name, kind, mode, grade and findings were theirs
    // (her hand figures are the lab's: Lab.join forgets them).
    entry.name = null;
    entry.kind = null;
    delete entry.mode;
    delete entry.grade;
    delete entry.findings;
    return ok({ entry, resumed: false, displaced: null, ...(yielded ? { yielded } : {}) });
  }

  /** The connection is gone: hold the id for its token until `holdUntil` (0: release it now, forgetting the token). */
  release(entry: ProcessEntry, holdUntil: number): void {
    entry.conn = null;
    entry.report = null;
    entry.heldUntil = holdUntil;
    if (holdUntil === 0 && entry.resume) {
      this.byToken.delete(entry.resume);
      entry.resume = null;
    }
  }

  /** Ids nobody holds or reserves (for bots). */
  free(now: number): ProcessId[] {
    return this.order.filter((id) => {
      const e = this.entries.get(id)!;
      return !e.conn && e.heldUntil <= now;
    });
  }
}

function blank(id: ProcessId): ProcessEntry {
  return {
    id,
    name: null,
    kind: null,
    conn: null,
    crashed: false,
    report: null,
    resume: null,
    heldUntil: 0,
    since: null,
  };
}
