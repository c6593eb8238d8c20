// Outgoing WebSocket text frames, encoded as bytes the moment they are sent and written once per
// tick per connection. Through ws.send on a socket corked for the tick, every frame was a string
// kept to the end of the tick plus ws's header buffer, its [header, text] list and two queued
// writes; here the string is garbage as soon as it is copied into one buffer shared by every
// connection, and a connection's frames leave in one write of their own. With the checker's
// IntSet and the scheduler's at-once path it took the relay from about 3,000 to 2,550 bytes
// allocated per message (docs/RELIABILITY.md, "Tail latency", fourth pass).
//
// Frames are server-to-client, so unmasked (RFC 6455, section 5.2): 0x81 (FIN, text), then the
// length in 7, 16 or 64 bits. Each connection's frames keep their order; ws's own frames (pings,
// a close) may go out between two ticks' batches, which the protocol allows between whole messages.
import type { Socket } from 'node:net';

/** Bytes one tick may hold for all connections before they are written early. */
export const ARENA_BYTES = 256 * 1024;
/** A frame at least this large is written on its own instead of through the shared buffer. */
const OWN_WRITE_BYTES = ARENA_BYTES / 4;

/** The length of a text frame's header for `n` bytes of payload. */
function frameHeaderBytes(n: number): number {
  return n < 126 ? 2 : n < 65536 ? 4 : 10;
}

function putHeader(buf: Buffer, at: number, n: number): number {
  buf[at++] = 0x81;
  if (n < 126) {
    buf[at++] = n;
  } else if (n < 65536) {
    buf[at++] = 126;
    buf.writeUInt16BE(n, at);
    at += 2;
  } else {
    buf[at++] = 127;
    buf.writeUInt32BE(Math.floor(n / 2 ** 32), at);
    buf.writeUInt32BE(n >>> 0, at + 4);
    at += 8;
  }
  return at;
}

/** One text frame carrying `text`, in a buffer of its own. */
export function textFrame(text: string): Buffer {
  const n = Buffer.byteLength(text);
  const out = Buffer.allocUnsafe(frameHeaderBytes(n) + n);
  out.write(text, putHeader(out, 0, n), 'utf8');
  return out;
}

/** One connection's frames in the arena this tick. */
export class FrameBatch {
  /** [start, end) pairs of this connection's bytes in the arena, in send order. */
  readonly segments: number[] = [];
  /** Bytes waiting for the end of the tick, and how many frames they are. */
  pending = 0;
  frames = 0;
  queued = false;

  /** `socket` is read at each write: null once the connection has gone (its frames are dropped). */
  constructor(readonly socket: () => Socket | null) {}
}

/** The buffer every connection's frames share for one tick (one per relay). */
export class FrameArena {
  /**
   * `onGone`: frames that could not be written because their connection had gone meanwhile (the
   * peer closed in the tick they were sent): counted, since every drop is recorded.
   */
  constructor(private readonly onGone: (frames: number) => void = () => {}) {}

  private buf = Buffer.allocUnsafe(ARENA_BYTES);
  private used = 0;
  private readonly queued: FrameBatch[] = [];
  private scheduled = false;
  private readonly onTick = (): void => {
    this.scheduled = false;
    this.flush();
  };

  /** Encodes a text frame for `batch`'s connection now; it is written at the end of the tick. */
  send(batch: FrameBatch, text: string): void {
    const n = Buffer.byteLength(text);
    const size = frameHeaderBytes(n) + n;
    if (size >= OWN_WRITE_BYTES) {
      // Large (a snapshot, an observer's batch): after what this connection already has queued.
      this.write(batch);
      const socket = batch.socket();
      if (socket && !socket.destroyed) socket.write(textFrame(text));
      else this.onGone(1);
      return;
    }
    if (this.used + size > this.buf.length) this.flush();
    const start = this.used;
    const at = putHeader(this.buf, start, n);
    const end = at + this.buf.write(text, at, 'utf8');
    this.used = end;
    const segs = batch.segments;
    // Back to back with its last frame (the usual burst to one peer): one segment grows.
    if (segs.length > 0 && segs[segs.length - 1] === start) segs[segs.length - 1] = end;
    else segs.push(start, end);
    batch.pending += size;
    batch.frames++;
    if (!batch.queued) {
      batch.queued = true;
      this.queued.push(batch);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(this.onTick);
    }
  }

  /** Writes every connection's queued frames, one write each, and empties the arena. */
  flush(): void {
    for (const batch of this.queued) {
      this.write(batch);
      batch.queued = false;
    }
    this.queued.length = 0;
    this.used = 0;
  }

  /** Writes `batch`'s queued frames now (before its connection closes, or a large frame). */
  write(batch: FrameBatch): void {
    const segs = batch.segments;
    if (segs.length === 0) return;
    const socket = batch.socket();
    if (socket && !socket.destroyed) {
      // Copied out: the arena is filled again next tick, and the socket may hold the bytes longer.
      const out = Buffer.allocUnsafe(batch.pending);
      let at = 0;
      for (let i = 0; i < segs.length; i += 2) at += this.buf.copy(out, at, segs[i]!, segs[i + 1]!);
      socket.write(out);
    } else this.onGone(batch.frames);
    segs.length = 0;
    batch.pending = 0;
    batch.frames = 0;
  }
}
