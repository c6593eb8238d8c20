// Splits a child's output stream into numbered lines, holding at most `maxBytes` of one line: a
// node that writes a line without end (or slowly, a byte at a time) costs this much memory at
// most, and the overlong line is reported by number and skipped up to its newline, never kept.

export type LineEvent =
  | { kind: 'line'; n: number; text: string }
  /** Line `n` passed `maxBytes`; `bytes` is how many it had when it ended (or the stream did). */
  | { kind: 'overlong'; n: number; bytes: number };

export class LineReader {
  private parts: Buffer[] = [];
  private held = 0;
  /** Bytes of the current line so far, held or skipped. */
  private length = 0;
  private n = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly emit: (e: LineEvent) => void,
  ) {}

  /** Line numbers given so far (the last line's number). */
  get lines(): number {
    return this.n;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    if (this.length > 0) this.endLine();
  }

  private take(part: Buffer): void {
    this.length += part.length;
    if (this.length > this.maxBytes) {
      // Past the bound: let go of what was held; only the count goes on.
      this.parts = [];
      this.held = 0;
      return;
    }
    if (part.length === 0) return;
    // A copy: the stream may reuse its chunk's memory.
    this.parts.push(Buffer.from(part));
    this.held += part.length;
  }

  private endLine(): void {
    this.n++;
    if (this.length > this.maxBytes) this.emit({ kind: 'overlong', n: this.n, bytes: this.length });
    else {
      let text = Buffer.concat(this.parts, this.held).toString('utf8');
      if (text.endsWith('\r')) text = text.slice(0, -1);
      this.emit({ kind: 'line', n: this.n, text });
    }
    this.parts = [];
    this.held = 0;
    this.length = 0;
  }
}
