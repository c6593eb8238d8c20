// Breadth-first search over the explorer's worlds: every order in which pending events may fire
// and every place the allowed faults may strike, checking safety at every world and agreement
// at every quiescent one (shared/analysis/properties.ts). Worlds seen before (same process states, same
// pending multiset with times relative to now, same faults) are skipped. Breadth first, so the
// first violation found has the shortest schedule.
import type { AlgorithmName } from '../algorithms/algorithm.ts';
import { enabled, initialWorld, step } from './explore-engine.ts';
import { hashValue } from './explore-hash.ts';
import {
  live,
  procOf,
  reportsOf,
  type Action,
  type ExploreSetup,
  type Recorder,
  type World,
} from './explore-world.ts';
import { probe, type ProbeLimits, type ProbeTally } from './explore-probe.ts';
import {
  checkAgreement,
  checkSafety,
  leads,
  type Property,
  type Violation,
} from '../analysis/properties.ts';
import type { TraceEvent } from '../protocol/trace.ts';
import { separated } from './network.ts';

export interface SearchLimits {
  /** Longest schedule (actions) explored. */
  depth: number;
  /** Distinct worlds explored at most. */
  states: number;
  /** Wall time budget, ms (measured with the clock passed in). */
  ms: number;
  /** Properties to check (default both). */
  check?: readonly Property[];
  /** Random probes once the search stops at a bound (not when it exhausts or finds): none when unset. */
  probes?: ProbeLimits;
  /** Called at each new depth with the states seen so far (the CLI's progress line). */
  onDepth?: (depth: number, states: number) => void;
}

interface SearchFinding {
  violation: Violation;
  actions: Action[];
  /** bfs: the shortest schedule that breaks it; probe: one random schedule that does (maybe not the shortest). */
  by: 'bfs' | 'probe';
}

export interface SearchResult {
  finding: SearchFinding | null;
  /** Distinct worlds reached. */
  states: number;
  transitions: number;
  /** Depth of the deepest level completed. */
  depth: number;
  /** found; exhausted: every reachable world was explored; or the limit that stopped it. */
  stoppedBy: 'found' | 'exhausted' | 'depth' | 'states' | 'time';
  /** True only when every reachable world was checked (stoppedBy 'exhausted'). */
  exhaustive: boolean;
  /** The breadth-first search's bound that stopped it (null: exhausted, or a violation found first). */
  bound: 'depth' | 'states' | 'time' | null;
  /** Random probes run after the search stopped at a bound (zeros when none ran). */
  probes: ProbeTally;
  elapsedMs: number;
}

const NO_PROBES: ProbeTally = { run: 0, settled: 0, steps: 0 };

function check(
  setup: ExploreSetup,
  w: World,
  which: readonly Property[] = ['safety', 'agreement'],
  prev: World | null = null,
): Violation | null {
  const extra = setup.invariant?.(prev, w, which);
  if (extra) return extra;
  const name: AlgorithmName = setup.algorithm.name;
  const quiet = w.pending.length === 0 && which.includes('agreement');
  if (which.includes('safety')) {
    if (setup.overlap !== undefined) {
      const since = w.twoLeadersSince;
      if (since !== null && w.now - since > setup.overlap) return overlapViolation(setup, w, since);
    } else {
      // Safety needs two live leaders: count them before building anything.
      let leaders = 0;
      for (const p of w.procs) if (p.state !== null && leads(p.report)) leaders++;
      if (leaders >= 2) {
        const v = checkSafety(live(setup, w), reportsOf(setup, w));
        if (v) return v;
      }
    }
  }
  return quiet ? checkAgreement(name, live(setup, w), reportsOf(setup, w)) : null;
}

function overlapViolation(setup: ExploreSetup, w: World, since: number): Violation {
  const v = checkSafety(live(setup, w), reportsOf(setup, w));
  const who = v ? v.message : 'two processes led';
  return {
    property: 'safety',
    processes: v?.processes ?? [],
    message: `${who} from t=${since} to t=${w.now}, longer than the ${setup.overlap} ms the documents allow`,
  };
}

/**
 * The worlds seen so far, by key: an open-addressing hash set of 53-bit numbers in a typed array
 * (a Set of a million non-small-integer numbers costs far more, in time and in memory).
 */
class SeenSet {
  private table = new Float64Array(1 << 16);
  private mask = (1 << 16) - 1;
  size = 0;

  /** Adds `key`; false if it was there. */
  add(key: number): boolean {
    const k = key === 0 ? 1 : key;
    let i = (k ^ (k / 4294967296)) & this.mask;
    for (;;) {
      const x = this.table[i]!;
      if (x === 0) break;
      if (x === k) return false;
      i = (i + 1) & this.mask;
    }
    this.table[i] = k;
    if (++this.size * 2 > this.table.length) this.grow();
    return true;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Float64Array(old.length * 2);
    this.mask = this.table.length - 1;
    for (const k of old) {
      if (k === 0) continue;
      let i = (k ^ (k / 4294967296)) & this.mask;
      while (this.table[i] !== 0) i = (i + 1) & this.mask;
      this.table[i] = k;
    }
  }
}

export function search(
  setup: ExploreSetup,
  limits: SearchLimits,
  clock: () => number,
): SearchResult {
  const r = breadthFirst(setup, limits, clock);
  if (r.bound === null || !limits.probes || limits.probes.count === 0) return r;
  const started = clock();
  const which = limits.check ?? ['safety', 'agreement'];
  const p = probe(setup, limits.probes, clock, (w, prev) => check(setup, w, which, prev), which);
  const elapsedMs = r.elapsedMs + (clock() - started);
  if (!p.finding) return { ...r, probes: p.tally, elapsedMs };
  return {
    ...r,
    probes: p.tally,
    elapsedMs,
    stoppedBy: 'found',
    finding: { ...p.finding, by: 'probe' },
  };
}

function breadthFirst(
  setup: ExploreSetup,
  limits: SearchLimits,
  clock: () => number,
): SearchResult {
  const started = clock();
  const parent: number[] = [-1];
  const via: (Action | null)[] = [null];
  const seen = new SeenSet();
  const worldKey = createKeyer();
  const root = initialWorld(setup);
  seen.add(worldKey(root));
  let transitions = 0;
  const done = (
    stoppedBy: SearchResult['stoppedBy'],
    depth: number,
    finding: SearchFinding | null = null,
  ): SearchResult => ({
    finding,
    states: seen.size,
    transitions,
    depth,
    stoppedBy,
    exhaustive: stoppedBy === 'exhausted',
    bound: stoppedBy === 'found' || stoppedBy === 'exhausted' ? null : stoppedBy,
    probes: NO_PROBES,
    elapsedMs: clock() - started,
  });
  const which = limits.check ?? ['safety', 'agreement'];
  const rootViolation = check(setup, root, which);
  if (rootViolation) return done('found', 0, { violation: rootViolation, actions: [], by: 'bfs' });
  let frontier: { world: World; node: number }[] = [{ world: root, node: 0 }];
  let lastDepth = 0;
  for (let depth = 0; frontier.length > 0; depth++) {
    if (depth >= limits.depth) return done('depth', depth);
    lastDepth = depth;
    limits.onDepth?.(depth, seen.size);
    const next: typeof frontier = [];
    for (const { world, node } of frontier) {
      for (const action of enabled(setup, world)) {
        transitions++;
        const w = step(setup, world, action);
        if (!seen.add(worldKey(w))) continue;
        parent.push(node);
        via.push(action);
        const id = parent.length - 1;
        const v = check(setup, w, which, world);
        if (v)
          return done('found', depth + 1, {
            violation: v,
            actions: pathTo(id, parent, via),
            by: 'bfs',
          });
        next.push({ world: w, node: id });
        if (seen.size >= limits.states) return done('states', depth);
      }
      if ((transitions & 255) === 0 && clock() - started > limits.ms) return done('time', depth);
    }
    frontier = next;
  }
  return done('exhausted', lastDepth);
}

function pathTo(id: number, parent: number[], via: (Action | null)[]): Action[] {
  const out: Action[] = [];
  for (let k = id; k > 0; k = parent[k]!) out.push(via[k]!);
  return out.reverse();
}

/**
 * A world's fingerprint: process states and pending events (times relative to now, as a
 * multiset with each message's place in its link's queue, event ids left out), the random draws
 * and the faults used. Each state's and each event's fingerprint is made once, when it is
 * created (explore-engine.ts), so a key costs a pass over a few numbers; the pending multiset is
 * summed, so its order does not matter.
 */
export function createKeyer(): (w: World) => number {
  // Scratch for the per-link ranks: links seen in this world and how many messages each had so far.
  const linkFrom: number[] = [];
  const linkTo: number[] = [];
  const linkCount: number[] = [];
  return (w) => {
    const now = w.now;
    let lo = 0;
    let hi = 0;
    const pending = w.pending;
    // Pending events are kept in id order (each is appended when made), so a message's rank on
    // its link is the count of its link's messages before it; any other order is counted pairwise.
    let ordered = true;
    for (let i = 1; i < pending.length; i++)
      if (pending[i]!.id < pending[i - 1]!.id) ordered = false;
    let links = 0;
    for (let i = 0; i < pending.length; i++) {
      const p = pending[i]!;
      const what = p.sig;
      // Messages on one link arrive in order, so a message's place in its link's queue matters.
      let rank = 0;
      if (p.kind === 'deliver') {
        if (ordered) {
          let k = 0;
          while (k < links && (linkFrom[k] !== p.from || linkTo[k] !== p.to)) k++;
          if (k === links) {
            linkFrom[k] = p.from;
            linkTo[k] = p.to;
            linkCount[k] = 0;
            links++;
          }
          rank = linkCount[k]!++;
        } else {
          for (let j = 0; j < pending.length; j++) {
            const q = pending[j]!;
            if (q.kind === 'deliver' && q.id < p.id && q.from === p.from && q.to === p.to) rank++;
          }
        }
      }
      // Times relative to now, to the microsecond, mixed in as integers; -1 for "no bound".
      const e = p.earliest === Infinity ? -1 : Math.round(Math.max(0, p.earliest - now) * 1000);
      const l = p.latest === Infinity ? -1 : Math.round(Math.max(0, p.latest - now) * 1000);
      const a = mix(mix(mix(what >>> 0, e), l), rank);
      const b = mix(mix(Math.floor(what / 4294967296), l ^ 0x5bd1e995), e ^ 0x27d4eb2f);
      lo = (lo + a) >>> 0;
      hi = (hi + b) >>> 0;
    }
    // Two independent 32-bit chains over everything else, in a fixed order.
    let x = mix(lo, pending.length);
    let y = mix(hi, 0x9e3779b9);
    const procs = w.procs;
    for (let i = 0; i < procs.length; i++) {
      const p = procs[i]!;
      const h = p.state === null ? 1 : p.hash;
      x = mix(mix(x, i), h);
      y = mix(mix(y, i ^ 0x85ebca6b), Math.floor(h / 4294967296) ^ 0xc2b2ae35);
      x = mix(x, p.draws);
    }
    const u = w.used;
    x = mix(x, u.crash | (u.drop << 8) | (u.partition << 16) | (u.slow << 24));
    x = mix(x, u.restart);
    x = mix(x, w.fresh ? 1 : 2);
    if (w.twoLeadersSince !== null) x = mix(x, 1 + Math.round((now - w.twoLeadersSince) * 1000));
    if (w.slow) x = mix(mix(x, w.slow[0]), w.slow[1] + 1);
    if (w.groups) y = mix(y, hashValue(w.groups));
    return (y & 0x1fffff) * 4294967296 + x;
  };
}

function mix(h: number, v: number): number {
  h = Math.imul(h ^ (v >>> 0), 2654435761);
  // v may exceed 32 bits (long timers in microseconds): fold its high part in too.
  if (v > 4294967295 || v < -2147483648) h = Math.imul(h ^ Math.floor(v / 4294967296), 1597334677);
  else h = Math.imul(h ^ (v < 0 ? -1 : 0), 1597334677);
  return (h ^ (h >>> 15)) >>> 0;
}

/** Replays a schedule from the start, recording it as a trace the dashboard can replay. */
export function scheduleTrace(
  setup: ExploreSetup,
  actions: readonly Action[],
  found?: Violation,
): { trace: TraceEvent[]; worlds: World[] } {
  const trace: TraceEvent[] = [];
  const rec: Recorder = (e) => trace.push({ seq: trace.length, ...e } as TraceEvent);
  let w = initialWorld(setup, rec);
  const worlds = [w];
  for (const a of actions) {
    w = step(setup, w, a, rec);
    worlds.push(w);
  }
  // The verdict closes the trace, as the live checker's findings do in the relay's.
  const v = found ?? check(setup, w, undefined, worlds[worlds.length - 2] ?? null);
  if (v)
    rec({
      t: w.now,
      kind: 'finding',
      finding: { kind: v.property, at: w.now, detail: v.message, processes: v.processes },
    });
  return { trace, worlds };
}

/** One line per action, for the terminal. */
export function describeAction(
  setup: ExploreSetup,
  before: World,
  after: World,
  a: Action,
): string {
  const t = `t=${after.now}`;
  switch (a.kind) {
    case 'fire': {
      const p = before.pending.find((x) => x.id === a.id)!;
      if (p.kind === 'deliver') {
        const cut = separated(before.groups, p.from, p.to);
        const fate =
          procOf(setup, after, p.to)?.state === null
            ? ' (down: dropped)'
            : cut
              ? ' (across the cut: dropped)'
              : '';
        return `${t} ${p.to} ${fate ? 'would receive' : 'receives'} ${p.message.type} from ${p.from}${fate}`;
      }
      if (p.kind === 'timer') return `${t} ${p.node}'s timer ${p.name} fires`;
      return `${t} ${p.node}'s failure detector fires (elect)`;
    }
    case 'crash':
      return `${t} ${a.node} crashes`;
    case 'restart':
      return `${t} ${a.node} comes back up with its state lost (init, no coordinator)`;
    case 'drop': {
      const p = before.pending.find((x) => x.id === a.id);
      return `${t} the ${p?.kind === 'deliver' ? `${p.message.type} from ${p.from} to ${p.to}` : 'message'} is lost`;
    }
    case 'partition':
      return `${t} partition ${a.groups.map((g) => `{${g.join(',')}}`).join(' | ')}`;
    case 'heal':
      return `${t} the partition heals`;
    case 'slow':
      return `${t} link ${a.from}→${a.to} turns slow (its messages may arrive after any timeout)`;
  }
}
