// One write per burst: the scheduler delivers a batch of messages per timer pass, often several
// to one peer, and a system call per frame was the relay's largest cost. A connection corks its
// TCP socket at its first frame of a tick and uncorks it on the next tick; order is kept.
import type { Socket } from 'node:net';

export class TickCork {
  /** The socket while it is corked for the rest of this tick. */
  private corked: Socket | null = null;

  /** Call before writing a frame to `socket` (undefined when the transport has none, e.g. polling). */
  before(socket: Socket | undefined): void {
    if (this.corked !== null || !socket || socket.destroyed) return;
    this.corked = socket;
    socket.cork();
    process.nextTick(() => {
      const s = this.corked;
      this.corked = null;
      s?.uncork();
    });
  }
}
