// Observers of the lab list (the home page): told `labs-changed` whenever a lab is created,
// removed or moves to another relay, so they fetch GET /api/labs again instead of polling.
// socket.io observers sit in one room; in a cluster socket.io's Redis streams adapter carries
// that room's broadcasts to every relay, and `serverSideEmit` tells the other relays to tell
// their raw WebSocket observers (ws connections bypass socket.io, so the adapter cannot reach them).
import type { Server } from 'socket.io';
import type { ClientToServerEvents, ServerToClientEvents } from '@shared/protocol/frames.ts';
import type { Conn } from './conn.ts';

const LAB_LIST_ROOM = 'lab-list';
const CHANGED = '{"type":"labs-changed"}';

export class LabListHub {
  /** Observers that are not in the socket.io room (raw WebSocket, in-process). */
  private readonly local = new Set<Conn>();

  constructor(
    private readonly io: Server<ClientToServerEvents, ServerToClientEvents>,
    private readonly clustered: boolean,
  ) {
    // Another relay's change: its socket.io observers were reached through the room already.
    if (clustered) io.on('labs-changed' as never, () => this.tellLocal());
  }

  add(conn: Conn): void {
    if (conn.joinRoom) conn.joinRoom(LAB_LIST_ROOM);
    else if (this.local.size < 10_000) this.local.add(conn);
  }

  remove(conn: Conn): void {
    this.local.delete(conn);
  }

  get size(): number {
    return this.local.size;
  }

  changed(): void {
    this.io.to(LAB_LIST_ROOM).emit('frame', { type: 'labs-changed' });
    this.tellLocal();
    if (this.clustered) this.io.serverSideEmit('labs-changed' as never);
  }

  private tellLocal(): void {
    for (const c of this.local) if (!c.overloaded()) c.sendText(CHANGED);
  }
}
