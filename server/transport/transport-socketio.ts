// socket.io transport: browser tabs, the dashboard and bots. Every frame travels as the single
// argument of a `frame` event. Outgoing frames are written pre-encoded (the socket.io packet
// `2["frame",<json>]` on the default namespace), so a batch encoded once serves every observer.
// Incoming packets are measured before socket.io decodes them, to enforce the frame size limit.
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Socket as NetSocket } from 'node:net';
import { Server, type ServerOptions, type Socket } from 'socket.io';
import {
  MAX_FRAME_BYTES,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from '@shared/protocol/frames.ts';
import { newConnId, type Conn } from '../lab/conn.ts';
import { TickCork } from './cork.ts';
import { CUT_OFF_FACTOR } from './transport-ws.ts';
import type { Session } from '../lab/session.ts';

interface SocketIoOptions {
  newSession: (conn: Conn) => Session;
  /** Packets queued in engine.io before the peer counts as overloaded. */
  maxBacklogFrames: number;
  /** Or bytes queued (engine.io's buffer and its WebSocket's), as for raw WebSocket peers. */
  maxBacklogBytes: number;
  maxPayload: number;
  /** Browsers from other origins are refused (server/transport/net-guard.ts). */
  allowRequest?: (req: IncomingMessage) => boolean;
  /** Counts refusals by kind ('ORIGIN_NOT_ALLOWED', 'cut-off'). */
  onRefused?: (what: string) => void;
  /** socket.io's adapter (a cluster: the Redis streams adapter); default: in memory. */
  adapter?: ServerOptions['adapter'];
}

type IoSocket = Socket<ClientToServerEvents, ServerToClientEvents>;
interface EngineSocket {
  writeBuffer: unknown[];
  /** engine.io's transport; over WebSocket, `socket` is a ws WebSocket on a net.Socket. */
  transport?: { socket?: { _socket?: NetSocket; bufferedAmount?: number } };
  write(data: string): void;
  on(event: 'packet', fn: (p: { type: string; data?: unknown }) => void): void;
  on(event: 'flush', fn: (buffer: { data?: unknown }[]) => void): void;
}

/** `2["frame",` + `]` around the frame's JSON. */
const PACKET_OVERHEAD = 11;

class SocketIoConn implements Conn {
  readonly id = newConnId();
  readonly transport = 'socketio' as const;

  private readonly cork = new TickCork();
  /** Bytes of our frames in engine.io's write buffer (a packet count alone let 5,000 batches of megabytes wait). */
  private buffered = 0;
  readonly address: string;

  /**
   * Frames leave in one write per tick over WebSocket (server/transport/cork.ts); polling is left alone.
   * engine.io queues packets while its previous write is unconfirmed and sends the queue on
   * 'flush', from a write callback, not from sendText: that burst is corked too.
   */
  constructor(
    private readonly socket: IoSocket,
    private readonly maxBacklog: number,
    private readonly maxBacklogBytes: number,
    private readonly onCutOff?: () => void,
    /** A frame for a connection that had already gone (counted: every drop is recorded). */
    private readonly onGone?: () => void,
  ) {
    this.address = socket.handshake.address;
    this.engine.on('flush', (buffer) => {
      for (const p of buffer) if (typeof p.data === 'string') this.buffered -= p.data.length;
      if (this.buffered < 0) this.buffered = 0;
      this.cork.before(this.engine.transport?.socket?._socket);
    });
  }

  /** Bytes queued for this peer: engine.io's buffer and, over WebSocket, the socket's. */
  backlogBytes(): number {
    return this.buffered + (this.engine.transport?.socket?.bufferedAmount ?? 0);
  }

  private get engine(): EngineSocket {
    return this.socket.conn as unknown as EngineSocket;
  }

  sendText(json: string): void {
    if (!this.socket.connected) return this.onGone?.();
    const engine = this.engine;
    if (
      engine.writeBuffer.length > CUT_OFF_FACTOR * this.maxBacklog ||
      this.backlogBytes() > CUT_OFF_FACTOR * this.maxBacklogBytes
    ) {
      // Not reading (server/transport/transport-ws.ts says why).
      this.onCutOff?.();
      this.socket.disconnect(true);
      return;
    }
    this.cork.before(engine.transport?.socket?._socket);
    const packet = `2["frame",${json}]`;
    this.buffered += packet.length;
    engine.write(packet);
  }

  overloaded(): boolean {
    return (
      this.engine.writeBuffer.length > this.maxBacklog || this.backlogBytes() > this.maxBacklogBytes
    );
  }

  close(): void {
    this.socket.disconnect(true);
  }

  joinRoom(room: string): void {
    void this.socket.join(room);
  }
}

export function createSocketIo(
  http: HttpServer,
  opts: SocketIoOptions,
): Server<ClientToServerEvents, ServerToClientEvents> {
  const io = new Server<ClientToServerEvents, ServerToClientEvents>(http, {
    serveClient: false,
    maxHttpBufferSize: opts.maxPayload,
    // The relay routes upgrades itself (/ws is the raw WebSocket endpoint).
    destroyUpgrade: false,
    cors: { origin: true },
    allowRequest: (req, callback) => {
      if (!opts.allowRequest || opts.allowRequest(req)) return callback(null, true);
      opts.onRefused?.('ORIGIN_NOT_ALLOWED');
      callback('origin not allowed', false);
    },
    ...(opts.adapter ? { adapter: opts.adapter } : {}),
  });
  io.on('connection', (socket) => {
    const conn = new SocketIoConn(
      socket,
      opts.maxBacklogFrames,
      opts.maxBacklogBytes,
      () => opts.onRefused?.('cut-off'),
      () => opts.onRefused?.('frames-to-gone-peer'),
    );
    const session = opts.newSession(conn);
    let oversized = false;
    let binary = false;
    (socket.conn as unknown as EngineSocket).on('packet', (p) => {
      if (p.type !== 'message') return;
      // A socket.io BINARY_EVENT (5) or BINARY_ACK (6) header, or an attachment itself.
      if (typeof p.data !== 'string' || p.data.startsWith('5') || p.data.startsWith('6')) {
        binary = true;
        return;
      }
      const len = p.data.length - PACKET_OVERHEAD;
      oversized =
        len > MAX_FRAME_BYTES ||
        (len * 3 > MAX_FRAME_BYTES &&
          Buffer.byteLength(p.data) - PACKET_OVERHEAD > MAX_FRAME_BYTES);
    });
    // onAny runs synchronously right after each packet is decoded (event handlers wait a tick),
    // so the size measured above belongs to this very packet.
    socket.onAny((event: string, ...args: unknown[]) => {
      const big = oversized;
      oversized = false;
      // Frames are JSON: binary attachments are refused before anything reads them (each one
      // could be referenced many times over and blow up into megabytes when re-encoded).
      if (binary) {
        binary = false;
        return session.onBinary();
      }
      if (event === 'frame') session.onFrame(args[0], big);
      else session.onUnknownEvent();
    });
    socket.on('disconnect', () => session.close());
  });
  return io;
}
