// How a client reaches the relay: a `ChannelFactory` over socket.io (`socketIoChannel`) or a
// plain WebSocket (`wsChannel`, given the WebSocket constructor: the browser's, or the `ws`
// package's in Node, so no Node-only import lives here). Both reconnect; the client (lab-client.ts)
// rejoins on `open`.
import { io as ioClient, type Socket } from 'socket.io-client';
import type { ClientFrame, ServerFrame } from '../protocol/frames.ts';

interface ChannelEvents {
  /** Connected (again): the client (re)sends its join or observe. */
  open(): void;
  frame(frame: ServerFrame): void;
  /** Connection lost; a reconnecting channel will call `open` again. */
  close(): void;
}

export interface Channel {
  /** Sends if connected; frames sent while disconnected are dropped (the network lost them). */
  send(frame: ClientFrame): void;
  close(): void;
}

export type ChannelFactory = (events: ChannelEvents) => Channel;

/** socket.io (browser tabs, the dashboard, bots); reconnects by itself. `url`: the relay's origin. */
export function socketIoChannel(url: string, opts: { reconnect?: boolean } = {}): ChannelFactory {
  return (events) => {
    const socket: Socket = ioClient(url, {
      transports: ['websocket'],
      reconnection: opts.reconnect ?? true,
      reconnectionDelay: 250,
      reconnectionDelayMax: 5000,
    });
    socket.on('connect', () => events.open());
    socket.on('disconnect', () => events.close());
    // A relay that is down never connects: say so, so a cluster client can try another relay.
    socket.on('connect_error', () => events.close());
    socket.on('frame', (f: ServerFrame) => events.frame(f));
    return {
      send: (frame) => void (socket.connected && socket.emit('frame', frame)),
      close: () => void socket.disconnect(),
    };
  };
}

/**
 * The part of the WebSocket API both the browser's and the `ws` package's sockets have. Handler
 * parameters are `never` so either library's event types fit; the handlers set below say what
 * they read.
 */
interface WebSocketLike {
  readyState: number;
  onopen: ((ev: never) => void) | null;
  onmessage: ((ev: never) => void) | null;
  onclose: ((ev: never) => void) | null;
  onerror: ((ev: never) => void) | null;
  send(data: string): void;
  close(code?: number): void;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** Plain WebSocket at `<relay>/ws`, JSON text frames; reconnects with backoff (250 ms doubling to 5 s). */
export function wsChannel(
  url: string,
  WebSocketImpl: WebSocketConstructor,
  opts: { reconnect?: boolean } = {},
): ChannelFactory {
  return (events) => {
    let socket: WebSocketLike | null = null;
    let closed = false;
    let delay = 250;
    let retry: ReturnType<typeof setTimeout> | null = null;
    const connect = () => {
      const s = new WebSocketImpl(url);
      socket = s;
      s.onopen = () => {
        delay = 250;
        events.open();
      };
      s.onmessage = (ev: { data: unknown }) => {
        if (typeof ev.data !== 'string') return;
        let frame: ServerFrame;
        try {
          frame = JSON.parse(ev.data) as ServerFrame;
        } catch {
          return;
        }
        events.frame(frame);
      };
      s.onerror = () => {};
      s.onclose = () => {
        if (socket !== s) return;
        socket = null;
        events.close();
        if (closed || opts.reconnect === false) return;
        retry = setTimeout(connect, delay);
        delay = Math.min(5000, delay * 2);
      };
    };
    connect();
    return {
      send: (frame) => {
        if (socket && socket.readyState === 1) socket.send(JSON.stringify(frame));
      },
      close: () => {
        closed = true;
        if (retry) clearTimeout(retry);
        socket?.close(1000);
      },
    };
  };
}
