// The breadth-first search split across shards (shard.ts), level by level: every shard expands
// its part of the frontier, the batches go to the worlds' owners, each owner orders and checks
// its new worlds, and the shards' orders are merged into the level's one order (the ranks the
// next level's keys start from). The answer is the one-thread plain search's (bfs.ts with
// sleep sets off): the same worlds, depth, first violation and schedule, the state bound cut at
// the same world. Only the transport is injected (`ShardPool`): in-process for the tests and
// the browser, worker threads for the CLI and the bench (scripts/explore-workers.ts).
import type { Action, ExploreSetup, World } from './world.ts';
import { Shard, type AcceptReply, type ExpandReply } from './shard.ts';
import { PackedShard, type Packed } from './world-codec.ts';
import { collisionBound } from './key.ts';
import type { SearchLimits, SearchResult } from './bfs.ts';

/** What one shard answers to expand, with the batches in the pool's own carriage (`B`). */
interface PoolExpand<B> extends Omit<ExpandReply, 'out'> {
  out: (B | null)[];
  /** Bytes the host serialized for the batches, the ms it spent packing them and expanding (0 in-process). */
  bytes: number;
  codecMs: number;
  workMs: number;
}

/** The shards, wherever they run. Each call goes to one shard; calls to different shards may overlap. */
export interface ShardPool<B> {
  readonly size: number;
  start(shard: number): Promise<{ owns: boolean; violation: SearchResultViolation | null }>;
  expand(shard: number, ranks: Uint32Array, ms: number): Promise<PoolExpand<B>>;
  /** `codecMs`, `workMs`: the host's time reading the batches, and taking them in (0 in-process). */
  accept(shard: number, batches: B[]): Promise<AcceptReply & { codecMs: number; workMs: number }>;
  nodeAt(shard: number, k: number): Promise<number>;
  back(
    shard: number,
    node: number,
  ): Promise<{ shard: number; node: number; action: Action | null }>;
}

type SearchResultViolation = NonNullable<SearchResult['finding']>['violation'];

/** What splitting cost: worlds handed between shards, the bytes and the time of their carriage. */
export interface SplitTally {
  workers: number;
  shipped: number;
  bytes: number;
  codecMs: number;
  /** Ms the shards spent expanding and taking in worlds, all shards summed (the split's useful work). */
  workMs: number;
  /** The sums (mod 2^32) of the two lanes of every world's fingerprint: one search's worlds, whatever the split. */
  digest: [number, number];
}

/**
 * The level's order from each shard's ascending keys: `ranks[s][i]`, the place in the level of
 * shard s's i-th new world. Keys are distinct (a parent's rank and an action's place).
 */
export function mergeRanks(keys: readonly Float64Array[]): Uint32Array[] {
  const ranks = keys.map((k) => new Uint32Array(k.length));
  const at = keys.map(() => 0);
  let total = 0;
  for (const k of keys) total += k.length;
  for (let r = 0; r < total; r++) {
    let best = -1;
    for (let s = 0; s < keys.length; s++)
      if (at[s]! < keys[s]!.length && (best < 0 || keys[s]![at[s]!]! < keys[best]![at[best]!]!))
        best = s;
    ranks[best]![at[best]!++] = r;
  }
  return ranks;
}

/** The tally's handed-over worlds, bytes and times, plus one shard's. */
function addCosts(
  tally: SplitTally,
  c: { shipped: number; bytes: number; codecMs: number; workMs: number },
): void {
  tally.shipped += c.shipped;
  tally.bytes += c.bytes;
  tally.codecMs += c.codecMs;
  tally.workMs += c.workMs;
}

/** A split search's result, shaped as the one-thread search's (no probes, no sleep sets). */
function splitResult(
  r: {
    stoppedBy: SearchResult['stoppedBy'];
    depth: number;
    finding: SearchResult['finding'];
    states: number;
    transitions: number;
    tally: SplitTally;
  },
  elapsedMs: number,
): SearchResult & { split: SplitTally } {
  return {
    finding: r.finding,
    states: r.states,
    transitions: r.transitions,
    depth: r.depth,
    stoppedBy: r.stoppedBy,
    exhaustive: r.stoppedBy === 'exhausted',
    bound: r.stoppedBy === 'found' || r.stoppedBy === 'exhausted' ? null : r.stoppedBy,
    probes: { run: 0, settled: 0, steps: 0 },
    collisionBound: collisionBound(r.states),
    por: null,
    elapsedMs,
    split: r.tally,
  };
}

/** The plain breadth-first search over the pool's shards; probes are the caller's (search.ts). */
export async function splitBreadthFirst<B>(
  pool: ShardPool<B>,
  limits: SearchLimits,
  clock: () => number,
): Promise<SearchResult & { split: SplitTally }> {
  const started = clock();
  const shards = Array.from({ length: pool.size }, (_, s) => s);
  const tally: SplitTally = {
    workers: pool.size,
    shipped: 0,
    bytes: 0,
    codecMs: 0,
    workMs: 0,
    digest: [0, 0],
  };
  let transitions = 0;
  let states = 1;
  const done = (
    stoppedBy: SearchResult['stoppedBy'],
    depth: number,
    finding: SearchResult['finding'] = null,
  ) => splitResult({ stoppedBy, depth, finding, states, transitions, tally }, clock() - started);
  const starts = await Promise.all(shards.map((s) => pool.start(s)));
  const root = starts.find((x) => x.owns)!;
  if (root.violation)
    return done('found', 0, { violation: root.violation, actions: [], by: 'bfs' });
  let ranks: Uint32Array[] = starts.map((x) => Uint32Array.of(...(x.owns ? [0] : [])));
  for (let depth = 0; ranks.some((r) => r.length > 0); depth++) {
    if (depth >= limits.depth) return done('depth', depth);
    limits.onDepth?.(depth, states);
    const ms = limits.ms - (clock() - started);
    const ex = await Promise.all(shards.map((s) => pool.expand(s, ranks[s]!, ms)));
    for (const e of ex) {
      transitions += e.transitions;
      addCosts(tally, e);
    }
    const inbox = (s: number) => ex.flatMap((e) => (e.out[s] ? [e.out[s]] : []));
    const acc = await Promise.all(shards.map((s) => pool.accept(s, inbox(s))));
    for (const a of acc) addCosts(tally, { shipped: 0, bytes: 0, ...a });
    const before = states;
    states = acc.reduce((n, a) => n + a.seen, 0);
    tally.digest = acc.reduce<[number, number]>(
      ([lo, hi], a) => [(lo + a.digest[0]) >>> 0, (hi + a.digest[1]) >>> 0],
      [0, 0],
    );
    ranks = mergeRanks(acc.map((a) => a.keys));
    // The one-thread search stops once the bound's world is in: the first `room` of this level.
    const room = limits.states - before;
    const found = firstViolation(acc, ranks);
    if (found && found.rank < room) {
      states = Math.min(states, before + found.rank + 1);
      const actions = await scheduleTo(pool, found.shard, await pool.nodeAt(found.shard, found.at));
      return done('found', depth + 1, { violation: found.violation, actions, by: 'bfs' });
    }
    if (states >= limits.states) {
      states = limits.states;
      return done('states', depth);
    }
    if (ex.some((e) => e.timedOut) || clock() - started > limits.ms) return done('time', depth);
    if (states === before) return done('exhausted', depth);
  }
  return done('exhausted', 0);
}

interface Found {
  shard: number;
  at: number;
  rank: number;
  violation: SearchResultViolation;
}

/** The level's first violating world in its one order (each shard reports its own first). */
function firstViolation(acc: readonly AcceptReply[], ranks: readonly Uint32Array[]): Found | null {
  let best: Found | null = null;
  for (let shard = 0; shard < acc.length; shard++) {
    const v = acc[shard]!.violation;
    if (!v) continue;
    const rank = ranks[shard]![v.at]!;
    if (!best || rank < best.rank) best = { shard, at: v.at, rank, violation: v.violation };
  }
  return best;
}

/** The actions from the initial world to a node, following parents across shards. */
async function scheduleTo<B>(pool: ShardPool<B>, shard: number, node: number): Promise<Action[]> {
  const out: Action[] = [];
  for (let s = shard, n = node; s >= 0;) {
    const b = await pool.back(s, n);
    if (b.action) out.push(b.action);
    s = b.shard;
    n = b.node;
  }
  return out.reverse();
}

/**
 * The shards in this thread, one after another, their batches packed as for a thread: the same
 * answer as threads give (the unit tests hold the merge and the packing with it), at no speed gain.
 */
export function localPool(
  setup: ExploreSetup,
  size: number,
  check: (w: World) => SearchResultViolation | null,
  clock: () => number,
): ShardPool<Packed> {
  const shards = Array.from(
    { length: size },
    (_, s) => new PackedShard(new Shard(setup, s, size, check)),
  );
  return {
    size,
    start: async (s) => shards[s]!.shard.start(),
    expand: async (s, ranks, ms) => {
      const until = clock() + ms;
      const r = shards[s]!.shard.expand(ranks, () => until - clock());
      return { ...shards[s]!.pack(r), bytes: 0, codecMs: 0, workMs: 0 };
    },
    accept: async (s, packed) => ({
      ...shards[s]!.shard.accept(shards[s]!.unpack(packed)),
      codecMs: 0,
      workMs: 0,
    }),
    nodeAt: async (s, k) => shards[s]!.shard.nodeAt(k),
    back: async (s, node) => shards[s]!.shard.back(node),
  };
}
