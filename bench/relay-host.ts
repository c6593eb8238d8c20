// The relay as the benchmark runs it: the real createRelay, on 127.0.0.1 port 0, traces written
// to a temporary folder, no dashboard files. The per-connection flood limit is raised far above
// what the load can reach, so it does not cap the measurement (the token bucket still runs on
// every frame, so its cost is counted), as are the byte budgets (the same), and so is the per-address connection cap (512 by
// default): every bench process connects from 127.0.0.1, a thousand of them in the memory phase.
// Everything else is the relay's default.
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CreateLab } from '@shared/protocol/lab-config.ts';
import { labStats } from '../server/http/stats-routes.ts';
import { createRelay, type RelayOptions } from '../server/relay.ts';
import type { LabStats } from '@shared/protocol/frames.ts';

/** A lab's stats as the bench child reports them: the links counted, not listed, and what is in flight. */
export type BenchLabStats = Omit<LabStats, 'links'> & { linkCount: number; inFlight: number };

export const BENCH_TOKEN = 'bench-token';

export interface BenchRelay {
  port: number;
  createLab(body: CreateLab): Promise<void>;
  /** The lab's stats without the per-link list (a million entries in a 1,000-process Bully), plus its length. */
  labStats(name: string): BenchLabStats | null;
  close(): Promise<void>;
}

export async function startBenchRelay(overrides: Partial<RelayOptions> = {}): Promise<BenchRelay> {
  const dataDir = await mkdtemp(join(tmpdir(), 'election-lab-bench-'));
  const relay = await createRelay({
    dataDir,
    token: BENCH_TOKEN,
    clientDir: null,
    rateLimits: { rate: 10_000_000, burst: 10_000_000 },
    byteLimits: {
      perAddress: { rate: 2 ** 40, burst: 2 ** 40 },
      perLab: { rate: 2 ** 40, burst: 2 ** 40 },
    },
    net: { maxConnectionsPerIp: 100_000 },
    onError: (err) => console.error('[bench relay]', err),
    ...overrides,
  });
  await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
  return {
    port: (relay.server.address() as AddressInfo).port,
    async createLab(body) {
      await relay.labs.remove(body.name);
      const r = await relay.labs.create(body);
      if (!r.ok) throw new Error(`lab ${body.name}: ${r.error.message}`);
    },
    labStats(name) {
      const lab = relay.labs.get(name);
      if (!lab) return null;
      const { links, ...rest } = labStats(lab, relay.counters);
      return { ...rest, linkCount: links.length, inFlight: lab.scheduler.size };
    },
    async close() {
      await relay.close();
      await new Promise<void>((resolve) => relay.server.close(() => resolve()));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
