// The relay disconnects only a peer that stopped reading (an observer's TOO_SLOW, a full
// backlog), and its error says to connect again. socket.io's client reconnects by itself after a
// lost connection but not after a server's disconnect, so a page cut off under load froze on a
// stale picture. This connects again after `delayMs`: at most one reconnection a second.

/** The part of a socket.io client socket this needs. */
interface Reconnectable {
  on(event: 'connect', fn: () => void): unknown;
  on(event: 'disconnect', fn: (reason: string) => void): unknown;
  connect(): unknown;
}

export interface Reconnector {
  /** A reconnection is scheduled (the socket is not closed for good). */
  pending(): boolean;
  /** Cancels a scheduled reconnection and schedules no more. */
  stop(): void;
}

export function reconnectWhenCut(
  socket: Reconnectable,
  onCut: () => void,
  delayMs = 1000,
): Reconnector {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  socket.on('connect', () => {
    timer = null;
  });
  socket.on('disconnect', (reason) => {
    if (reason !== 'io server disconnect' || stopped) return;
    onCut();
    timer = setTimeout(() => {
      timer = null;
      if (!stopped) socket.connect();
    }, delayMs);
  });
  return {
    pending: () => timer !== null,
    stop: () => {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
