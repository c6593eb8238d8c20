// A lab's trace on disk: one JSON object per line in DATA_DIR/<lab>.jsonl. Appends are buffered
// and written asynchronously every `flushMs` (never a synchronous write per message); `close`
// writes whatever is buffered, so a graceful shutdown loses nothing. After a restart the file is
// read back to continue the sequence numbers, the message ids and every process's clocks.
import { createReadStream } from 'node:fs';
import { appendFile, mkdir, rename, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import type { Stamp } from './logical-clocks.ts';

/** Where a reloaded trace left off. */
export interface TraceTail {
  nextSeq: number;
  lastT: number;
  nextMsg: number;
  stamps: Map<ProcessId, Stamp>;
  /** Lines that did not parse (a torn last line after a hard kill). */
  badLines: number;
}

const FLUSH_BYTES = 512 * 1024;

export class TraceStore {
  private buffer: string[] = [];
  private bufferedBytes = 0;
  private chain: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  writeErrors = 0;

  constructor(
    readonly path: string,
    private readonly flushMs = 200,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  static pathFor(dir: string, lab: string): string {
    return join(dir, `${lab}.jsonl`);
  }

  append(line: string): void {
    if (this.closed) return;
    this.buffer.push(line);
    this.bufferedBytes += line.length + 1;
    if (this.bufferedBytes >= FLUSH_BYTES) void this.flush();
    else if (this.timer === null) this.timer = setTimeout(() => void this.flush(), this.flushMs);
  }

  /** Writes everything appended so far; resolves once it is on disk (in order with earlier flushes). */
  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer.length > 0) {
      const text = this.buffer.join('\n') + '\n';
      this.buffer = [];
      this.bufferedBytes = 0;
      this.chain = this.chain.then(() =>
        appendFile(this.path, text).catch((err: unknown) => {
          this.writeErrors++;
          this.onError(err);
        }),
      );
    }
    return this.chain;
  }

  /** Writes everything, including lines appended while earlier writes were under way; later appends are ignored. */
  async close(): Promise<void> {
    do await this.flush();
    while (this.buffer.length > 0);
    this.closed = true;
  }

  /**
   * Starts a fresh trace (a lab reset): what is buffered goes to the current file, which then
   * moves to `archive/` beside it. The swap is queued in the write chain, so events appended
   * from now on land in the new file. Resolves to the archived path.
   */
  rotate(): Promise<string | null> {
    const old = this.buffer.length ? this.buffer.join('\n') + '\n' : '';
    this.buffer = [];
    this.bufferedBytes = 0;
    const dir = dirname(this.path);
    const target = join(dir, 'archive', `${basename(this.path, '.jsonl')}-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
    let moved: string | null = null;
    this.chain = this.chain.then(async () => {
      try {
        if (old) await appendFile(this.path, old);
        if (!(await exists(this.path))) return;
        await mkdir(dirname(target), { recursive: true });
        await rename(this.path, target);
        moved = target;
      } catch (err) {
        this.writeErrors++;
        this.onError(err);
      }
    });
    return this.chain.then(() => moved);
  }
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
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    try {
      yield JSON.parse(line) as TraceEvent;
    } catch {
      onBad?.();
    }
  }
}

/** Reads a trace back to find where it left off. */
export async function loadTail(path: string): Promise<TraceTail> {
  const tail: TraceTail = { nextSeq: 0, lastT: 0, nextMsg: 1, stamps: new Map(), badLines: 0 };
  for await (const e of readTrace(path, () => tail.badLines++)) {
    if (typeof e.seq === 'number') tail.nextSeq = Math.max(tail.nextSeq, e.seq + 1);
    if (typeof e.t === 'number') tail.lastT = Math.max(tail.lastT, e.t);
    if ('msg' in e && typeof e.msg === 'number') tail.nextMsg = Math.max(tail.nextMsg, e.msg + 1);
    const at = e.kind === 'send' ? e.from : e.kind === 'deliver' ? e.to : 'node' in e ? e.node : undefined;
    if (at !== undefined && typeof e.lamport === 'number') tail.stamps.set(at, { lamport: e.lamport, ...(e.vector ? { vector: e.vector } : {}) });
  }
  return tail;
}
