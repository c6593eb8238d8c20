// One socket.io connection to the relay. Every frame travels as the single `frame` event
// (shared/protocol/frames.ts). Returns refs for the connection state; frames sent before the socket is
// open wait in a short queue; `onOpen` runs on every (re)connect so callers can re-join or
// re-observe; the socket closes when the calling scope is disposed.
import { io, type Socket } from 'socket.io-client';
import { onScopeDispose, ref } from 'vue';
import type {
  ClientFrame,
  ClientToServerEvents,
  ServerFrame,
  ServerToClientEvents,
} from '@shared/protocol/frames.ts';
import { followMoved, useClusterFailover } from './use-cluster.ts';
import { reconnectWhenCut } from '../utils/reconnect.ts';

export type ConnectionStatus = 'connecting' | 'open' | 'closed';

export interface RelaySocket {
  status: import('vue').Ref<ConnectionStatus>;
  error: import('vue').Ref<string | null>;
  send(frame: ClientFrame): void;
  close(): void;
}

const MAX_QUEUED = 200;

export function useRelaySocket(handlers: {
  onFrame: (frame: ServerFrame) => void;
  onOpen?: () => void;
  onClose?: () => void;
}): RelaySocket {
  const status = ref<ConnectionStatus>('connecting');
  const error = ref<string | null>(null);
  const queue: ClientFrame[] = [];
  const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io({
    path: '/socket.io',
    transports: ['websocket', 'polling'],
    reconnectionDelay: 500,
    reconnectionDelayMax: 4000,
  });

  socket.on('connect', () => {
    status.value = 'open';
    error.value = null;
    handlers.onOpen?.();
    while (queue.length) socket.emit('frame', queue.shift()!);
  });
  const cut = reconnectWhenCut(socket, () => {
    error.value = 'The relay cut this connection off (it fell behind); reconnecting';
  });
  socket.on('disconnect', () => {
    status.value = socket.active || cut.pending() ? 'connecting' : 'closed';
    handlers.onClose?.();
  });
  socket.on('connect_error', () => {
    status.value = socket.active ? 'connecting' : 'closed';
    error.value = 'Cannot reach the relay; retrying';
  });
  socket.on('frame', (frame) =>
    frame.type === 'moved' ? followMoved(frame.url) : handlers.onFrame(frame),
  );
  useClusterFailover(status, (s) => s !== 'open');

  function send(frame: ClientFrame): void {
    if (socket.connected) socket.emit('frame', frame);
    else if (queue.length < MAX_QUEUED) queue.push(frame);
  }

  function close(): void {
    cut.stop();
    socket.removeAllListeners();
    socket.disconnect();
    status.value = 'closed';
  }

  onScopeDispose(close);
  return { status, error, send, close };
}
