// The lease keeper (server/cluster/lease-keeper.ts) against a real redis-server on 127.0.0.1:
// it renews a lease on its own thread (the key's TTL never runs down, the confirmed age stays
// under a renewal period), reports a lease another relay took as lost, and a keeper thread that
// died is started again and renews on.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, redisOn } from '../../scripts/cluster/procs.ts';
import { KEYS } from '../../server/cluster/keys.ts';
import { acquire } from '../../server/cluster/lease.ts';
import { LeaseKeeper, monoNow } from '../../server/cluster/lease-keeper.ts';
import { waitFor } from '../helpers/relay-harness.ts';

const LEASE_MS = 1500;
const cleanups: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('the lease keeper', () => {
  it('renews on its own thread, reports a lost lease, and comes back after its thread died', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keeper-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const redis = redisOn(await freePort(), dir);
    await redis.start();
    cleanups.push(() => redis.stop('SIGKILL'));
    const client = createClient({ url: redis.url });
    await client.connect();
    cleanups.push(() => client.close());
    const outcomes: string[] = [];
    const keeper = new LeaseKeeper(
      redis.url,
      LEASE_MS,
      KEYS,
      (lab, outcome) => outcomes.push(`${lab} ${outcome}`),
      () => {},
    );
    cleanups.push(() => keeper.close());
    await keeper.ready();

    const sent = monoNow();
    const lease = (await acquire(client as never, 'k1', 'A', LEASE_MS))!;
    expect(keeper.add('k1', lease, sent)).toBe(true);
    // Three leases long, the key never runs out and the confirmation stays fresh.
    for (let i = 0; i < 12; i++) {
      await new Promise((r) => setTimeout(r, LEASE_MS / 4));
      expect(await client.pTTL(KEYS.lease('k1'))).toBeGreaterThan(0);
    }
    expect(keeper.confirmedAge('k1')).toBeLessThan(LEASE_MS * 0.75);

    // Its thread dies: it is started again and renews on.
    await (keeper as unknown as { worker: Worker }).worker.terminate();
    await waitFor(() => keeper.restarts === 1, 5000, 'the keeper restarted');
    const after = monoNow();
    await waitFor(
      () => {
        const age = keeper.confirmedAge('k1');
        return age + 1 < monoNow() - after;
      },
      10_000,
      'a renewal by the new thread',
    );
    expect(await client.pTTL(KEYS.lease('k1'))).toBeGreaterThan(0);

    // Another relay holds the key now: lost, and never confirmed again.
    await client.set(KEYS.lease('k1'), 'B 2', { expiration: { type: 'PX', value: 10_000 } });
    await waitFor(() => outcomes.includes('k1 lost'), 5000, 'the lease reported lost');
    expect(keeper.confirmedAge('k1')).toBe(Infinity);
  }, 60_000);
});
