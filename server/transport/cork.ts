// One write per burst over socket.io: the scheduler delivers a batch of messages per timer pass,
// often several to one peer, and a system call per frame was the relay's largest cost. A
// connection corks its TCP socket at its first frame of a tick and uncorks it on the next tick;
// order is kept. (Raw WebSocket connections encode their frames into one buffer instead,
// server/transport/frame-batch.ts: engine.io owns socket.io's framing, so it keeps this cork.)
//
// Bounded: past MAX_CORKED frames in one tick the socket is flushed and corked again. Every
// frame held corked is alive until the flush, and a burst of hundreds of them (a read that
// brought a backlog of sends to one peer) was alive across young collections, which promote
// what survives: 81 MB of frames promoted in 4.5 s at 64,000 msg/s, against 2 MB with the bound
// (docs/RELIABILITY.md, "Tail latency"). Sixteen frames a write keeps the system calls saved.
import type { Socket } from 'node:net';

export const MAX_CORKED = 16;

export class TickCork {
  /** The socket while it is corked for the rest of this tick. */
  private corked: Socket | null = null;
  /** Frames written into the current cork. */
  private held = 0;

  /** Call before writing a frame to `socket` (undefined when the transport has none, e.g. polling). */
  before(socket: Socket | undefined): void {
    const corked = this.corked;
    if (corked !== null) {
      if (this.held >= MAX_CORKED) {
        corked.uncork();
        corked.cork();
        this.held = 0;
      }
      this.held++;
      return;
    }
    if (!socket || socket.destroyed) return;
    this.corked = socket;
    this.held = 1;
    socket.cork();
    process.nextTick(() => {
      const s = this.corked;
      this.corked = null;
      s?.uncork();
    });
  }
}
