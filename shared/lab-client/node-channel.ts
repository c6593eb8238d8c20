// Channels for processes run by Node (the bot CLI, the scale run, tests): socket.io, or raw
// WebSocket through the `ws` package. Both reconnect by themselves, and LabProcess then rejoins
// with its resume token.
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import {
  socketIoChannel,
  wsChannel,
  type ChannelFactory,
  type WebSocketConstructor,
} from './lab-client.ts';

export type BotTransport = 'socketio' | 'ws';

/** `url`: the relay's origin, e.g. http://127.0.0.1:3000. */
export function nodeChannel(url: string, transport: BotTransport): ChannelFactory {
  const origin = url.replace(/\/+$/, '');
  if (transport === 'socketio') return socketIoChannel(origin);
  return wsChannel(origin.replace(/^http/, 'ws') + '/ws', BatchingWebSocket);
}

/**
 * A `ws` WebSocket whose sends within one tick leave in one write: a Bully process answering an
 * ELECTION sends up to N frames at once, and a syscall per frame was the bots' largest cost.
 * The socket is corked at the first send of a tick and uncorked on the next tick; order is kept.
 */
const BatchingWebSocket = function (this: unknown, url: string): WebSocket {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const send = ws.send.bind(ws);
  let corked: Socket | null = null;
  ws.send = ((data: string) => {
    const socket = (ws as unknown as { _socket?: Socket })._socket;
    if (socket && corked === null) {
      corked = socket;
      socket.cork();
      process.nextTick(() => {
        corked?.uncork();
        corked = null;
      });
    }
    send(data);
  }) as WebSocket['send'];
  return ws;
} as unknown as WebSocketConstructor;
