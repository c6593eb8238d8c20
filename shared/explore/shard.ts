// One worker's share of a breadth-first search split across threads (levels.ts runs the levels).
// Worlds are owned by fingerprint (`ownerOf`): a shard keeps the visited set, the parents and the
// frontier of its own worlds only, so no seen set is shared or locked. Each level it expands its
// frontier, keeps the successors it owns and hands the others to their owners as batches, then
// takes the batches the others made for it. Every successor carries an order key (the rank of
// its parent in the level, then the action's place among the parent's enabled actions), and a
// world reached several times keeps its smallest key: exactly the first visit of the one-thread
// search (bfs.ts), so the worlds, their depth, and the schedule to each (the first violation's
// included) never depend on which thread ran first. Pure: no clock, no thread; the host passes
// the time left and carries the batches (scripts/explore-workers.ts).
import type { Violation } from '../analysis/properties.ts';
import { enabled, initialWorld, move } from './engine.ts';
import { createKeyer, SeenSet } from './key.ts';
import type { Action, ExploreSetup, World } from './world.ts';

/** Actions a world enables stay below this (the key packs the action's place beside the parent's rank). */
const ACTIONS_MAX = 1 << 16;

/** The shard that owns a fingerprint (the high lane is avalanched, key.ts). */
function ownerOf(hi: number, shards: number): number {
  return (hi >>> 0) % shards;
}

/** Successors one shard reached for another, in increasing key order. */
export interface Batch {
  from: number;
  worlds: World[];
  actions: Action[];
  lo: number[];
  hi: number[];
  /** Parent's rank * ACTIONS_MAX + the action's place. */
  key: number[];
  /** The parent's node in the sending shard. */
  parent: number[];
}

export interface ExpandReply {
  /** Batches for the other shards, by shard (null for this one and for a shard nothing was found for). */
  out: (Batch | null)[];
  transitions: number;
  /** Successors handed to other shards (after this shard's own dedupe of what it already sent). */
  shipped: number;
  /** Stopped before the end of its frontier: the time ran out. */
  timedOut: boolean;
}

export interface AcceptReply {
  /** The new worlds' keys, ascending (their order in the level). */
  keys: Float64Array;
  /** The first new world in that order that breaks a property (its place in `keys`), or null. */
  violation: { at: number; violation: Violation } | null;
  /** Worlds this shard has seen, this level's included. */
  seen: number;
  /** The sums (mod 2^32) of the lanes of every fingerprint this shard has seen: the same worlds give the same sums. */
  digest: [number, number];
}

/** A world of this level, not yet ranked. */
interface Fresh {
  world: World;
  node: number;
  lo: number;
  hi: number;
  key: number;
}

export class Shard {
  private readonly seen = new SeenSet();
  /** Foreign fingerprints already handed to their owner: never shipped twice. */
  private readonly sent = new SeenSet();
  private readonly keyer = createKeyer();
  private readonly parentShard: number[] = [];
  private readonly parentNode: number[] = [];
  private readonly via: (Action | null)[] = [];
  private frontier: Fresh[] = [];
  private fresh: Fresh[] = [];
  /** This level's new worlds by fingerprint (53 of its bits; a clash of those falls back to `byText`). */
  private byKey = new Map<number, number>();
  private byText = new Map<string, number>();
  private digest: [number, number] = [0, 0];

  constructor(
    private readonly setup: ExploreSetup,
    readonly index: number,
    readonly shards: number,
    private readonly check: (w: World) => Violation | null,
  ) {}

  /** The initial world, if this shard owns it: its verdict (the search stops at once on one). */
  start(): { owns: boolean; violation: Violation | null } {
    const root = initialWorld(this.setup);
    const lo = this.keyer(root);
    const hi = this.keyer.hi;
    if (ownerOf(hi, this.shards) !== this.index) return { owns: false, violation: null };
    this.seen.add(lo, hi);
    this.digest = [lo, hi];
    this.frontier = [{ world: root, node: this.node(-1, -1, null), lo, hi, key: 0 }];
    return { owns: true, violation: this.check(root) };
  }

  /**
   * Expands this shard's frontier (ranked by the level's global order: `ranks[k]` for its k-th
   * world), keeping what it owns and batching the rest. Stops early once `timeLeft()` is <= 0.
   */
  expand(ranks: ArrayLike<number>, timeLeft: () => number): ExpandReply {
    const out: (Batch | null)[] = Array.from({ length: this.shards }, () => null);
    let transitions = 0;
    let shipped = 0;
    let timedOut = false;
    this.resetLevel();
    for (let k = 0; k < this.frontier.length; k++) {
      if ((k & 63) === 63 && timeLeft() <= 0) {
        timedOut = true;
        break;
      }
      const { world, node } = this.frontier[k]!;
      const actions = enabled(this.setup, world);
      if (actions.length >= ACTIONS_MAX) throw new Error('explore: too many actions in one world');
      for (let j = 0; j < actions.length; j++) {
        transitions++;
        const w = move(this.setup, world, actions[j]!);
        const lo = this.keyer(w);
        const hi = this.keyer.hi;
        const key = ranks[k]! * ACTIONS_MAX + j;
        const owner = ownerOf(hi, this.shards);
        if (owner === this.index) {
          if (this.seen.add(lo, hi)) this.addFresh(w, lo, hi, key, this.index, node, actions[j]!);
          continue;
        }
        if (!this.sent.add(lo, hi)) continue;
        shipped++;
        const b = (out[owner] ??= emptyBatch(this.index));
        b.worlds.push(w);
        b.actions.push(actions[j]!);
        b.lo.push(lo);
        b.hi.push(hi);
        b.key.push(key);
        b.parent.push(node);
      }
    }
    this.frontier = [];
    return { out, transitions, shipped, timedOut };
  }

  /** Takes the other shards' batches for it, then orders and checks this level's new worlds. */
  accept(batches: readonly Batch[]): AcceptReply {
    for (const b of batches)
      for (let i = 0; i < b.worlds.length; i++) {
        const lo = b.lo[i]!;
        const hi = b.hi[i]!;
        if (this.seen.add(lo, hi)) {
          this.addFresh(b.worlds[i]!, lo, hi, b.key[i]!, b.from, b.parent[i]!, b.actions[i]!);
          continue;
        }
        // Seen: at an earlier level (dropped), or at this one by a later key (this path wins).
        const at = this.freshAt(lo, hi);
        const f = at === undefined ? undefined : this.fresh[at]!;
        if (!f || f.key <= b.key[i]!) continue;
        f.world = b.worlds[i]!;
        f.key = b.key[i]!;
        this.parentShard[f.node] = b.from;
        this.parentNode[f.node] = b.parent[i]!;
        this.via[f.node] = b.actions[i]!;
      }
    const fresh = this.fresh.sort((a, b) => a.key - b.key);
    const keys = new Float64Array(fresh.length);
    let violation: AcceptReply['violation'] = null;
    for (let i = 0; i < fresh.length; i++) {
      keys[i] = fresh[i]!.key;
      this.digest[0] = (this.digest[0] + fresh[i]!.lo) >>> 0;
      this.digest[1] = (this.digest[1] + fresh[i]!.hi) >>> 0;
      if (violation) continue;
      const v = this.check(fresh[i]!.world);
      if (v) violation = { at: i, violation: v };
    }
    this.frontier = fresh;
    this.resetLevel();
    return { keys, violation, seen: this.seen.size, digest: [...this.digest] };
  }

  /** The level's k-th new world (in key order): its node, for the schedule to it. */
  nodeAt(k: number): number {
    return this.frontier[k]!.node;
  }

  /** How a node was reached: its parent (shard -1 for the initial world) and the action. */
  back(node: number): { shard: number; node: number; action: Action | null } {
    return {
      shard: this.parentShard[node]!,
      node: this.parentNode[node]!,
      action: this.via[node]!,
    };
  }

  private node(shard: number, parent: number, action: Action | null): number {
    this.parentShard.push(shard);
    this.parentNode.push(parent);
    this.via.push(action);
    return this.via.length - 1;
  }

  private addFresh(
    world: World,
    lo: number,
    hi: number,
    key: number,
    shard: number,
    parent: number,
    action: Action,
  ): void {
    const node = this.node(shard, parent, action);
    const k = lo * 2097152 + (hi >>> 11);
    const text = this.byKey.has(k) ? `${lo}:${hi}` : null;
    if (text === null) this.byKey.set(k, this.fresh.length);
    else this.byText.set(text, this.fresh.length);
    this.fresh.push({ world, node, lo, hi, key });
  }

  private freshAt(lo: number, hi: number): number | undefined {
    const at = this.byKey.get(lo * 2097152 + (hi >>> 11));
    if (at === undefined) return undefined;
    const f = this.fresh[at]!;
    return f.lo === lo && f.hi === hi ? at : this.byText.get(`${lo}:${hi}`);
  }

  private resetLevel(): void {
    this.fresh = [];
    this.byKey = new Map();
    this.byText = new Map();
  }
}

function emptyBatch(from: number): Batch {
  return { from, worlds: [], actions: [], lo: [], hi: [], key: [], parent: [] };
}
