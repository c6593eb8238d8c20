// A shard's batch of worlds (shard.ts) as numbers, for the trip to another thread. Worlds share
// almost everything: a world's process records and pending events are, but for the one step
// that made it, its parent's objects. So each sender keeps, per receiver, a dictionary of the
// records and events it has sent (by identity), and a world travels as a row of numbers naming
// them; only what the receiver has not had yet travels as objects. Serializing whole worlds
// instead cost several times the search's own work (docs/CORE_SPEED.md, "Worker threads"). Both
// ends grow their dictionary in the order batches are made and read, one batch per level and pair.
import type { Message, Report } from '../algorithms/algorithm.ts';
import type { Action, Pending, Proc, World } from './world.ts';
import type { Batch, ExpandReply, Shard } from './shard.ts';

/** A batch on the wire: the dictionaries' new values and the worlds as numbers. */
export interface Packed {
  from: number;
  /** The sender started its dictionaries over (they were full): the receiver does too. */
  reset: boolean;
  /** New values (states, reports, messages, timer names), in the order they were numbered. */
  added: unknown[];
  /** Rare values kept whole: partitions, and actions other than a firing. */
  others: unknown[];
  nums: Float64Array;
}

/** Entries a pair of shards keeps at most in each dictionary before both start over. */
const DICT_MAX = 1 << 18;

const FIRE_EARLY = 0;
const FIRE_LATE = 1;
const OTHER = 2;
const DELIVER = 0;
const TIMER = 1;
const ELECT = 2;
/** A record (process or pending event) not sent before: its fields follow. */
const NEW = -1;

/**
 * One sender's side, for one receiver. Everything in a world is immutable and shared: process
 * records and pending events with the worlds around it, states, reports and messages through the
 * remembered steps. So each is known by identity and numbered the first time it is sent: a
 * record as a few numbers, a value (a state, a message) as itself; after that, by its number.
 */
class WorldEncoder {
  private values = new Map<unknown, number>();
  private records = new Map<object, number>();
  private added: unknown[] = [];
  private nums = new Float64Array(1 << 12);
  private n = 0;

  encode(b: Batch): Packed {
    const reset = this.values.size >= DICT_MAX || this.records.size >= DICT_MAX;
    if (reset) {
      this.values = new Map();
      this.records = new Map();
    }
    this.n = 0;
    const others: unknown[] = [];
    this.put(b.worlds.length);
    for (let i = 0; i < b.worlds.length; i++) {
      this.put(b.lo[i]!);
      this.put(b.hi[i]!);
      this.put(b.key[i]!);
      this.put(b.parent[i]!);
      const a = b.actions[i]!;
      if (a.kind === 'fire') this.put(a.at === 'early' ? FIRE_EARLY : FIRE_LATE);
      else this.put(OTHER);
      this.put(a.kind === 'fire' ? a.id : others.push(a) - 1);
      this.world(b.worlds[i]!, others);
    }
    const out = {
      from: b.from,
      reset,
      added: this.added,
      others,
      nums: this.nums.slice(0, this.n),
    };
    this.added = [];
    return out;
  }

  private world(w: World, others: unknown[]): void {
    const u = w.used;
    this.put(w.now);
    this.put(w.nextId);
    this.put(w.fresh ? 1 : 0);
    this.put(w.twoLeadersSince ?? NaN);
    this.put(u.crash);
    this.put(u.restart);
    this.put(u.drop);
    this.put(u.partition);
    this.put(u.slow);
    this.put(w.groups ? others.push(w.groups) - 1 : -1);
    this.put(w.slow ? w.slow[0] : -1);
    this.put(w.slow ? w.slow[1] : -1);
    this.put(w.procs.length);
    for (const p of w.procs) if (this.record(p)) this.proc(p);
    this.put(w.pending.length);
    for (const p of w.pending) if (this.record(p)) this.pending(p);
  }

  /** Writes a known record's number and returns false, or marks a new one (its fields to follow). */
  private record(x: Proc | Pending): boolean {
    const i = this.records.get(x);
    if (i !== undefined) {
      this.put(i);
      return false;
    }
    this.records.set(x, this.records.size);
    this.put(NEW);
    return true;
  }

  private proc(p: Proc): void {
    this.put(this.value(p.state));
    this.put(this.value(p.report));
    this.put(p.draws);
    this.put(p.hash);
  }

  private pending(p: Pending): void {
    this.put(p.id);
    this.put(p.sig);
    this.put(p.earliest);
    this.put(p.latest);
    if (p.kind === 'deliver') {
      this.put(DELIVER);
      this.put(p.from);
      this.put(p.to);
      this.put(this.value(p.message));
    } else {
      this.put(p.kind === 'timer' ? TIMER : ELECT);
      this.put(p.node);
      this.put(p.kind === 'timer' ? this.value(p.name) : p.watch ? 1 : 0);
      this.put(0);
    }
  }

  /** A value's number (null: -1): objects by identity, strings by value. */
  private value(x: unknown): number {
    if (x === null) return -1;
    let i = this.values.get(x);
    if (i === undefined) {
      i = this.values.size;
      this.values.set(x, i);
      this.added.push(x);
    }
    return i;
  }

  private put(v: number): void {
    if (this.n === this.nums.length) {
      const grown = new Float64Array(this.nums.length * 2);
      grown.set(this.nums);
      this.nums = grown;
    }
    this.nums[this.n++] = v;
  }
}

/** One receiver's side, for one sender: the same numbering, so decoded worlds share objects too. */
class WorldDecoder {
  private values: unknown[] = [];
  private records: (Proc | Pending)[] = [];

  decode(p: Packed): Batch {
    if (p.reset) {
      this.values = [];
      this.records = [];
    }
    for (const x of p.added) this.values.push(x);
    const n = p.nums;
    const b: Batch = { from: p.from, worlds: [], actions: [], lo: [], hi: [], key: [], parent: [] };
    let k = 1;
    for (let i = 0; i < n[0]!; i++) {
      b.lo.push(n[k++]!);
      b.hi.push(n[k++]!);
      b.key.push(n[k++]!);
      b.parent.push(n[k++]!);
      const code = n[k++]!;
      const x = n[k++]!;
      b.actions.push(
        code === OTHER
          ? (p.others[x] as Action)
          : { kind: 'fire', id: x, at: code === FIRE_EARLY ? 'early' : 'late' },
      );
      k = this.world(n, k, p.others, b.worlds);
    }
    return b;
  }

  private world(n: Float64Array, k: number, others: unknown[], out: World[]): number {
    const now = n[k++]!;
    const nextId = n[k++]!;
    const fresh = n[k++] === 1;
    const since = n[k++]!;
    const used = {
      crash: n[k]!,
      restart: n[k + 1]!,
      drop: n[k + 2]!,
      partition: n[k + 3]!,
      slow: n[k + 4]!,
    };
    k += 5;
    const g = n[k++]!;
    const from = n[k++]!;
    const to = n[k++]!;
    const procs: Proc[] = [];
    for (let c = n[k++]!; c > 0; c--) {
      if (n[k] !== NEW) procs.push(this.records[n[k++]!] as Proc);
      else {
        procs.push(this.remember(this.proc(n, k + 1)));
        k += 5;
      }
    }
    const pending: Pending[] = [];
    for (let c = n[k++]!; c > 0; c--) {
      if (n[k] !== NEW) pending.push(this.records[n[k++]!] as Pending);
      else {
        pending.push(this.remember(this.pending(n, k + 1)));
        k += 9;
      }
    }
    out.push({
      now,
      procs,
      pending,
      used,
      groups: g < 0 ? null : (others[g] as World['groups']),
      slow: from < 0 ? null : [from, to],
      nextId,
      fresh,
      twoLeadersSince: Number.isNaN(since) ? null : since,
    });
    return k;
  }

  private remember<T extends Proc | Pending>(x: T): T {
    this.records.push(x);
    return x;
  }

  private value(i: number): unknown {
    return i < 0 ? null : this.values[i];
  }

  private proc(n: Float64Array, k: number): Proc {
    const report = this.value(n[k + 1]!) as Report | null;
    return { state: this.value(n[k]!), report, draws: n[k + 2]!, hash: n[k + 3]! };
  }

  private pending(n: Float64Array, k: number): Pending {
    const id = n[k]!;
    const sig = n[k + 1]!;
    const earliest = n[k + 2]!;
    const latest = n[k + 3]!;
    const kind = n[k + 4]!;
    const node = n[k + 5]!;
    if (kind === DELIVER) {
      const message = this.values[n[k + 7]!] as Message;
      return { id, sig, kind: 'deliver', earliest, latest, from: node, to: n[k + 6]!, message };
    }
    if (kind === TIMER) {
      const name = this.values[n[k + 6]!] as string;
      return { id, sig, kind: 'timer', earliest, latest, node, name };
    }
    return { id, sig, kind: 'elect', earliest, latest, node, watch: n[k + 6] === 1 };
  }
}

/** A shard whose batches leave and arrive packed: what a thread hosts (and the in-process pool). */
export class PackedShard {
  private readonly encoders: WorldEncoder[];
  private readonly decoders: WorldDecoder[];

  constructor(readonly shard: Shard) {
    this.encoders = Array.from({ length: shard.shards }, () => new WorldEncoder());
    this.decoders = Array.from({ length: shard.shards }, () => new WorldDecoder());
  }

  /** A level's batches, packed for their owners. */
  pack(r: ExpandReply): Omit<ExpandReply, 'out'> & { out: (Packed | null)[] } {
    return { ...r, out: r.out.map((b, to) => (b ? this.encoders[to]!.encode(b) : null)) };
  }

  /** The batches other shards packed for this one, in the order they were packed. */
  unpack(packed: readonly Packed[]): Batch[] {
    return packed.map((p) => this.decoders[p.from]!.decode(p));
  }
}
