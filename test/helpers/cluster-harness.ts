// A real cluster on 127.0.0.1 for tests: a redis-server (Debian's, which .ci/run installs) and
// relays started as child processes (scripts/cluster/procs.ts), sharing one data folder.
// Everything is killed in `close()`; every wait is bounded.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  clusterApi,
  freePort,
  redisOn,
  startRelayProc,
  type ClusterApi,
  type RedisProc,
  type RelayProc,
} from '../../scripts/cluster/procs.ts';

export const CLUSTER_TOKEN = 'cluster-test-token';

export interface ClusterHarness {
  redis: RedisProc;
  relays: RelayProc[];
  dataDir: string;
  api: ClusterApi;
  close(): Promise<void>;
}

export async function startCluster(n: number, leaseMs = 1500): Promise<ClusterHarness> {
  const dataDir = await mkdtemp(join(tmpdir(), 'elab-cluster-'));
  const redis = redisOn(await freePort(), dataDir);
  await redis.start();
  const ports = await Promise.all(Array.from({ length: n }, () => freePort()));
  // One at a time: the first creates the demo lab, the others find it in the directory.
  const relays: RelayProc[] = [];
  for (let i = 0; i < n; i++)
    relays.push(
      await startRelayProc({
        id: String.fromCharCode(65 + i),
        port: ports[i]!,
        dataDir,
        token: CLUSTER_TOKEN,
        redisUrl: redis.url,
        leaseMs,
      }),
    );
  return {
    redis,
    relays,
    dataDir,
    api: clusterApi(CLUSTER_TOKEN),
    async close() {
      await Promise.all(relays.map((r) => r.kill('SIGKILL')));
      await redis.stop('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
