// The explorer's search: every order in which pending events may fire and every place the allowed
// faults may strike, checking safety at every world and agreement at every quiescent one
// (shared/analysis/properties.ts), breadth first (bfs.ts: worlds seen before, by
// fingerprint, are skipped; sleep sets skip orders that do not matter), then random probes
// (probe.ts) when a bound stopped it. The schedule found is replayed here as a trace.
import type { AlgorithmName } from '../algorithms/algorithm.ts';
import { initialWorld, move } from './engine.ts';
import { breadthFirst, type SearchLimits, type SearchResult } from './bfs.ts';
import { splitBreadthFirst, type ShardPool, type SplitTally } from './levels.ts';
import {
  live,
  procOf,
  reportsOf,
  type Action,
  type ExploreSetup,
  type Recorder,
  type World,
} from './world.ts';
import { probe } from './probe.ts';
import {
  checkAgreement,
  checkSafety,
  leads,
  type Property,
  type Violation,
} from '../analysis/properties.ts';
import type { TraceEvent } from '../protocol/trace.ts';
import { separated } from '../sim/network.ts';

export type { SearchLimits, SearchResult } from './bfs.ts';

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

export function search(
  setup: ExploreSetup,
  limits: SearchLimits,
  clock: () => number,
): SearchResult {
  const r = breadthFirst(setup, limits, clock, checker(setup, limits.check));
  return withProbes(setup, limits, clock, r);
}

/** A world's verdict for the properties `which` (default safety and agreement); `prev` for a work invariant. */
export function checker(
  setup: ExploreSetup,
  which: readonly Property[] = ['safety', 'agreement'],
): (w: World, prev?: World | null) => Violation | null {
  return (w, prev = null) => check(setup, w, which, prev);
}

/**
 * The plain breadth-first search split across the pool's shards (levels.ts; the same answer as
 * `search` with sleep sets off), then the same random probes, run here.
 */
export async function searchSplit<B>(
  setup: ExploreSetup,
  limits: SearchLimits,
  pool: ShardPool<B>,
  clock: () => number,
): Promise<SearchResult & { split: SplitTally }> {
  // A work invariant reads the step between two worlds, which a shard does not keep.
  if (setup.invariant) throw new Error('explore: a work invariant is searched by one worker');
  const r = await splitBreadthFirst(pool, limits, clock);
  return { ...withProbes(setup, limits, clock, r), split: r.split };
}

/** Random probes after a search stopped at a bound (none when it exhausted, found, or none asked). */
function withProbes(
  setup: ExploreSetup,
  limits: SearchLimits,
  clock: () => number,
  r: SearchResult,
): SearchResult {
  if (r.bound === null || !limits.probes || limits.probes.count === 0) return r;
  const which = limits.check ?? ['safety', 'agreement'];
  const started = clock();
  const p = probe(setup, limits.probes, clock, checker(setup, which), which);
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
    w = move(setup, w, a, rec);
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
