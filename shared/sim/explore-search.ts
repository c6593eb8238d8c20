// Breadth-first search over the explorer's worlds: every order in which pending events may fire
// and every place the allowed faults may strike, checking safety at every world and agreement
// at every quiescent one (shared/analysis/properties.ts). Worlds seen before (same process states, same
// pending multiset with times relative to now, same faults) are skipped. Breadth first, so the
// first violation found has the shortest schedule.
import type { AlgorithmName } from '../algorithms/algorithm.ts';
import { enabled, initialWorld, live, step, type Action, type ExploreSetup, type Recorder, type World } from './explore-engine.ts';
import { checkAgreement, checkSafety, type Property, type Violation } from '../analysis/properties.ts';
import type { TraceEvent } from '../protocol/trace.ts';

export interface SearchLimits {
  /** Longest schedule (actions) explored. */
  depth: number;
  /** Distinct worlds explored at most. */
  states: number;
  /** Wall time budget, ms (measured with the clock passed in). */
  ms: number;
  /** Properties to check (default both). */
  check?: readonly Property[];
  /** Called at each new depth with the states seen so far (the CLI's progress line). */
  onDepth?: (depth: number, states: number) => void;
}

export interface Finding {
  violation: Violation;
  actions: Action[];
}

export interface SearchResult {
  finding: Finding | null;
  /** Distinct worlds reached. */
  states: number;
  transitions: number;
  /** Depth of the deepest level completed. */
  depth: number;
  /** found; exhausted: every reachable world was explored; or the limit that stopped it. */
  stoppedBy: 'found' | 'exhausted' | 'depth' | 'states' | 'time';
  elapsedMs: number;
}

export function check(name: AlgorithmName, w: World, which: readonly Property[] = ['safety', 'agreement']): Violation | null {
  const up = live(w);
  const reports = Object.fromEntries(w.reports);
  const safety = which.includes('safety') ? checkSafety(up, reports) : null;
  if (safety) return safety;
  return which.includes('agreement') && w.pending.length === 0 ? checkAgreement(name, up, reports) : null;
}

export function search(setup: ExploreSetup, limits: SearchLimits, clock: () => number): SearchResult {
  const started = clock();
  const name = setup.algorithm.name;
  const parent: number[] = [-1];
  const via: (Action | null)[] = [null];
  const seen = new Set<number>();
  const worldKey = createKeyer();
  const root = initialWorld(setup);
  seen.add(worldKey(root));
  let transitions = 0;
  const done = (stoppedBy: SearchResult['stoppedBy'], depth: number, finding: Finding | null = null): SearchResult => ({
    finding,
    states: seen.size,
    transitions,
    depth,
    stoppedBy,
    elapsedMs: clock() - started,
  });
  const which = limits.check ?? ['safety', 'agreement'];
  const rootViolation = check(name, root, which);
  if (rootViolation) return done('found', 0, { violation: rootViolation, actions: [] });
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
        const key = worldKey(w);
        if (seen.has(key)) continue;
        seen.add(key);
        parent.push(node);
        via.push(action);
        const id = parent.length - 1;
        const v = check(name, w, which);
        if (v) return done('found', depth + 1, { violation: v, actions: pathTo(id, parent, via) });
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
 * multiset with each message's place in its link's queue, event ids left out), the random draws and the faults used. Steps share the state
 * objects and pending entries they did not touch, so each one's hash is computed once per
 * search and kept here (the cache lives as long as the keyer); the pending multiset is summed,
 * so its order does not matter.
 */
export function createKeyer(): (w: World) => number {
  const cache = new WeakMap<object, number>();
  const of = (o: object, text: () => string) => {
    let h = cache.get(o);
    if (h === undefined) {
      h = hashKey(text());
      cache.set(o, h);
    }
    return h;
  };
  return (w) => {
    const rel = (t: number) => (Number.isFinite(t) ? Math.max(0, t - w.now) : -1);
    let lo = 0;
    let hi = 0;
    for (const p of w.pending) {
      const what = of(p, () => (p.kind === 'deliver' ? `d${p.from}>${p.to}:${JSON.stringify(p.message)}` : p.kind === 'timer' ? `t${p.node}:${p.name}` : `e${p.node}${p.watch ? 'w' : ''}`));
      // Messages on one link arrive in order, so a message's place in its link's queue matters.
      let rank = 0;
      if (p.kind === 'deliver') for (const q of w.pending) if (q.kind === 'deliver' && q.from === p.from && q.to === p.to && q.id < p.id) rank++;
      // Times to the microsecond, mixed in as integers (no string building in the hot loop).
      const e = Math.round(rel(p.earliest) * 1000);
      const l = Math.round(rel(p.latest) * 1000);
      const a = mix(mix(mix(what >>> 0, e), l), rank);
      const b = mix(mix(Math.floor(what / 4294967296), l ^ 0x5bd1e995), e ^ 0x27d4eb2f);
      lo = (lo + a) >>> 0;
      hi = (hi + b) >>> 0;
    }
    // Two independent 32-bit chains over everything else, in a fixed order.
    let x = mix(lo, w.pending.length);
    let y = mix(hi, 0x9e3779b9);
    for (const [id, st] of w.states) {
      const h = st === null ? 1 : of(st as object, () => JSON.stringify(st));
      x = mix(mix(x, id), h);
      y = mix(mix(y, id ^ 0x85ebca6b), Math.floor(h / 4294967296) ^ 0xc2b2ae35);
    }
    for (const d of w.draws.values()) x = mix(x, d);
    const u = w.used;
    x = mix(x, u.crash | (u.drop << 8) | (u.partition << 16) | (u.slow << 24));
    x = mix(x, w.fresh ? 1 : 2);
    if (w.slow) x = mix(mix(x, w.slow[0]), w.slow[1] + 1);
    if (w.groups) y = mix(y, hashKey(JSON.stringify(w.groups)));
    return (y & 0x1fffff) * 4294967296 + x;
  };
}

function mix(h: number, v: number): number {
  // v may exceed 32 bits (long timers in microseconds): fold its high part in too.
  h = Math.imul(h ^ (v >>> 0), 2654435761);
  h = Math.imul(h ^ Math.floor(v / 4294967296), 1597334677);
  return (h ^ (h >>> 15)) >>> 0;
}

/** cyrb53: a 53-bit string hash, so the seen-set holds numbers, not whole worlds. */
export function hashKey(s: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Replays a schedule from the start, recording it as a trace the dashboard can replay. */
export function scheduleTrace(setup: ExploreSetup, actions: readonly Action[]): { trace: TraceEvent[]; worlds: World[] } {
  const trace: TraceEvent[] = [];
  const rec: Recorder = (e) => trace.push({ seq: trace.length, ...e } as TraceEvent);
  let w = initialWorld(setup, rec);
  const worlds = [w];
  for (const a of actions) {
    w = step(setup, w, a, rec);
    worlds.push(w);
  }
  // The verdict closes the trace, as the live checker's findings do in the relay's.
  const v = check(setup.algorithm.name, w);
  if (v) rec({ t: w.now, kind: 'finding', finding: { kind: v.property, at: w.now, detail: v.message, processes: v.processes } });
  return { trace, worlds };
}

/** One line per action, for the terminal. */
export function describeAction(before: World, after: World, a: Action): string {
  const t = `t=${after.now}`;
  switch (a.kind) {
    case 'fire': {
      const p = before.pending.find((x) => x.id === a.id)!;
      if (p.kind === 'deliver') {
        const cut = before.groups !== null && !before.groups.some((g) => g.includes(p.from) && g.includes(p.to));
        const fate = after.states.get(p.to) === null ? ' (down: dropped)' : cut ? ' (across the cut: dropped)' : '';
        return `${t} ${p.to} ${fate ? 'would receive' : 'receives'} ${p.message.type} from ${p.from}${fate}`;
      }
      if (p.kind === 'timer') return `${t} ${p.node}'s timer ${p.name} fires`;
      return `${t} ${p.node}'s failure detector fires (elect)`;
    }
    case 'crash':
      return `${t} ${a.node} crashes`;
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
