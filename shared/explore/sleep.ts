// Partial-order reduction for the explorer: sleep sets (Godefroid, "Partial-Order Methods for the
// Verification of Concurrent Systems", 1996, ch. 5), with state caching.
//
// Independence is derived from which process a step touches. Two firings are independent when
// they fire at the same instant (both due now, or, say, two timers with the same deadline: after
// either, the other fires at that instant too, so neither moves the other's clock), at two
// different processes, and (when the detectors also read reports: with crashes or restarts)
// neither changes its process's report. Such a step changes one process's state and adds events
// of that process (its sends go on its own links, behind what is queued there; its timers and
// detections are its own), so the two orders reach one world (the same fingerprint: event ids
// are not part of it). Faults (crash, restart, drop, partition, heal, slow link), and a step that
// changes a report the detectors read, depend on everything.
//
// A sleep set holds the quiet actions already explored from an earlier sibling, whose order with
// the action taken does not matter: they are not taken again here. Sleep sets skip transitions,
// never states: every reachable world is still visited (and checked), at the same depth, so
// safety, agreement and the shortest schedule are the plain search's
// (test/unit/explore-por.test.ts holds both on every small lab plain search exhausts).
import type { ProcessId } from '../algorithms/algorithm.ts';
import { deadline, hearsReports, type Action, type ExploreSetup, type World } from './world.ts';

/**
 * A firing as a sleep set holds it: what the event is (`sig`), its deadline and the instant it
 * fires, both in microseconds after the world's now (its id depends on the path, so it is not
 * used), and the process it steps.
 */
export interface Asleep {
  sig: number;
  rel: number;
  at: number;
  node: ProcessId;
}

const us = (ms: number) => Math.round(ms * 1000);

/**
 * The firing as a sleep-set entry (null for a fault). Whether it is quiet (its report unchanged)
 * is known only once it is taken: see `quietAfter`.
 */
export function asleepEntry(w: World, a: Action): Asleep | null {
  if (a.kind !== 'fire') return null;
  const p = w.pending.find((x) => x.id === a.id);
  if (!p) return null;
  const fires = a.at === 'late' ? deadline(w) : Math.max(w.now, p.earliest);
  return {
    sig: p.sig,
    rel: p.latest === Infinity ? -1 : us(p.latest - w.now),
    at: us(fires - w.now),
    node: p.kind === 'deliver' ? p.to : p.node,
  };
}

/** Whether the entry's step, from `before` to `after`, left every report (what the detectors read) as it was. */
export function quietAfter(
  setup: ExploreSetup,
  before: World,
  after: World,
  index: number,
): boolean {
  return !hearsReports(setup) || before.procs[index]!.report === after.procs[index]!.report;
}

export function asleep(sleep: readonly Asleep[], e: Asleep): boolean {
  for (let i = 0; i < sleep.length; i++) {
    const s = sleep[i]!;
    if (s.sig === e.sig && s.rel === e.rel && s.at === e.at) return true;
  }
  return false;
}

/** Independent of `taken`: another process, the same instant. */
const commutes = (s: Asleep, taken: Asleep) => s.node !== taken.node && s.at === taken.at;

/** The entry seen from the world `taken` leads to (its now is `taken.at` later). */
const after = (s: Asleep, taken: Asleep): Asleep => ({
  ...s,
  rel: s.rel < 0 ? -1 : s.rel - taken.at,
  at: s.at - taken.at,
});

/**
 * The sleep set of the world reached by quiet firing `taken`: what slept here, and the quiet
 * siblings taken before it, that commute with it. (A sibling taken was not asleep here, so the
 * two parts never share an entry.)
 */
export function childSleep(
  sleep: readonly Asleep[],
  before: readonly Asleep[],
  taken: Asleep,
): Asleep[] {
  const out: Asleep[] = [];
  for (const s of sleep) if (commutes(s, taken)) out.push(after(s, taken));
  for (const s of before) if (commutes(s, taken)) out.push(after(s, taken));
  return out;
}

/**
 * A world met again: with state caching, what slept at its first visit but not now must still be
 * explored from it (Godefroid's rule), and what it keeps asleep is what sleeps in both.
 */
export function wakeOnRevisit(
  stored: readonly Asleep[],
  now: readonly Asleep[],
): { keep: Asleep[]; wake: Asleep[] } {
  const keep: Asleep[] = [];
  const wake: Asleep[] = [];
  for (const s of stored) (asleep(now, s) ? keep : wake).push(s);
  return { keep, wake };
}
