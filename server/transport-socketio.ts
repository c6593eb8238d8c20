// socket.io transport: browser tabs, the dashboard and bots. Every frame travels as the single
// argument of a `frame` event. Outgoing frames are written pre-encoded (the socket.io packet
// `2["frame",<json>]` on the default namespace), so a batch encoded once serves every observer.
// Incoming packets are measured before socket.io decodes them, to enforce the frame size limit.
import type { Server as HttpServer } from 'node:http';
import type { Socket as NetSocket } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { MAX_FRAME_BYTES, type ClientToServerEvents, type ServerToClientEvents } from '@shared/protocol/frames.ts';
import { newConnId, type Conn } from './conn.ts';
import { TickCork } from './cork.ts';
import type { Session } from './session.ts';

interface SocketIoOptions {
  newSession: (conn: Conn) => Session;
  /** Packets queued in engine.io before the peer counts as overloaded. */
  maxBacklogFrames: number;
  maxPayload: number;
}

type IoSocket = Socket<ClientToServerEvents, ServerToClientEvents>;
interface EngineSocket {
  writeBuffer: unknown[];
  /** engine.io's transport; over WebSocket, `socket` is a ws WebSocket on a net.Socket. */
  transport?: { socket?: { _socket?: NetSocket } };
  write(data: string): void;
  on(event: 'packet', fn: (p: { type: string; data?: unknown }) => void): void;
  on(event: 'flush', fn: () => void): void;
}

/** `2["frame",` + `]` around the frame's JSON. */
const PACKET_OVERHEAD = 11;

class SocketIoConn implements Conn {
  readonly id = newConnId();
  readonly transport = 'socketio' as const;

  private readonly cork = new TickCork();

  /**
   * Frames leave in one write per tick over WebSocket (server/cork.ts); polling is left alone.
   * engine.io queues packets while its previous write is unconfirmed and sends the queue on
   * 'flush', from a write callback, not from sendText: that burst is corked too.
   */
  constructor(
    private readonly socket: IoSocket,
    private readonly maxBacklog: number,
  ) {
    this.engine.on('flush', () => this.cork.before(this.engine.transport?.socket?._socket));
  }

  private get engine(): EngineSocket {
    return this.socket.conn as unknown as EngineSocket;
  }

  sendText(json: string): void {
    if (!this.socket.connected) return;
    const engine = this.engine;
    this.cork.before(engine.transport?.socket?._socket);
    engine.write(`2["frame",${json}]`);
  }

  overloaded(): boolean {
    return this.engine.writeBuffer.length > this.maxBacklog;
  }

  close(): void {
    this.socket.disconnect(true);
  }
}

export function createSocketIo(http: HttpServer, opts: SocketIoOptions): Server<ClientToServerEvents, ServerToClientEvents> {
  const io = new Server<ClientToServerEvents, ServerToClientEvents>(http, {
    serveClient: false,
    maxHttpBufferSize: opts.maxPayload,
    // The relay routes upgrades itself (/ws is the raw WebSocket endpoint).
    destroyUpgrade: false,
    cors: { origin: true },
  });
  io.on('connection', (socket) => {
    const conn = new SocketIoConn(socket, opts.maxBacklogFrames);
    const session = opts.newSession(conn);
    let oversized = false;
    (socket.conn as unknown as EngineSocket).on('packet', (p) => {
      if (p.type !== 'message' || typeof p.data !== 'string') return;
      const len = p.data.length - PACKET_OVERHEAD;
      oversized = len > MAX_FRAME_BYTES || (len * 3 > MAX_FRAME_BYTES && Buffer.byteLength(p.data) - PACKET_OVERHEAD > MAX_FRAME_BYTES);
    });
    // onAny runs synchronously right after each packet is decoded (event handlers wait a tick),
    // so the size measured above belongs to this very packet.
    socket.onAny((event: string, ...args: unknown[]) => {
      const big = oversized;
      oversized = false;
      if (event === 'frame') session.onFrame(args[0], big);
      else session.onUnknownEvent();
    });
    socket.on('disconnect', () => session.close());
  });
  return io;
}
