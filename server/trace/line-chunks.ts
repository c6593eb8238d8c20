// Lines waiting to be written, encoded as they arrive into off-heap chunks (Buffers). Kept as
// strings, a trace's unwritten lines (up to half a megabyte, each a rope of a dozen pieces) were
// copied by every young-generation garbage collection: scavenges took 4 to 6 ms at 20,000 msg/s
// instead of about 1 ms, and every message waiting behind one paid for it (the relay's p99).
// Bytes in a Buffer's backing store are not on the JavaScript heap, so a scavenge never copies them.

/** Bytes per chunk; a longer line gets a chunk of its own size. */
const CHUNK = 64 * 1024;
/** Written chunks kept for reuse (2 MiB): enough for a trace flushed at 512 KiB while the next fills. */
const SPARE = 32;

export class LineChunks {
  private sealed: Buffer[] = [];
  /**
   * Whole chunks whose bytes are on disk, to be filled again. A fresh chunk each time was external
   * memory V8 counts toward its next full collection: at 40,000 msg/s the trace's 18 MB a second
   * brought a mark-compact (2 to 6 ms, the relay stopped) every half second.
   */
  private spare: Buffer[] = [];
  private current: Buffer | null = null;
  private used = 0;
  /** UTF-8 bytes held, newlines included. */
  bytes = 0;

  /** Appends `line` and a newline. */
  push(line: string): void {
    // At most 3 bytes per UTF-16 unit (a surrogate pair's two units take 4 together).
    const chunk = this.reserve(line.length * 3);
    this.commit(this.used + chunk.write(line, this.used, 'utf8'));
  }

  /**
   * A line written in place (wire-encode.ts writes the per-message lines as bytes): the chunk to
   * write it into, with room for `max` bytes and a newline from `start`; then `commit` its end.
   */
  reserve(max: number): Buffer {
    if (this.current === null || this.used + max + 1 > this.current.length) this.next(max + 1);
    return this.current!;
  }

  /** Where the line being written starts. */
  get start(): number {
    return this.used;
  }

  /** Ends the line written since `reserve` at `end` (exclusive) with a newline. */
  commit(end: number): void {
    this.current![end] = 0x0a;
    this.bytes += end + 1 - this.used;
    this.used = end + 1;
  }

  get empty(): boolean {
    return this.bytes === 0;
  }

  /** Everything held, in order, as Buffers the caller now owns; empties this. */
  take(): Buffer[] {
    this.seal();
    const out = this.sealed;
    this.sealed = [];
    this.bytes = 0;
    return out;
  }

  /** Gives back chunks `take` handed out, once written: whole-size ones are filled again. */
  recycle(chunks: readonly Buffer[]): void {
    for (const c of chunks) {
      if (this.spare.length >= SPARE) return;
      if (c.buffer.byteLength === CHUNK && c.byteOffset === 0)
        this.spare.push(Buffer.from(c.buffer));
    }
  }

  private next(room: number): void {
    this.seal();
    this.current =
      room <= CHUNK
        ? (this.spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK))
        : Buffer.allocUnsafeSlow(room);
  }

  private seal(): void {
    if (this.current !== null && this.used > 0)
      this.sealed.push(this.current.subarray(0, this.used));
    // A sealed chunk is handed to a write in flight: never written into again.
    this.current = null;
    this.used = 0;
  }
}
