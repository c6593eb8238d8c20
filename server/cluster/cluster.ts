// A relay's membership in a cluster (REDIS_URL set): it owns some labs through leases, renews
// them while it lives, takes over labs whose owner's lease ran out, and tells everyone else
// where a lab lives. The scheduling of a lab stays on its one owner (docs/SCALING.md).
import { createAdapter } from '@socket.io/redis-streams-adapter';
import { fail, ok, type Result } from '@shared/protocol/errors.ts';
import type { LabConfig } from '@shared/protocol/lab-config.ts';
import type { Lab } from '../lab.ts';
import { LabStateSchema, type LabState } from '../lab-state.ts';
import { KEYS } from './keys.ts';
import type { Labs, LabsCluster } from '../labs.ts';
import { Directory, type RelayInfo } from './directory.ts';
import { acquire, holder, release, renew, type Lease } from './lease.ts';
import { connectRedis, type RedisLink } from './redis-link.ts';

export interface ClusterOptions {
  redisUrl: string;
  /** This relay's name in the cluster (unique). */
  relayId: string;
  /** Where clients reach this relay, e.g. http://10.0.0.5:3000 (named in `moved` answers). */
  publicUrl: string;
  /** Lease time to live, ms; renewed every third of it. */
  leaseMs: number;
  onError: (err: unknown) => void;
}

interface ClusterStatus {
  relay: string;
  url: string;
  redis: boolean;
  leaseMs: number;
  owned: { lab: string; epoch: number }[];
  takeovers: number;
  lost: number;
}

export class Cluster implements LabsCluster {
  private readonly owned = new Map<string, Lease>();
  /** Labs whose lease runs out before the next scan, with a takeover attempt timed for it. */
  private readonly pending = new Set<string>();
  /** Last owner seen per lab, to name the previous owner on a takeover. */
  private readonly lastSeen = new Map<string, string>();
  private labs: Labs | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private ticking: Promise<void> | null = null;
  private takeovers = 0;
  private lost = 0;
  readonly directory: Directory;

  private constructor(
    private readonly link: RedisLink,
    /** socket.io's adapter's connection (queues while Redis is away; see redis-link.ts). */
    private readonly adapterLink: RedisLink,
    readonly opts: ClusterOptions,
  ) {
    this.directory = new Directory(link.client, opts.leaseMs * 2);
  }

  static async connect(opts: ClusterOptions): Promise<Cluster> {
    return new Cluster(await connectRedis(opts.redisUrl, opts.onError), await connectRedis(opts.redisUrl, opts.onError, true), opts);
  }

  get relayId(): string {
    return this.opts.relayId;
  }

  /** Starts heartbeats, renewals and takeovers for `labs` (which must not have loaded any lab from disk). */
  async start(labs: Labs): Promise<void> {
    this.labs = labs;
    await this.tick();
    this.timer = setInterval(() => void this.tick(), Math.max(50, Math.floor(this.opts.leaseMs / 3)));
    this.timer.unref?.();
  }

  // --- LabsCluster: what Labs asks when a lab is created or removed here --------------------

  async claim(config: LabConfig): Promise<Result<number>> {
    try {
      if (!(await this.directory.claimName(config))) return fail('LAB_EXISTS');
      const lease = await acquire(this.link.client, config.name, this.opts.relayId, this.opts.leaseMs);
      if (!lease) return fail('LAB_EXISTS');
      this.owned.set(config.name, lease);
      return ok(lease.epoch);
    } catch (err) {
      this.opts.onError(err);
      return fail('INTERNAL', { message: 'The lab directory (Redis) is unreachable; try again' });
    }
  }

  async updated(config: LabConfig): Promise<void> {
    if (this.owned.has(config.name)) await this.directory.put(config).catch(this.opts.onError);
  }

  async removed(name: string): Promise<void> {
    const lease = this.owned.get(name);
    this.owned.delete(name);
    try {
      await this.directory.remove(name);
      await this.link.client.hDel(KEYS.state, name);
      if (lease) await release(this.link.client, name, lease);
    } catch (err) {
      this.opts.onError(err);
    }
  }

  saveState(name: string, state: LabState): void {
    this.link.client.hSet(KEYS.state, name, JSON.stringify(state)).catch(this.opts.onError);
  }

  async joinCodes(): Promise<Map<string, string>> {
    try {
      return new Map((await this.directory.configs()).filter((c) => c.joinCode).map((c) => [c.joinCode!, c.name]));
    } catch {
      return new Map();
    }
  }

  async loadState(name: string): Promise<LabState | null> {
    try {
      const text = await this.link.client.hGet(KEYS.state, name);
      const parsed = text ? LabStateSchema.safeParse(JSON.parse(text)) : null;
      return parsed?.success ? parsed.data : null;
    } catch {
      return null; // Redis away or a damaged entry: the shared folder's copy is used
    }
  }

  epochOf(name: string): number | null {
    return this.owned.get(name)?.epoch ?? null;
  }

  /** The public address of the relay that owns `lab`, when that is another relay. */
  async locate(lab: string): Promise<string | null> {
    if (this.owned.has(lab)) return null;
    try {
      const entry = await this.directory.locate(lab);
      return entry?.url && entry.owner?.relay !== this.opts.relayId ? entry.url : null;
    } catch {
      return null;
    }
  }

  /** Every lab in the cluster with its owner, for the lab list of any relay. */
  async overview(): Promise<{ config: LabConfig; owner: string | null; url: string | null; epoch: number | null }[]> {
    const [configs, relays] = await Promise.all([this.directory.configs(), this.directory.relays()]);
    const out = [];
    for (const config of configs) {
      const lease = this.owned.get(config.name) ?? (await holder(this.link.client, config.name));
      out.push({ config, owner: lease?.relay ?? null, url: relays.find((r) => r.id === lease?.relay)?.url ?? null, epoch: lease?.epoch ?? null });
    }
    return out;
  }

  /** socket.io's Redis streams adapter on this relay's Redis connection (lab-list broadcasts). */
  socketIoAdapter() {
    return createAdapter(this.adapterLink.client, { streamName: 'elab:socket.io', maxLen: 1000 });
  }

  relays(): Promise<RelayInfo[]> {
    return this.directory.relays();
  }

  status(): ClusterStatus {
    return {
      relay: this.opts.relayId,
      url: this.opts.publicUrl,
      redis: this.link.ready(),
      leaseMs: this.opts.leaseMs,
      owned: [...this.owned].map(([lab, l]) => ({ lab, epoch: l.epoch })),
      takeovers: this.takeovers,
      lost: this.lost,
    };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    // A clean stop hands the labs over at once instead of after the lease runs out.
    if (this.link.ready()) {
      for (const [lab, lease] of this.owned) await release(this.link.client, lab, lease).catch(() => {});
      await this.directory.leave(this.opts.relayId).catch(() => {});
    }
    this.owned.clear();
    await this.link.close();
    await this.adapterLink.close();
  }

  // --- the loop ---------------------------------------------------------------------------------

  private tick(): Promise<void> {
    // One tick at a time: a slow Redis must not pile up renewals.
    if (this.ticking) return this.ticking;
    this.ticking = this.runTick()
      .catch((err: unknown) => this.opts.onError(err))
      .finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async runTick(): Promise<void> {
    if (!this.labs || !this.link.ready()) return;
    await this.directory.heartbeat({ id: this.opts.relayId, url: this.opts.publicUrl, labs: this.owned.size, rss: process.memoryUsage.rss(), at: Date.now() });
    for (const [name, lease] of [...this.owned]) await this.renewOne(name, lease);
    await this.takeOver();
  }

  private async renewOne(name: string, lease: Lease): Promise<void> {
    const outcome = await renew(this.link.client, name, lease, this.opts.leaseMs);
    const lab = this.labs?.get(name);
    if (outcome === 'reacquired' && lab) {
      // Redis came back empty: write the directory entry again (the lease is back already).
      await this.directory.put(lab.config);
      lab.record({ kind: 'note', text: `lease of relay ${this.opts.relayId} taken again after Redis lost it (epoch ${lease.epoch})` });
    } else if (outcome === 'lost') {
      this.owned.delete(name);
      this.lost++;
      const url = await this.locate(name);
      await this.labs?.drop(name, url);
    }
  }

  /** Labs in the directory that nobody holds: take them, least loaded relays first. */
  private async takeOver(): Promise<void> {
    const labs = this.labs;
    if (!labs) return;
    const configs = await this.directory.configs();
    const orphans = [];
    const interval = this.opts.leaseMs / 3;
    for (const config of configs) {
      if (this.owned.has(config.name)) continue;
      const lease = await holder(this.link.client, config.name);
      if (!lease) {
        orphans.push(config);
        continue;
      }
      this.lastSeen.set(config.name, lease.relay);
      // A lease that runs out before the next scan: be there when it does, not up to a scan late.
      const ttl = await this.link.client.pTTL(KEYS.lease(config.name));
      if (ttl > 0 && ttl < interval && !this.pending.has(config.name)) {
        this.pending.add(config.name);
        setTimeout(() => {
          this.pending.delete(config.name);
          void this.tick();
        }, ttl + 5).unref?.();
      }
    }
    if (orphans.length === 0) return;
    // Spread a dead relay's labs: a relay above the cluster's mean load lets the others go first.
    const relays = await this.directory.relays();
    const mean = relays.reduce((s, r) => s + r.labs, 0) / Math.max(1, relays.length);
    let mine = this.owned.size;
    for (const config of orphans) {
      if (relays.length > 1 && mine > mean + 1) break;
      const lease = await acquire(this.link.client, config.name, this.opts.relayId, this.opts.leaseMs);
      if (!lease) continue;
      this.owned.set(config.name, lease);
      mine++;
      const previous = this.lastSeen.get(config.name) ?? null;
      const lab = labs.get(config.name) ?? (await labs.adopt(config));
      this.takeovers++;
      recordOwner(lab, this.opts.relayId, lease.epoch, previous);
    }
  }
}

/** The lab's trace names each owner and its fencing epoch (the checker counts takeovers). */
function recordOwner(lab: Lab, relay: string, epoch: number, previous: string | null): void {
  lab.record({ kind: 'owner', relay, epoch, previous });
}
