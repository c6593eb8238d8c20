// A relay's membership in a cluster (REDIS_URL set): it owns some labs through leases, renews
// them while it lives, takes over labs whose owner's lease ran out, and tells everyone else
// where a lab lives. The scheduling of a lab stays on its one owner (docs/SCALING.md).
import { createAdapter } from '@socket.io/redis-streams-adapter';
import { fail, ok, type Result } from '@shared/protocol/errors.ts';
import type { LabConfig } from '@shared/protocol/lab-config.ts';
import type { Lab } from '../lab/lab.ts';
import { LabStateSchema, type LabState } from '../lab/lab-state.ts';
import { KEYS } from './keys.ts';
import type { Labs, LabsCluster } from '../lab/labs.ts';
import { Directory, type RelayInfo } from './directory.ts';
import { acquire, fencedHSet, holder, release, type Lease } from './lease.ts';
import { LeaseKeeper, monoNow } from './lease-keeper.ts';
import type { WriteGuard } from '../trace/trace-store.ts';
import { connectRedis, type RedisLink } from './redis-link.ts';
import { fencePath, readFence } from '../lab/lab-fence.ts';

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
  /** Writes to Redis refused because the lease no longer named this relay (a deposed owner). */
  refused: number;
  /** The most the relay's event loop was late, as seen from the lease keeper's thread (ms; includes the 100 ms stamp period). */
  loopLateMaxMs: number;
  /** Times the lease keeper's thread ended by itself and was started again. */
  keeperRestarts: number;
  /** The lease keeper's Redis connection came up (until it does, no lease is renewed). */
  keeperReady: boolean;
}

/** A lab's writes stop once the last confirmed renewal is older than this share of the lease. */
const WRITE_WINDOW = 0.75;
/** A lab whose lease stays unconfirmed this many leases is let go (taken again once Redis answers). */
const GIVE_UP_LEASES = 4;

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
  private refused = 0;
  private readonly retaken = new Set<string>();
  readonly directory: Directory;
  private readonly keeper: LeaseKeeper;

  private constructor(
    private readonly link: RedisLink,
    /** socket.io's adapter's connection (queues while Redis is away; see redis-link.ts). */
    private readonly adapterLink: RedisLink,
    readonly opts: ClusterOptions,
  ) {
    this.directory = new Directory(link.client, opts.leaseMs * 2);
    this.keeper = new LeaseKeeper(
      opts.redisUrl,
      opts.leaseMs,
      KEYS,
      (lab, outcome) => void this.renewed(lab, outcome).catch(opts.onError),
      opts.onError,
    );
  }

  static async connect(opts: ClusterOptions): Promise<Cluster> {
    return new Cluster(
      await connectRedis(opts.redisUrl, opts.onError),
      await connectRedis(opts.redisUrl, opts.onError, true),
      opts,
    );
  }

  get relayId(): string {
    return this.opts.relayId;
  }

  /** Starts heartbeats, renewals and takeovers for `labs` (which must not have loaded any lab from disk). */
  async start(labs: Labs): Promise<void> {
    this.labs = labs;
    await this.keeper.ready();
    await this.tick();
    this.timer = setInterval(
      () => void this.tick(),
      Math.max(50, Math.floor(this.opts.leaseMs / 3)),
    );
    this.timer.unref?.();
  }

  // --- LabsCluster: what Labs asks when a lab is created or removed here --------------------

  async claim(config: LabConfig): Promise<Result<number>> {
    try {
      if (!(await this.directory.claimName(config))) return fail('LAB_EXISTS');
      const sentAt = monoNow();
      const lease = await acquire(
        this.link.client,
        config.name,
        this.opts.relayId,
        this.opts.leaseMs,
        this.epochOnDisk(config.name),
      );
      if (!lease) return fail('LAB_EXISTS');
      this.own(config.name, lease, sentAt);
      return ok(lease.epoch);
    } catch (err) {
      this.opts.onError(err);
      return fail('INTERNAL', { message: 'The lab directory (Redis) is unreachable; try again' });
    }
  }

  async updated(config: LabConfig): Promise<void> {
    const lease = this.owned.get(config.name);
    if (lease) await this.fencedWrite(config.name, lease, KEYS.labs, JSON.stringify(config));
  }

  /** A write of the lab's shared state that Redis refuses unless the lease still names this owner. */
  private async fencedWrite(
    name: string,
    lease: Lease,
    hash: string,
    value: string,
  ): Promise<boolean> {
    try {
      if (await fencedHSet(this.link.client, name, lease, hash, name, value)) return true;
      this.refused++;
    } catch (err) {
      this.opts.onError(err);
    }
    return false;
  }

  async removed(name: string): Promise<void> {
    const lease = this.owned.get(name);
    this.owned.delete(name);
    this.keeper.remove(name);
    try {
      await this.directory.remove(name);
      await this.link.client.hDel(KEYS.state, name);
      if (lease) await release(this.link.client, name, lease);
    } catch (err) {
      this.opts.onError(err);
    }
  }

  saveState(name: string, state: LabState): void {
    const lease = this.owned.get(name);
    if (lease) void this.fencedWrite(name, lease, KEYS.state, JSON.stringify(state));
  }

  /**
   * Fencing by time: writes go on while the last renewal that succeeded was sent less than
   * 3/4 of a lease ago (the lease runs at least a lease from then); past that they wait for the
   * next renewal, for at most GIVE_UP_LEASES; a lease lost or let go refuses them.
   */
  guard(name: string, epoch: number): ReturnType<WriteGuard> {
    if (this.owned.get(name)?.epoch !== epoch) return 'refuse';
    const age = this.keeper.confirmedAge(name);
    // Past the give-up age the lab is being let go: a waiting write (a shutdown's last flush too) ends.
    if (age > this.opts.leaseMs * GIVE_UP_LEASES) return 'refuse';
    return age > this.opts.leaseMs * WRITE_WINDOW ? 'wait' : 'write';
  }

  /** A newer owner's epoch is in the lab's fence record. */
  fenced(name: string): void {
    void this.letGo(name).catch(this.opts.onError);
  }

  async joinCodes(): Promise<Map<string, string>> {
    try {
      return new Map(
        (await this.directory.configs())
          .filter((c) => c.joinCode)
          .map((c) => [c.joinCode!, c.name]),
      );
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

  /** The epoch the lab's fence record in the shared folder names (0 if none). */
  private epochOnDisk(name: string): number {
    return this.labs ? (readFence(fencePath(this.labs.dataDir, name))?.epoch ?? 0) : 0;
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
  async overview(): Promise<
    { config: LabConfig; owner: string | null; url: string | null; epoch: number | null }[]
  > {
    const [configs, relays] = await Promise.all([
      this.directory.configs(),
      this.directory.relays(),
    ]);
    const out = [];
    for (const config of configs) {
      const lease = this.owned.get(config.name) ?? (await holder(this.link.client, config.name));
      out.push({
        config,
        owner: lease?.relay ?? null,
        url: relays.find((r) => r.id === lease?.relay)?.url ?? null,
        epoch: lease?.epoch ?? null,
      });
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
      refused: this.refused,
      loopLateMaxMs: this.keeper.loopLateMaxMs,
      keeperRestarts: this.keeper.restarts,
      keeperReady: this.keeper.isReady,
    };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await this.keeper.close();
    // A clean stop hands the labs over at once instead of after the lease runs out.
    if (this.link.ready()) {
      for (const [lab, lease] of this.owned)
        await release(this.link.client, lab, lease).catch(() => {});
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
    if (!this.labs) return;
    // Renewals run on the keeper's thread; a lease it could not confirm for long is let go (Redis away or not).
    for (const name of [...this.owned.keys()])
      if (this.keeper.confirmedAge(name) > this.opts.leaseMs * GIVE_UP_LEASES)
        await this.letGo(name);
    if (!this.link.ready()) return;
    await this.heartbeat();
    await this.registerRetaken();
    await this.takeOver();
  }

  private heartbeat(): Promise<void> {
    return this.directory.heartbeat({
      id: this.opts.relayId,
      url: this.opts.publicUrl,
      labs: this.owned.size,
      rss: process.memoryUsage.rss(),
      at: Date.now(),
    });
  }

  private own(name: string, lease: Lease, sentAt: number): void {
    this.owned.set(name, lease);
    if (!this.keeper.add(name, lease, sentAt))
      this.opts.onError(new Error(`no lease slot left for lab ${name}`));
  }

  /** What the keeper's thread found on a renewal other than `renewed`. */
  private async renewed(name: string, outcome: 'lost' | 'reacquired'): Promise<void> {
    if (outcome === 'lost') return this.letGo(name);
    // Redis came back empty; the keeper's connection may be back before this relay's own, so
    // the directory is written by the tick (which runs once that one is back too).
    this.retaken.add(name);
    await this.tick();
  }

  /**
   * Labs whose lease the keeper took again after Redis lost it: this relay's entry (others look
   * its address up there), then the lab's directory entry, written again; kept until written.
   */
  private async registerRetaken(): Promise<void> {
    for (const name of [...this.retaken]) {
      const lease = this.owned.get(name);
      const lab = this.labs?.get(name);
      if (
        lease &&
        lab &&
        !(await this.fencedWrite(name, lease, KEYS.labs, JSON.stringify(lab.config)))
      )
        continue;
      this.retaken.delete(name);
      if (lease && lab)
        lab.record({
          kind: 'note',
          text: `lease of relay ${this.opts.relayId} taken again after Redis lost it (epoch ${lease.epoch})`,
        });
    }
  }

  /** The lease is lost (or could not be confirmed): stop writing the lab and close it here, keeping its files. */
  private async letGo(name: string): Promise<void> {
    if (!this.owned.delete(name)) return;
    this.keeper.remove(name);
    this.lost++;
    const url = await this.locate(name);
    await this.labs?.drop(name, url);
  }

  /** Labs in the directory that nobody holds: take them, least loaded relays first. */
  private async takeOver(): Promise<void> {
    const labs = this.labs;
    if (!labs) return;
    const configs = await this.directory.configs();
    const orphans = [];
    const interval = this.opts.leaseMs / 3;
    for (const config of configs) {
      // A lab still open here without a lease is being let go: take it again once it is closed.
      if (this.owned.has(config.name) || labs.get(config.name)) continue;
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
      const sentAt = monoNow();
      const lease = await acquire(
        this.link.client,
        config.name,
        this.opts.relayId,
        this.opts.leaseMs,
        this.epochOnDisk(config.name),
      );
      if (!lease) continue;
      this.own(config.name, lease, sentAt);
      mine++;
      const previous = this.lastSeen.get(config.name) ?? null;
      const lab = await labs.adopt(config, lease.epoch);
      this.takeovers++;
      recordOwner(lab, this.opts.relayId, lease.epoch, previous);
    }
  }
}

/** The lab's trace names each owner and its fencing epoch (the checker counts takeovers). */
function recordOwner(lab: Lab, relay: string, epoch: number, previous: string | null): void {
  lab.record({ kind: 'owner', relay, epoch, previous });
}
