// The network fabric of one lab: decides each message's fate the moment it is sent. Partitions
// drop messages across groups; per-link rules (directed overrides over the lab default) give
// loss (independent, or in bursts), delay plus uniform jitter scaled by the lab's time scale,
// and duplication; links are FIFO unless reordering is on. All randomness comes from one
// stream seeded by the lab's seed, so a fixed seed and the same sends give the same fates.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { FabricConfig, LinkRules } from '@shared/protocol/lab-config.ts';
import { createRng, deriveSeed, type Random } from '@shared/sim/rng.ts';

export type Fate =
  | { kind: 'drop'; reason: 'loss' | 'partition' }
  /** `dupAt`: the fabric duplicated the message; the copy arrives then. */
  | { kind: 'deliver'; at: number; dupAt: number | null };

interface LinkState {
  /** Latest arrival time scheduled on this link (FIFO). */
  lastAt: number;
  /** Gilbert-Elliott channel state: true while in a loss burst. */
  bad: boolean;
}

/** Numeric key of a directed link: ids are at most 1,000,000 < 2^20, so this is exact. */
export const linkKey = (from: ProcessId, to: ProcessId): number => from * 1_048_576 + to;

/** Stream number for the fabric's generator (processes use their ids as streams). */
const FABRIC_STREAM = -7;

export class Fabric {
  private config: FabricConfig;
  private overrides = new Map<number, LinkRules>();
  private readonly links = new Map<number, LinkState>();
  private groupOf: Map<ProcessId, number> | null = null;
  private groups: ProcessId[][] | null = null;
  private readonly random: Random;

  constructor(config: FabricConfig, seed: number) {
    this.config = config;
    this.random = createRng(deriveSeed(seed, FABRIC_STREAM));
    this.configure(config);
  }

  get rules(): FabricConfig {
    return this.config;
  }

  get partition(): ProcessId[][] | null {
    return this.groups;
  }

  /** New rules; per-link FIFO and burst state carry over. Later overrides win for the same link. */
  configure(config: FabricConfig): void {
    this.config = config;
    const overrides = new Map<number, LinkRules>();
    for (const o of config.links) {
      const key = linkKey(o.from, o.to);
      const base = overrides.get(key) ?? config.link;
      const { from: _from, to: _to, ...fields } = o;
      overrides.set(key, { ...base, ...stripUndefined(fields) });
    }
    this.overrides = overrides;
  }

  /** Groups of ids; ids in no group share one implicit group. `null` heals. */
  setPartition(groups: ProcessId[][] | null): void {
    this.groups = groups;
    this.groupOf = groups ? new Map(groups.flatMap((g, i) => g.map((id) => [id, i] as const))) : null;
  }

  groupIndex(id: ProcessId): number | null {
    if (!this.groupOf) return null;
    return this.groupOf.get(id) ?? null;
  }

  partitioned(from: ProcessId, to: ProcessId): boolean {
    if (!this.groupOf) return false;
    return (this.groupOf.get(from) ?? -1) !== (this.groupOf.get(to) ?? -1);
  }

  ruleFor(from: ProcessId, to: ProcessId): LinkRules {
    return this.overrides.get(linkKey(from, to)) ?? this.config.link;
  }

  /** The fate of one message sent now (fabric time). */
  decide(from: ProcessId, to: ProcessId, now: number): Fate {
    if (this.partitioned(from, to)) return { kind: 'drop', reason: 'partition' };
    const key = linkKey(from, to);
    const rule = this.overrides.get(key) ?? this.config.link;
    let link = this.links.get(key);
    if (!link) {
      link = { lastAt: -Infinity, bad: false };
      this.links.set(key, link);
    }
    if (this.lost(rule, link)) return { kind: 'drop', reason: 'loss' };
    const at = this.arrival(rule, link, now);
    const dupAt = rule.duplicate > 0 && this.random() < rule.duplicate ? this.arrival(rule, link, now) : null;
    return { kind: 'deliver', at, dupAt };
  }

  /** Forget FIFO and burst state (lab reset). */
  resetLinks(): void {
    this.links.clear();
  }

  private arrival(rule: LinkRules, link: LinkState, now: number): number {
    const delay = rule.delay + (rule.jitter > 0 ? this.random() * rule.jitter : 0);
    let at = now + delay * this.config.timeScale;
    if (!this.config.reorder) {
      // FIFO: never overtake an earlier message on the same link (equal times keep send order).
      if (at < link.lastAt) at = link.lastAt;
      link.lastAt = at;
    }
    return at;
  }

  /**
   * Independent: each message is lost with probability p. Burst: the Gilbert model (loss 1 in the
   * bad state, 0 in the good one). Leaving the bad state has probability r = 1/burstLength, so
   * bursts last burstLength messages on average; entering it has q = p r / (1 - p), so the
   * long-run loss rate q / (q + r) is p. When q would exceed 1 (p large for a short burst) it is
   * capped, and the rate stays below p.
   */
  private lost(rule: LinkRules, link: LinkState): boolean {
    if (rule.loss <= 0) {
      link.bad = false;
      return false;
    }
    if (rule.lossMode === 'independent') return this.random() < rule.loss;
    if (rule.loss >= 1) return true;
    const r = 1 / rule.burstLength;
    const q = Math.min(1, (rule.loss * r) / (1 - rule.loss));
    link.bad = link.bad ? this.random() >= r : this.random() < q;
    return link.bad;
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
