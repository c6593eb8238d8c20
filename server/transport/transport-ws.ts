// Raw WebSocket transport at /ws: one JSON frame per text message, the same frames as socket.io
// (docs/PROTOCOL.md). Dead peers are found by ping/pong; a peer that stops reading is reported
// as overloaded once `maxBacklogBytes` are queued, and the relay drops instead of queueing more.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { newConnId, type Conn } from '../lab/conn.ts';
import { FrameArena, FrameBatch } from './frame-batch.ts';
import type { Session } from '../lab/session.ts';

interface WsTransportOptions {
  newSession: (conn: Conn) => Session;
  maxBacklogBytes: number;
  /** Hard cap on one message; larger ones close the socket (smaller ones past the frame limit get an error frame). */
  maxPayload: number;
  heartbeatMs: number;
  /** A peer was cut off for not reading (its backlog passed CUT_OFF_FACTOR × maxBacklogBytes). */
  onCutOff?: () => void;
  /** Frames sent to a connection that had gone before they could be written (the peer closed first). */
  onGone?: (frames: number) => void;
}

/**
 * Past this many times the backlog bound, a peer is disconnected: it stopped reading, and what
 * the relay still owes it (error answers to its own bad frames, say) would grow without end.
 */
export const CUT_OFF_FACTOR = 4;

class WsConn implements Conn {
  readonly id = newConnId();
  readonly transport = 'ws' as const;
  alive = true;
  /** ws's own net.Socket (`_socket`, not in its typings), while the connection is open. */
  private readonly batch = new FrameBatch(() =>
    this.ws.readyState === WebSocket.OPEN
      ? ((this.ws as unknown as { _socket?: Socket })._socket ?? null)
      : null,
  );

  constructor(
    readonly ws: WebSocket,
    readonly address: string,
    private readonly arena: FrameArena,
    private readonly maxBacklog: number,
    private readonly onCutOff?: () => void,
    private readonly onGone?: (frames: number) => void,
  ) {}

  /** Encoded now, written with the rest of this tick's frames to this peer (server/transport/frame-batch.ts). */
  sendText(json: string): void {
    if (this.ws.readyState !== WebSocket.OPEN) return this.onGone?.(1);
    if (this.backlog() > CUT_OFF_FACTOR * this.maxBacklog) {
      // Not reading: cut it off now (terminate frees its buffers; a close handshake would wait on it).
      this.onCutOff?.();
      this.ws.terminate();
      return;
    }
    this.arena.send(this.batch, json);
  }

  /** Bytes queued in the socket, and this tick's frames not yet written. */
  backlogBytes(): number {
    return this.backlog();
  }

  private backlog(): number {
    return this.ws.bufferedAmount + this.batch.pending;
  }

  overloaded(): boolean {
    return this.backlog() > this.maxBacklog;
  }

  /**
   * Frames sent before the close go out before it (none may follow a close frame). With a
   * `reason` (the relay cut it off) the socket is destroyed 2 s later if the peer still does not
   * read, so what it was owed is freed.
   */
  close(reason?: string): void {
    this.arena.write(this.batch);
    if (!reason) return this.ws.close(1000);
    this.ws.close(1013, reason.slice(0, 120));
    setTimeout(() => this.ws.terminate(), 2000).unref();
  }
}

export class WsTransport {
  private readonly wss: WebSocketServer;
  private readonly conns = new Map<WsConn, Session>();
  private readonly arena: FrameArena;
  private readonly heartbeat: ReturnType<typeof setInterval>;

  constructor(private readonly opts: WsTransportOptions) {
    this.arena = new FrameArena(opts.onGone);
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: opts.maxPayload,
      perMessageDeflate: false,
    });
    this.heartbeat = setInterval(() => this.sweep(), opts.heartbeatMs);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.conns.size;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) =>
      this.accept(ws, req.socket.remoteAddress ?? '?'),
    );
  }

  /** Ends every session first (so their leaves are journaled before the labs close), then the sockets. */
  close(): void {
    clearInterval(this.heartbeat);
    for (const [c, session] of this.conns) {
      session.close();
      c.ws.terminate();
    }
    this.conns.clear();
    this.wss.close();
  }

  private accept(ws: WebSocket, address: string): void {
    const conn = new WsConn(
      ws,
      address,
      this.arena,
      this.opts.maxBacklogBytes,
      this.opts.onCutOff,
      this.opts.onGone,
    );
    const session = this.opts.newSession(conn);
    this.conns.set(conn, session);
    ws.on('message', (data, isBinary) => {
      conn.alive = true;
      session.onText(
        Array.isArray(data)
          ? Buffer.concat(data)
          : Buffer.isBuffer(data)
            ? data
            : Buffer.from(data),
        isBinary,
      );
    });
    ws.on('pong', () => (conn.alive = true));
    // Errors (a too-large message, a broken frame) close the socket; 'close' cleans up.
    ws.on('error', () => {});
    ws.on('close', () => {
      this.conns.delete(conn);
      session.close();
    });
  }

  private sweep(): void {
    for (const c of this.conns.keys()) {
      if (!c.alive) {
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      c.ws.ping();
    }
  }
}
