// Lease renewals on their own thread. Renewed from the relay's event loop, a lease depended on
// every socket read, frame and garbage collection of the labs it protects: student load delayed
// the renewals past the lease and another relay took the labs of a relay that was alive and
// answering (issue 23). A worker thread with its own Redis connection renews every owned lease
// every lease/4 and writes, in shared memory, when each renewal that succeeded was sent. The
// relay reads that before every write to a lab (`confirmedAge`): a lab it cannot vouch for is
// not written (cluster.ts, WriteGuard).
//
// The worker renews only while the relay's event loop shows signs of life (a stamp it writes
// every 100 ms, younger than four leases): a relay whose loop is stuck that long lets its leases
// run out, as a dead one would (a takeover then comes up to five leases after it got stuck).
// Four leases, because a flooded relay's loop was measured up to 3.1 s late at a 1.5 s lease
// (test/cluster/cluster-fencing.test.ts) while it went on serving.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { RENEW, leaseValue, type Lease } from './lease.ts';

/** At most this many leases at once (a relay holds at most `maxLabs`, 100 by default). */
const SLOTS = 1024;
const ALIVE_EVERY_MS = 100;
const RESPAWN_MS = 1000;

/** ms on the monotonic clock both threads share. */
export const monoNow = (): number => Number(process.hrtime.bigint() / 1000n) / 1000;

type FromWorker = { lab: string; outcome: 'lost' | 'reacquired' } | { ready: true };

const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const { createClient } = require(workerData.redisPath);
const { url, leaseMs, renewScript, shared } = workerData;
// [0]: the main thread's last stamp; [1 + slot]: when the last renewal that succeeded was sent
// (-1: lost); the last cell: the most the main thread's stamp was seen late (its event loop's lag).
const cells = new Float64Array(shared);
const LATE = cells.length - 1;
const now = () => Number(process.hrtime.bigint() / 1000n) / 1000;
const leases = new Map(); // lab -> { slot, key, epochKey, value, epoch }
const client = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: (n) => Math.min(50 * 2 ** n, 500) }, disableOfflineQueue: true });
client.on('error', () => {});
client.on('ready', () => parentPort.postMessage({ ready: true }));
// A first connection that fails (a loaded machine, Redis not up yet) is tried again.
const connect = () => client.connect().catch(() => setTimeout(connect, 500));
connect();
parentPort.on('message', (m) => {
  if (m.add) leases.set(m.add.lab, m.add);
  if (m.remove) leases.delete(m.remove);
});
let busy = false;
setInterval(async () => {
  const late = now() - cells[0];
  if (late > cells[LATE]) cells[LATE] = late;
  if (busy || !client.isReady) return;
  // A main thread stuck for four leases loses its leases like a dead relay.
  if (late > 4 * leaseMs) return;
  busy = true;
  await Promise.all([...leases.values()].map(async (l) => {
    const sent = now();
    let r;
    try {
      r = await client.eval(renewScript, { keys: [l.key, l.epochKey], arguments: [l.value, String(leaseMs), String(l.epoch)] });
    } catch { return; }
    if (leases.get(l.lab) !== l) return;
    if (r === 1 || r === 2) cells[1 + l.slot] = Math.max(cells[1 + l.slot], sent);
    else cells[1 + l.slot] = -1;
    if (r !== 1) parentPort.postMessage({ lab: l.lab, outcome: r === 2 ? 'reacquired' : 'lost' });
  }));
  busy = false;
}, Math.max(20, Math.floor(leaseMs / 4)));
`;

export class LeaseKeeper {
  private readonly cells = new Float64Array(new SharedArrayBuffer(8 * (SLOTS + 2)));
  private readonly slots = new Map<string, number>();
  /** What the worker is told for each lab it renews (sent again to a restarted worker). */
  private readonly adds = new Map<string, object>();
  private readonly free = Array.from({ length: SLOTS }, (_, i) => SLOTS - 1 - i);
  private worker!: Worker;
  private closing = false;
  private readonly alive: ReturnType<typeof setInterval>;
  /** Times the worker ended on its own (an error) and was started again. */
  restarts = 0;
  /** The worker's Redis connection came up at least once. */
  isReady = false;
  private onReady: () => void = () => {};
  private readonly connected = new Promise<void>((resolve) => (this.onReady = resolve));

  constructor(
    private readonly redisUrl: string,
    private readonly leaseMs: number,
    private readonly keys: { lease: (lab: string) => string; epoch: (lab: string) => string },
    private readonly onOutcome: (lab: string, outcome: 'lost' | 'reacquired') => void,
    private readonly onError: (err: unknown) => void,
  ) {
    this.cells[0] = monoNow();
    this.spawn();
    this.alive = setInterval(() => (this.cells[0] = monoNow()), ALIVE_EVERY_MS);
    this.alive.unref?.();
  }

  /** The worker, with small heap limits (it holds a Redis connection and a map), told every lease kept. */
  private spawn(): void {
    const redisPath = createRequire(import.meta.url).resolve('redis');
    const workerData = {
      redisPath,
      url: this.redisUrl,
      leaseMs: this.leaseMs,
      renewScript: RENEW,
      shared: this.cells.buffer,
    };
    const worker = new Worker(WORKER, {
      eval: true,
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 48 },
      workerData,
    });
    worker.on('message', (m: FromWorker) => {
      if (!('ready' in m)) return this.onOutcome(m.lab, m.outcome);
      this.isReady = true;
      this.onReady();
    });
    worker.on('error', this.onError);
    // A keeper that died would let every lease run out while the relay serves on: start it
    // again, a second later (a worker that cannot start does not spin).
    worker.on('exit', () => {
      if (this.closing) return;
      this.restarts++;
      setTimeout(() => this.closing || this.spawn(), RESPAWN_MS).unref?.();
    });
    worker.unref();
    for (const add of this.adds.values()) worker.postMessage({ add });
    this.worker = worker;
  }

  /** Keeps renewing `lease` (just acquired or renewed at `sentAt`). False when no slot is free. */
  add(lab: string, lease: Lease, sentAt: number): boolean {
    this.remove(lab);
    const slot = this.free.pop();
    if (slot === undefined) return false;
    this.slots.set(lab, slot);
    this.cells[1 + slot] = sentAt;
    const add = {
      lab,
      slot,
      key: this.keys.lease(lab),
      epochKey: this.keys.epoch(lab),
      value: leaseValue(lease),
      epoch: lease.epoch,
    };
    this.adds.set(lab, add);
    this.worker.postMessage({ add });
    return true;
  }

  remove(lab: string): void {
    const slot = this.slots.get(lab);
    if (slot === undefined) return;
    this.slots.delete(lab);
    this.adds.delete(lab);
    this.cells[1 + slot] = -1;
    // Reused last: a renewal of the old lease still in flight in the worker cannot touch a new lab's slot.
    this.free.unshift(slot);
    this.worker.postMessage({ remove: lab });
  }

  /**
   * Resolves once the worker's Redis connection is up (its start takes a second or two: it loads
   * the Redis client), or after `ms`: leases taken before would run out unrenewed.
   */
  ready(ms = 10_000): Promise<void> {
    return Promise.race([this.connected, new Promise<void>((r) => setTimeout(r, ms).unref?.())]);
  }

  /** ms since the last renewal that succeeded was sent; Infinity once lost or not kept here. */
  confirmedAge(lab: string): number {
    const slot = this.slots.get(lab);
    const at = slot === undefined ? -1 : this.cells[1 + slot]!;
    return at < 0 ? Infinity : monoNow() - at;
  }

  /** The most the relay's event loop was seen late by the keeper's thread, ms (its stamp's age; stamped every 100 ms). */
  get loopLateMaxMs(): number {
    return Math.round(this.cells[SLOTS + 1]!);
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.alive);
    await this.worker.terminate();
  }
}
