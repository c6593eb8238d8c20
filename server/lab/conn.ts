// What the labs need from a connection, whatever carries it (raw WebSocket, socket.io, or an
// in-process bot). Frames leave as JSON text encoded once by the caller, so a batch for many
// observers is stringified once, not once per observer.
import type { ServerFrame } from '@shared/protocol/frames.ts';

type TransportName = 'ws' | 'socketio' | 'server';

export interface Conn {
  /** Unique per relay, for logs and maps. */
  readonly id: number;
  readonly transport: TransportName;
  /** The peer's IP address (absent for the relay's own in-process bots): its byte budget's key. */
  readonly address?: string;
  /** Sends one frame already encoded as JSON text. */
  sendText(json: string): void;
  /** True while too much is queued for this peer; the relay then drops instead of queueing more. */
  overloaded(): boolean;
  /** Bytes queued for this peer, where the transport can tell: a shrinking backlog means it reads. */
  backlogBytes?(): number;
  /** Closes; a `reason` (at most 120 bytes) says why to a raw WebSocket peer (close code 1013). */
  close(reason?: string): void;
  /** socket.io connections only: join a socket.io room (broadcasts reach every relay of a cluster). */
  joinRoom?(room: string): void;
}

export function sendFrame(conn: Conn, frame: ServerFrame): void {
  conn.sendText(JSON.stringify(frame));
}

let nextConnId = 1;
export const newConnId = (): number => nextConnId++;
