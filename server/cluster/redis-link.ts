// The relay's one connection to Redis (node-redis), used only when REDIS_URL is set. It
// reconnects by itself with a capped backoff; while Redis is away every cluster call fails as a
// value and the relay keeps serving the labs it owns (docs/SCALING.md: leases are not consensus).
import { createClient, type RedisClientType } from 'redis';

export type Redis = RedisClientType;

export interface RedisLink {
  client: Redis;
  /** True while commands can be sent. */
  ready(): boolean;
  close(): Promise<void>;
}

/**
 * `queueOffline`: queue commands while disconnected (bounded) instead of failing them. The
 * cluster's own calls fail fast (a lease renewal must not wait for a Redis that is away), but
 * socket.io's Redis streams adapter needs queueing: its XREAD loop retries at once on an error,
 * and with commands failing fast that loop spins and starves the relay's event loop (seen here
 * during a Redis restart: every request to the relay timed out).
 */
export async function connectRedis(
  url: string,
  onError: (err: unknown) => void,
  queueOffline = false,
): Promise<RedisLink> {
  const client: Redis = createClient({
    url,
    socket: {
      connectTimeout: 2000,
      // Keep trying for as long as the relay runs: a Redis restart must not end the cluster.
      reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1000),
    },
    // Fail fast while disconnected, or queue a bounded number of commands.
    disableOfflineQueue: !queueOffline,
    commandsQueueMaxLength: 1000,
  });
  let lastLog = 0;
  client.on('error', (err: unknown) => {
    // A down Redis raises an error per reconnect attempt; one line every 5 s is enough.
    const now = Date.now();
    if (now - lastLog > 5000) {
      lastLog = now;
      onError(err);
    }
  });
  await client.connect();
  return {
    client,
    ready: () => client.isReady,
    close: async () => {
      try {
        await client.close();
      } catch {
        client.destroy();
      }
    },
  };
}
