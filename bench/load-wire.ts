// The load generator's connection: the thinnest client that speaks the relay's wire frames
// (shared/protocol/frames.ts) over raw WebSocket (`/ws`, JSON text) or socket.io (one `frame` event,
// websocket transport only). The benchmark drives the relay and both baselines through this one
// module, so client-side cost is identical in every measurement and only the server differs.
import { io, type Socket } from 'socket.io-client';
import { WebSocket } from 'ws';
import type { ServerFrame } from '@shared/protocol/frames.ts';

export type Transport = 'ws' | 'socketio';

export interface Wire {
  send(frame: object): void;
  close(): void;
  /** Bytes queued in the socket and not yet written (ws only; 0 for socket.io). */
  buffered(): number;
}

export interface WireOptions {
  url: string;
  transport: Transport;
  onFrame: (frame: ServerFrame) => void;
  onClose?: () => void;
  /** Give up connecting after this long, ms. */
  timeoutMs?: number;
}

/** Opens a connection; resolves once it is open. */
export function openWire(opts: WireOptions): Promise<Wire> {
  return opts.transport === 'ws' ? openWs(opts) : openSocketIo(opts);
}

function openWs(opts: WireOptions): Promise<Wire> {
  const url = opts.url.replace(/^http/, 'ws').replace(/\/$/, '') + '/ws';
  const ws = new WebSocket(url, { perMessageDeflate: false });
  ws.on('message', (data) => opts.onFrame(JSON.parse(data.toString()) as ServerFrame));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`ws connect timeout: ${url}`));
    }, opts.timeoutMs ?? 10_000);
    ws.once('open', () => {
      clearTimeout(timer);
      ws.on('close', () => opts.onClose?.());
      resolve({
        send: (f) => ws.send(JSON.stringify(f)),
        close: () => ws.close(),
        buffered: () => ws.bufferedAmount,
      });
    });
    ws.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

function openSocketIo(opts: WireOptions): Promise<Wire> {
  const socket: Socket = io(opts.url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    timeout: opts.timeoutMs ?? 10_000,
  });
  socket.on('frame', (f: ServerFrame) => opts.onFrame(f));
  return new Promise((resolve, reject) => {
    socket.once('connect', () => {
      socket.on('disconnect', () => opts.onClose?.());
      resolve({
        send: (f) => socket.emit('frame', f),
        close: () => socket.disconnect(),
        buffered: () => 0,
      });
    });
    socket.once('connect_error', (err) => {
      socket.disconnect();
      reject(err);
    });
  });
}
