// A page's socket after the relay cut it off (client/src/utils/reconnect.ts), against a real
// socket.io server on 127.0.0.1. The relay disconnects only a peer that stopped reading (an
// observer's TOO_SLOW, a full backlog) and tells it to connect again; socket.io's client does not
// reconnect by itself after a server's disconnect, so a dashboard cut off under load froze on a
// stale picture.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io as ioClient, type Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { reconnectWhenCut } from '../../client/src/utils/reconnect.ts';

let http: HttpServer | null = null;
let server: Server | null = null;
let client: Socket | null = null;

/** A socket.io server that cuts off its first `cuts` connections right after they open. */
async function serve(cuts: number): Promise<{ url: string; connections: () => number }> {
  http = createServer();
  server = new Server(http, { serveClient: false });
  let n = 0;
  server.on('connection', (socket) => {
    n++;
    if (n <= cuts) socket.disconnect(true);
  });
  await new Promise<void>((r) => http!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, connections: () => n };
}

afterEach(async () => {
  client?.close();
  client = null;
  await server?.close();
  server = null;
  http = null;
});

describe('a page socket the relay cut off', () => {
  it('connects again a moment later, and says it was cut off', async () => {
    const { url, connections } = await serve(1);
    client = ioClient(url, { transports: ['websocket'], forceNew: true });
    let connects = 0;
    let cuts = 0;
    client.on('connect', () => void connects++);
    const again = reconnectWhenCut(client, () => void cuts++, 50);
    await expect.poll(() => connects, { timeout: 10_000 }).toBe(2);
    expect([connections(), cuts, again.pending(), client.connected]).toEqual([2, 1, false, true]);
  });

  it('stays closed once stopped, even with a reconnection scheduled', async () => {
    const { url, connections } = await serve(Infinity);
    client = ioClient(url, { transports: ['websocket'], forceNew: true });
    const again = reconnectWhenCut(client, () => {}, 200);
    await expect.poll(() => again.pending(), { timeout: 10_000 }).toBe(true);
    again.stop();
    await new Promise((r) => setTimeout(r, 600));
    expect([connections(), again.pending(), client.connected]).toEqual([1, false, false]);
  });

  it('leaves a disconnect of its own page alone (no reconnection)', async () => {
    const { url, connections } = await serve(0);
    client = ioClient(url, { transports: ['websocket'], forceNew: true });
    const again = reconnectWhenCut(client, () => {}, 50);
    await expect.poll(() => client!.connected, { timeout: 10_000 }).toBe(true);
    client.disconnect();
    await new Promise((r) => setTimeout(r, 300));
    expect([connections(), again.pending(), client.connected]).toEqual([1, false, false]);
  });
});
