// The page's socket to the relay (client/src/composables/use-relay-socket.ts) against a real
// socket.io server on 127.0.0.1. The relay disconnects only a peer that stopped reading (an
// observer's TOO_SLOW, a full backlog) and tells it to connect again; socket.io's client does not
// reconnect by itself after a server's disconnect, so a dashboard cut off under load froze on a
// stale picture (CI: the lab resumed, the dashboard still said 'paused').
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { effectScope } from 'vue';
import { useRelaySocket } from '../client/src/composables/use-relay-socket.ts';

let http: HttpServer | null = null;
let io: Server | null = null;
const realLocation = Object.getOwnPropertyDescriptor(globalThis, 'location');

/** A socket.io server that cuts off its first `cuts` connections right after they open. */
async function serve(cuts: number): Promise<{ connections: () => number }> {
  http = createServer();
  io = new Server(http, { serveClient: false });
  let n = 0;
  io.on('connection', (socket) => {
    n++;
    if (n <= cuts) socket.disconnect(true);
  });
  await new Promise<void>((r) => http!.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  // The page connects to its own origin.
  Object.defineProperty(globalThis, 'location', {
    configurable: true,
    value: { protocol: 'http:', host: `127.0.0.1:${port}`, hostname: '127.0.0.1', port: String(port), href: `http://127.0.0.1:${port}/` },
  });
  return { connections: () => n };
}

afterEach(async () => {
  if (realLocation) Object.defineProperty(globalThis, 'location', realLocation);
  else Reflect.deleteProperty(globalThis, 'location');
  await io?.close();
  io = null;
  http = null;
});

describe('the page socket', () => {
  it('connects again after the relay cut it off, says so meanwhile, and runs onOpen again (to observe or join anew)', async () => {
    const server = await serve(1);
    const scope = effectScope();
    let opened = 0;
    const errors: (string | null)[] = [];
    const relay = scope.run(() => useRelaySocket({ onFrame: () => {}, onOpen: () => void opened++ }))!;
    const seen = setInterval(() => errors.push(relay.error.value), 20);
    try {
      await expect.poll(() => opened, { timeout: 10_000 }).toBe(2);
      expect(server.connections()).toBe(2);
      expect(errors).toContain('The relay cut this connection off (it fell behind); reconnecting');
      expect([relay.status.value, relay.error.value]).toEqual(['open', null]);
    } finally {
      clearInterval(seen);
      scope.stop();
    }
  });

  it('stays closed once its page is done with it, even with a reconnection pending', async () => {
    const server = await serve(Infinity);
    const scope = effectScope();
    const relay = scope.run(() => useRelaySocket({ onFrame: () => {} }))!;
    await expect.poll(() => server.connections(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => relay.status.value).toBe('connecting');
    scope.stop();
    await new Promise((r) => setTimeout(r, 1500));
    expect([server.connections(), relay.status.value]).toEqual([1, 'closed']);
  });
});
