// What a connection must get past before the relay spends anything on it: a cap on connections
// per IP (generous: a class behind one NAT must fit), a short deadline to send a request at all
// (half-open and silent sockets are reaped in seconds, not at Node's 60 s), and, for browsers,
// an allowed Origin. Processes without an Origin header (bots, other languages) are not browsers
// and pass.
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Counters } from '../lab/counters.ts';

export interface NetLimits {
  /** Open TCP connections from one address (default 512). */
  maxConnectionsPerIp: number;
  /** A new connection must send its first request within this (default 10 s). */
  firstRequestMs: number;
  /** Browser origins allowed besides the relay's own (default: http(s)://localhost and 127.0.0.1 on any port). */
  allowedOrigins: string[] | null;
}

export const DEFAULT_NET_LIMITS: NetLimits = {
  maxConnectionsPerIp: 512,
  firstRequestMs: 10_000,
  allowedOrigins: null,
};

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a browser request from `origin` may use the relay whose Host header is `host`. */
function originAllowed(
  origin: string | undefined,
  host: string | undefined,
  allowed: string[] | null,
): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (host && url.host === host) return true;
  if (allowed) return allowed.includes(url.origin);
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOCAL_HOSTS.has(url.hostname);
}

export const requestOriginAllowed = (req: IncomingMessage, allowed: string[] | null): boolean =>
  originAllowed(req.headers.origin, req.headers.host, allowed);

/** Installs the per-IP cap, the first-request deadline and Node's header and request timeouts. */
export function guardServer(server: Server, limits: NetLimits, counters: Counters): void {
  const perIp = new Map<string, number>();
  server.headersTimeout = Math.max(2000, Math.min(limits.firstRequestMs, 20_000));
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5000;
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress ?? '?';
    const n = (perIp.get(ip) ?? 0) + 1;
    if (n > limits.maxConnectionsPerIp) {
      counters.inc('connections-refused-per-ip');
      socket.destroy();
      return;
    }
    perIp.set(ip, n);
    socket.once('close', () => {
      const left = (perIp.get(ip) ?? 1) - 1;
      if (left <= 0) perIp.delete(ip);
      else perIp.set(ip, left);
    });
    // Silent sockets (half-open, or never a byte) go after `firstRequestMs`.
    socket.setTimeout(limits.firstRequestMs, () => {
      counters.inc('connections-timed-out');
      socket.destroy();
    });
  });
  const settled = (socket: Socket) => socket.setTimeout(0);
  server.on('request', (req: IncomingMessage) => settled(req.socket));
  server.on('upgrade', (req: IncomingMessage) => settled(req.socket));
}
