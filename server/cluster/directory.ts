// The cluster's directory in Redis: every lab's configuration (so any relay can list it, answer
// for it and take it over) and every relay's public address and load (so a relay can name an
// owner in a `moved` answer). Reads that fail return values, never throw.
import { LabConfigSchema, type LabConfig } from '@shared/protocol/lab-config.ts';
import { KEYS } from './keys.ts';
import { holder, type Lease } from './lease.ts';
import type { Redis } from './redis-link.ts';

export interface RelayInfo {
  id: string;
  url: string;
  labs: number;
  rss: number;
  /** ms since the epoch of its last heartbeat. */
  at: number;
}

interface DirectoryEntry {
  config: LabConfig;
  owner: Lease | null;
  /** The owner's public address, when it is a live relay. */
  url: string | null;
}

export class Directory {
  constructor(
    private readonly redis: Redis,
    private readonly staleMs: number,
  ) {}

  /** Adds a lab; false when the name is taken anywhere in the cluster. */
  async claimName(config: LabConfig): Promise<boolean> {
    return (await this.redis.hSetNX(KEYS.labs, config.name, JSON.stringify(config))) === 1;
  }

  async put(config: LabConfig): Promise<void> {
    await this.redis.hSet(KEYS.labs, config.name, JSON.stringify(config));
  }

  async remove(name: string): Promise<void> {
    await this.redis.hDel(KEYS.labs, name);
  }

  async configs(): Promise<LabConfig[]> {
    const all = await this.redis.hGetAll(KEYS.labs);
    const out: LabConfig[] = [];
    for (const text of Object.values(all)) {
      try {
        const parsed = LabConfigSchema.safeParse(JSON.parse(text));
        if (parsed.success) out.push(parsed.data);
      } catch {
        // A damaged entry is skipped; its owner rewrites it on its next heartbeat.
      }
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  async config(name: string): Promise<LabConfig | null> {
    const text = await this.redis.hGet(KEYS.labs, name);
    if (!text) return null;
    try {
      const parsed = LabConfigSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  async heartbeat(info: RelayInfo): Promise<void> {
    await this.redis.hSet(KEYS.relays, info.id, JSON.stringify(info));
  }

  async leave(id: string): Promise<void> {
    await this.redis.hDel(KEYS.relays, id);
  }

  /** Live relays (heartbeat within the stale bound), least loaded first. */
  async relays(now = Date.now()): Promise<RelayInfo[]> {
    const all = await this.redis.hGetAll(KEYS.relays);
    const out: RelayInfo[] = [];
    for (const text of Object.values(all)) {
      try {
        const r = JSON.parse(text) as RelayInfo;
        if (typeof r.id === 'string' && typeof r.url === 'string' && now - r.at <= this.staleMs)
          out.push(r);
      } catch {
        // skipped, as above
      }
    }
    return out.sort((a, b) => a.labs - b.labs || a.id.localeCompare(b.id));
  }

  /** Who owns a lab now, and where to reach it. */
  async locate(name: string): Promise<DirectoryEntry | null> {
    const config = await this.config(name);
    if (!config) return null;
    const owner = await holder(this.redis, name);
    const relays = owner ? await this.relays() : [];
    const url = owner ? (relays.find((r) => r.id === owner.relay)?.url ?? null) : null;
    return { config, owner, url };
  }
}
