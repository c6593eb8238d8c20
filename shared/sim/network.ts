// The network model: one definition of what happens to a message between two processes, used by
// the relay's fabric (a lab's `fabric`, server/lab/lab.ts), the simulator and the explorer. Pure:
// time comes in as an argument and randomness as a generator the host seeds (shared/sim/rng.ts),
// so the same rules, seed and sends give the same fates in every host.
//
// - Partitions: groups of ids; ids in no listed group share one implicit group after the listed
//   ones. A message between groups is dropped when sent, and when it comes due (a cut made while
//   it was in flight stops it too).
// - Per-link rules: the lab default, with directed overrides (later ones win for the same link).
// - Loss: independent, or in bursts (the Gilbert model, below).
// - Delay plus uniform jitter, both scaled by the time scale.
// - Duplication: the copy gets its own delay.
// - Links are FIFO (a message never overtakes an earlier one on its link) unless reordering is on.
import type { ProcessId } from '../algorithms/algorithm.ts';
import type { FabricConfig as NetworkRules, LinkRules } from '../protocol/lab-config.ts';
import { createRng, deriveSeed, type Random } from './rng.ts';

export type { NetworkRules };

/** Partition groups as the lab states them; `null`: not partitioned. */
type Groups = readonly (readonly ProcessId[])[];

/** The network's verdict on one message, given when it is sent. */
type LinkFate =
  | { kind: 'drop'; reason: 'loss' | 'partition' }
  /** `dupAt`: the network duplicated the message; the copy arrives then. */
  | { kind: 'deliver'; at: number; dupAt: number | null };

/** The generator stream of the network (processes use their ids as streams, so it never collides with one). */
const NETWORK_STREAM = -1;

/** The network's random source for a lab or run seed: the same in the relay and the simulator. */
export function networkRandom(seed: number): Random {
  return createRng(deriveSeed(seed, NETWORK_STREAM));
}

// --- partitions ---------------------------------------------------------------------------------

/**
 * The partition rule, the one place it is written: an id's group is the first listed group that
 * holds it; ids in no listed group share one implicit group, numbered after the listed ones.
 * `null` when the lab is not partitioned.
 */
export function groupOf(groups: Groups | null, id: ProcessId): number | null {
  if (!groups) return null;
  for (let i = 0; i < groups.length; i++) if (groups[i]!.includes(id)) return i;
  return groups.length;
}

/** True when the partition (if any) puts the two ends of a link in different groups. */
export function separated(groups: Groups | null, a: ProcessId, b: ProcessId): boolean {
  return groups !== null && groupOf(groups, a) !== groupOf(groups, b);
}

/** The groups with the implicit one (every id of `ids` not listed) appended when it is not empty. */
export function allGroups(ids: readonly ProcessId[], groups: Groups): ProcessId[][] {
  const out = groups.map((g) => [...g]);
  const rest = ids.filter((id) => groupOf(groups, id) === groups.length);
  if (rest.length) out.push(rest);
  return out;
}

/** A partition prepared for many lookups (the same rule as `groupOf`, in O(1)). */
export class Cut {
  private readonly side = new Map<ProcessId, number>();

  constructor(readonly groups: Groups) {
    for (let i = groups.length - 1; i >= 0; i--) for (const id of groups[i]!) this.side.set(id, i);
  }

  group(id: ProcessId): number {
    return this.side.get(id) ?? this.groups.length;
  }

  separates(a: ProcessId, b: ProcessId): boolean {
    return this.group(a) !== this.group(b);
  }
}

export function cutOf(groups: Groups | null): Cut | null {
  return groups ? new Cut(groups) : null;
}

// --- links ----------------------------------------------------------------------------------------

/** `Network.decideAt`'s verdicts other than a time (times are never negative). */
export const PARTITIONED = -1;
export const LOST = -2;

/** Numeric key of a directed link: ids are at most 1,000,000 < 2^20, so this is exact. */
export const linkKey = (from: ProcessId, to: ProcessId): number => from * 1_048_576 + to;

/** When a message sent now on a link with `rule` may arrive: [earliest, latest] (the jitter's range). */
export function arrivalWindow(
  rule: LinkRules,
  now: number,
  timeScale: number,
): { earliest: number; latest: number } {
  const earliest = now + rule.delay * timeScale;
  return { earliest, latest: earliest + rule.jitter * timeScale };
}

/** The rules' per-link table: the default, with the directed overrides merged over it. */
function overridesOf(rules: NetworkRules): Map<number, LinkRules> {
  const overrides = new Map<number, LinkRules>();
  for (const o of rules.links) {
    const key = linkKey(o.from, o.to);
    const base = overrides.get(key) ?? rules.link;
    const { from: _from, to: _to, ...fields } = o;
    overrides.set(key, { ...base, ...definedOnly(fields) });
  }
  return overrides;
}

/**
 * Per-link state (the latest arrival scheduled, for FIFO; the Gilbert channel's state), in dense
 * rows: ids get dense indices in the order first seen, and each sender's row grows to the
 * receivers it has used, two numbers a link. A 1,000-process storm touches about a million
 * links; a row lookup is two index reads and an array index, where a map keyed by link would
 * hold a million entries.
 */
class LinkTable {
  private readonly index = new Map<ProcessId, number>();
  /** Dense indices of small ids (the usual 0..n-1) in an array; others in the map. */
  private small = new Int32Array(0);
  private rows: Float64Array[] = [];
  /** The row `locate` found: [latest arrival, in a loss burst (1/0)] per receiver. */
  row: Float64Array = new Float64Array(0);

  private dense(id: ProcessId): number {
    if (id < this.small.length) {
      const i = this.small[id]!;
      if (i >= 0) return i;
    }
    let i = this.index.get(id);
    if (i === undefined) {
      i = this.index.size;
      this.index.set(id, i);
      if (id >= 0 && id < 65_536 && Number.isInteger(id)) {
        if (id >= this.small.length) {
          let size = Math.max(64, this.small.length);
          while (size <= id) size *= 2;
          const grown = new Int32Array(size).fill(-1);
          grown.set(this.small);
          this.small = grown;
        }
        this.small[id] = i;
      }
    }
    return i;
  }

  /** Points `row` at the sender's row (grown if needed) and returns the receiver's slot in it. */
  locate(from: ProcessId, to: ProcessId): number {
    const r = this.dense(from);
    const slot = 2 * this.dense(to);
    let row = this.rows[r];
    if (row === undefined || slot >= row.length) {
      let size = row ? row.length : 16;
      while (size <= slot) size *= 2;
      const grown = new Float64Array(size);
      for (let i = 0; i < size; i += 2) grown[i] = -Infinity;
      if (row) grown.set(row);
      this.rows[r] = row = grown;
    }
    this.row = row;
    return slot;
  }

  clear(): void {
    this.index.clear();
    this.small = new Int32Array(0);
    this.rows = [];
  }
}

export class Network {
  private config: NetworkRules;
  private overrides = new Map<number, LinkRules>();
  private readonly table = new LinkTable();
  private groups: ProcessId[][] | null = null;
  private cut: Cut | null = null;

  constructor(
    rules: NetworkRules,
    private readonly random: Random,
  ) {
    this.config = rules;
    this.configure(rules);
  }

  get rules(): NetworkRules {
    return this.config;
  }

  get partition(): ProcessId[][] | null {
    return this.groups;
  }

  /** New rules; per-link FIFO and burst state carry over. */
  configure(rules: NetworkRules): void {
    this.config = rules;
    this.overrides = overridesOf(rules);
  }

  /** Groups of ids (see `groupOf`); `null` heals. */
  setPartition(groups: ProcessId[][] | null): void {
    this.groups = groups;
    this.cut = cutOf(groups);
  }

  /** The id's partition group, null when the network is not partitioned. */
  groupIndex(id: ProcessId): number | null {
    return this.cut ? this.cut.group(id) : null;
  }

  partitioned(from: ProcessId, to: ProcessId): boolean {
    return this.cut !== null && this.cut.separates(from, to);
  }

  ruleFor(from: ProcessId, to: ProcessId): LinkRules {
    return (this.overrides.size > 0 && this.overrides.get(linkKey(from, to))) || this.config.link;
  }

  /**
   * The fate of one message sent now. `faulty: false` turns loss and duplication off for this
   * message (a run's "faults stop at t" phase): no random number is drawn for them then.
   * Draws, in order: loss (when the rule can lose), the delay's jitter (when there is jitter),
   * duplication (when the rule can duplicate), the copy's jitter.
   */
  decide(from: ProcessId, to: ProcessId, now: number, faulty = true): LinkFate {
    const at = this.decideAt(from, to, now, faulty);
    if (at === PARTITIONED) return { kind: 'drop', reason: 'partition' };
    if (at === LOST) return { kind: 'drop', reason: 'loss' };
    return { kind: 'deliver', at, dupAt: this.dupAt };
  }

  /** The copy's arrival time after `decideAt` returned a delivery, or null when there is no copy. */
  dupAt: number | null = null;

  /**
   * `decide` without the verdict object, for hosts that send millions of messages: the arrival
   * time, or PARTITIONED or LOST (both negative); the copy's time, if any, is left in `dupAt`.
   */
  decideAt(from: ProcessId, to: ProcessId, now: number, faulty = true): number {
    this.dupAt = null;
    if (this.cut !== null && this.cut.separates(from, to)) return PARTITIONED;
    const rule = this.ruleFor(from, to);
    const slot = this.table.locate(from, to);
    const row = this.table.row;
    if (faulty && this.lost(rule, row, slot + 1)) return LOST;
    const at = this.arrival(rule, row, slot, now);
    if (faulty && rule.duplicate > 0 && this.random() < rule.duplicate)
      this.dupAt = this.arrival(rule, row, slot, now);
    return at;
  }

  /** Forget FIFO and burst state (lab reset). */
  resetLinks(): void {
    this.table.clear();
  }

  private arrival(rule: LinkRules, lastAt: Float64Array, col: number, now: number): number {
    const s = this.config.timeScale;
    let at = now + rule.delay * s + (rule.jitter > 0 ? this.random() * rule.jitter * s : 0);
    if (!this.config.reorder) {
      // FIFO: never overtake an earlier message on the same link (equal times keep send order).
      if (at < lastAt[col]!) at = lastAt[col]!;
      lastAt[col] = at;
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
  private lost(rule: LinkRules, bad: Float64Array, col: number): boolean {
    if (rule.loss <= 0) {
      bad[col] = 0;
      return false;
    }
    if (rule.lossMode === 'independent') return this.random() < rule.loss;
    if (rule.loss >= 1) return true;
    const r = 1 / rule.burstLength;
    const q = Math.min(1, (rule.loss * r) / (1 - rule.loss));
    const inBurst = bad[col] === 1 ? this.random() >= r : this.random() < q;
    bad[col] = inBurst ? 1 : 0;
    return inBurst;
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o))
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
