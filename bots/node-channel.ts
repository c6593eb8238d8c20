// Channels for processes run by Node (the bot CLI, the scale run, tests): socket.io, or raw
// WebSocket through the `ws` package. Both reconnect by themselves, and LabProcess then rejoins
// with its resume token.
import WebSocket from 'ws';
import { socketIoChannel, wsChannel, type ChannelFactory } from '../shared/lab-client.ts';

export type BotTransport = 'socketio' | 'ws';

/** `url`: the relay's origin, e.g. http://127.0.0.1:3000. */
export function nodeChannel(url: string, transport: BotTransport): ChannelFactory {
  const origin = url.replace(/\/+$/, '');
  if (transport === 'socketio') return socketIoChannel(origin);
  return wsChannel(origin.replace(/^http/, 'ws') + '/ws', WebSocket);
}
