// A lab's trace on disk: one JSON object per line in DATA_DIR/<lab>.jsonl. Appends are buffered
// and written asynchronously every `flushMs` (never a synchronous write per message); `close`
// writes whatever is buffered, so a graceful shutdown loses nothing. Observers are sent events
// only once they are written (observers.ts), so a kill -9 loses nothing anyone saw. After a
// restart only the file's end is read (trace-tail.ts).
//
// Bounded: past `maxBytes` for this lab, or past the relay's disk budget, the trace goes lean:
// message events (send, deliver, drop, duplicate) are no longer written, only counted, while
// every other event (reports, crashes, partitions, findings, elections) still is, so the checker's
// and replay's view of who believed whom stays whole; `FULL_ALLOWANCE` further on, nothing is
// written but one note (`full`). The bytes accepted but not yet on disk are bounded too: past
// `maxPendingBytes` the trace is `behind` until half of that is written (the lab then refuses new
// messages and writes no message event, trace-gate.ts), and past twice that (`overflowing`) no
// event is added at all. docs/RELIABILITY.md has the policy.
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import type { DiskBudget } from './disk-budget.ts';
import { LineChunks } from './line-chunks.ts';

const FLUSH_BYTES = 512 * 1024;

interface TraceLimits {
  /** This lab's trace size past which it goes lean (bytes). */
  maxBytes: number;
  /** The relay's budget for all traces. */
  budget?: DiskBudget;
  /** Bytes appended but not yet written past which the trace is `behind` (default 32 MiB). */
  maxPendingBytes?: number;
  /** Test hook (TRACE_WRITE_MS_PER_MIB): every write first waits this long per MiB it carries, a slow disk. */
  writeMsPerMiB?: number;
}

export const DEFAULT_TRACE_MAX_BYTES = 2 ** 30;
const DEFAULT_TRACE_MAX_PENDING_BYTES = 32 * 2 ** 20;
/** Past the lab's cap (or the disk budget) by this much, no event is written at all (trace-gate.ts). */
export const FULL_ALLOWANCE = 2 ** 20;

/**
 * Asked before every write (a cluster's fencing, lab-fence.ts and cluster/cluster-member.ts): 'write';
 * 'wait' while this relay cannot confirm its lease (asked again shortly); 'refuse' once another
 * relay owns the lab: nothing more is written, what was buffered is dropped and counted.
 */
export type WriteGuard = () => 'write' | 'wait' | 'refuse';
const GUARD_RETRY_MS = 25;

export class TraceStore {
  private readonly pending = new LineChunks();
  /** Bytes handed to a write that has not finished yet (counted toward the cap meanwhile). */
  private writing = 0;
  private chain: Promise<void> = Promise.resolve();
  /** The next write, queued behind the one under way: it takes whatever is pending when it starts. */
  private queued: Promise<void> | null = null;
  /** Rotations so far: a write queued before one leaves the lines appended after it to the new file. */
  private generation = 0;
  /** Lines a rotation handed to the write queued before it. */
  private handoff: Buffer[] = [];
  private isBehind = false;
  private readonly maxPending: number;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  writeErrors = 0;
  private handle: FileHandle | null = null;
  /** Bytes in the file (as of the last write). */
  size: number;
  /** Message events left out since the trace went lean. */
  unrecorded = 0;
  guard: WriteGuard | null = null;
  /** Bytes not written because the guard refused them (the lab belongs to a newer owner). */
  fencedBytes = 0;

  constructor(
    readonly path: string,
    private readonly flushMs = 200,
    private readonly onError: (err: unknown) => void = () => {},
    private readonly limits: TraceLimits = { maxBytes: DEFAULT_TRACE_MAX_BYTES },
    initialSize = 0,
  ) {
    this.size = initialSize;
    this.maxPending = limits.maxPendingBytes ?? DEFAULT_TRACE_MAX_PENDING_BYTES;
  }

  /** Bytes appended and not yet on disk (pending, and handed to a write under way). */
  get backlog(): number {
    return this.writing + this.pending.bytes;
  }

  /**
   * True from the moment the backlog passes `maxPendingBytes` until it is below half of it: the
   * disk (or the event loop that completes its writes) is not keeping up.
   */
  get behind(): boolean {
    const b = this.backlog;
    if (b > this.maxPending) this.isBehind = true;
    else if (b < this.maxPending / 2) this.isBehind = false;
    return this.isBehind;
  }

  /** True past twice `maxPendingBytes` waiting: no event at all should be added until it drains. */
  get overflowing(): boolean {
    return this.backlog > 2 * this.maxPending;
  }

  /** True once nothing more should be written: `FULL_ALLOWANCE` past the lab's cap or the disk budget. */
  get full(): boolean {
    const budget = this.limits.budget;
    return (
      this.size + this.backlog > this.limits.maxBytes + FULL_ALLOWANCE ||
      (budget !== undefined && budget.used > budget.limit + FULL_ALLOWANCE)
    );
  }

  /** True once message events should no longer be written (the lab's cap or the disk budget). */
  get lean(): boolean {
    return (
      this.size + this.writing + this.pending.bytes > this.limits.maxBytes ||
      (this.limits.budget?.over ?? false)
    );
  }

  static pathFor(dir: string, lab: string): string {
    return join(dir, `${lab}.jsonl`);
  }

  append(line: string): void {
    if (this.closed) return;
    this.pending.push(line);
    this.appended();
  }

  /**
   * A line written in place as bytes (the per-message lines, wire-encode.ts): a buffer with room
   * for `max` bytes from `lineStart`, or null once closed; then `commit` where the line ends.
   */
  reserve(max: number): Buffer | null {
    return this.closed ? null : this.pending.reserve(max);
  }

  get lineStart(): number {
    return this.pending.start;
  }

  commit(end: number): void {
    this.pending.commit(end);
    this.appended();
  }

  private appended(): void {
    if (this.pending.bytes >= FLUSH_BYTES) void this.flush();
    else if (this.timer === null) this.timer = setTimeout(() => void this.flush(), this.flushMs);
  }

  /**
   * Writes everything appended so far; resolves once it is on disk (in order with earlier
   * flushes). While a write is under way the next one waits, and takes everything appended by
   * the time it starts: a disk (or a busy event loop) that falls behind gets larger writes, not
   * a longer queue of small ones (at 512 KiB each, one per loop turn, a flood outran it 30 to 1).
   */
  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.empty) return this.chain;
    if (this.queued) return this.queued;
    const generation = this.generation;
    const next = this.chain.then(() => this.writePending(generation));
    this.queued = next;
    this.chain = next;
    return next;
  }

  private async writePending(generation: number): Promise<void> {
    if (generation !== this.generation) {
      // A rotation came between: it handed over the lines appended before it (they belong to the
      // old file, which it moves after this); what is pending now belongs to the new file.
      const handed = this.handoff;
      this.handoff = [];
      return this.writeChunks(
        handed,
        handed.reduce((n, c) => n + c.length, 0),
      );
    }
    this.queued = null;
    if (this.pending.empty) return;
    const bytes = this.pending.bytes;
    return this.writeChunks(this.pending.take(), bytes);
  }

  private async writeChunks(chunks: Buffer[], bytes: number): Promise<void> {
    if (bytes === 0) return;
    // Until the write lands these bytes are neither pending nor in `size`: without counting
    // them the trace would leave lean mode for the length of every write.
    this.writing += bytes;
    if (!(await this.mayWrite())) {
      this.writing -= bytes;
      this.fencedBytes += bytes;
      return;
    }
    try {
      const slow = this.limits.writeMsPerMiB;
      if (slow) await new Promise((r) => setTimeout(r, Math.max(1, (bytes / 2 ** 20) * slow)));
      await this.write(chunks);
      this.writing -= bytes;
      this.size += bytes;
      this.limits.budget?.add(bytes);
      this.pending.recycle(chunks);
    } catch (err) {
      this.writing -= bytes;
      this.writeErrors++;
      this.onError(err);
      // Open afresh next time (the disk may come back; the file may have been moved).
      void this.release();
    }
  }

  /** The guard's answer, waited for; once refused, the store takes nothing more. */
  private async mayWrite(): Promise<boolean> {
    if (this.guard === null) return true;
    let answer = this.guard();
    while (answer === 'wait') {
      await new Promise((r) => setTimeout(r, GUARD_RETRY_MS));
      answer = this.guard();
    }
    if (answer === 'write') return true;
    this.closed = true;
    this.fencedBytes += this.pending.bytes;
    this.pending.take();
    return false;
  }

  /**
   * The file stays open between writes (opening and closing it per flush cost as much as the
   * write under load); `release` closes it (a rotation, an error, the end).
   */
  private async write(chunks: Buffer[]): Promise<void> {
    this.handle ??= await open(this.path, 'a');
    let rest = chunks;
    // A short write (rare for a file, but allowed) carries on with what is left.
    while (rest.length > 0) {
      const { bytesWritten } = await this.handle.writev(rest);
      rest = unwritten(rest, bytesWritten);
    }
  }

  private async release(): Promise<void> {
    const h = this.handle;
    this.handle = null;
    await h?.close().catch(() => {});
  }

  /** Writes everything, including lines appended while earlier writes were under way; later appends are ignored. */
  async close(): Promise<void> {
    do await this.flush();
    while (!this.pending.empty);
    this.closed = true;
    await this.release();
  }

  /**
   * Starts a fresh trace (a lab reset): what is buffered goes to the current file, which then
   * moves to `archive/` beside it. The swap is queued in the write chain, so events appended
   * from now on land in the new file. Resolves to the archived path.
   */
  rotate(): Promise<string | null> {
    this.generation++;
    let old = this.pending.take();
    if (this.queued) {
      // The queued write runs before the swap, and those waiting on it expect these lines written.
      this.handoff = old;
      old = [];
      this.queued = null;
    }
    const dir = dirname(this.path);
    const target = join(
      dir,
      'archive',
      `${basename(this.path, '.jsonl')}-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`,
    );
    let moved: string | null = null;
    this.chain = this.chain.then(async () => {
      try {
        if (!(await this.mayWrite())) return;
        if (old.length) await this.write(old);
        await this.release();
        if (!(await exists(this.path))) return;
        await mkdir(dirname(target), { recursive: true });
        await rename(this.path, target);
        this.size = 0;
        moved = target;
      } catch (err) {
        this.writeErrors++;
        this.onError(err);
      }
    });
    return this.chain.then(() => moved);
  }
}

/** What is left of `chunks` after the first `written` bytes. */
function unwritten(chunks: Buffer[], written: number): Buffer[] {
  let i = 0;
  while (i < chunks.length && written >= chunks[i]!.length) written -= chunks[i++]!.length;
  if (i === chunks.length) return [];
  return [chunks[i]!.subarray(written), ...chunks.slice(i + 1)];
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The trace's lines in order; lines that do not parse are skipped and counted via `onBad`. */
export async function* readTrace(path: string, onBad?: () => void): AsyncGenerator<TraceEvent> {
  if (!(await exists(path))) return;
  const lines = createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  for await (const line of lines) {
    if (!line) continue;
    try {
      yield JSON.parse(line) as TraceEvent;
    } catch {
      onBad?.();
    }
  }
}
