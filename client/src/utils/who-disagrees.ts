// Who disagrees about the coordinator. Within each partition group (the whole lab when there is
// no partition) the coordinator most up processes believe in is the group's view; a process that
// believes in another disagrees. A process that believes in nobody (it is electing) is
// undecided, not disagreeing, and does not make the view: when most of a class is still electing
// and a few already follow the new coordinator, those few are right (issue 24). A belief in a process that is down, or on the other side of a
// partition, is stale even when everyone shares it. The lab is settled when nobody is electing,
// nobody disagrees and nothing is stale: the end of an election.
import type { ProcessId, Report } from '@shared/algorithms/algorithm.ts';
import type { ProcessStatus } from '@shared/protocol/frames.ts';

/** The fields this needs from a ProcessInfo (so tests and the model can pass plain objects). */
export interface Believer {
  id: ProcessId;
  status: ProcessStatus;
  report: Report | null;
  group: number | null;
}

export interface Agreement {
  /** Each group's majority coordinator among those who name one (key -1: no partition). null: nobody names one. */
  consensus: Map<number, ProcessId | null>;
  /** Up processes whose coordinator differs from their group's majority. */
  disagree: Set<ProcessId>;
  /** Up processes that believe in a coordinator that is down, absent or out of their group. */
  stale: Set<ProcessId>;
  electing: Set<ProcessId>;
  /** Nobody electing, disagreeing or stale, and every up process that reported has a coordinator. */
  settled: boolean;
}

export function whoDisagrees(processes: Iterable<Believer>): Agreement {
  const byId = new Map<ProcessId, Believer>();
  const groups = new Map<number, Believer[]>();
  for (const p of processes) {
    byId.set(p.id, p);
    if (p.status !== 'up' || !p.report) continue;
    const key = p.group ?? -1;
    const list = groups.get(key);
    if (list) list.push(p);
    else groups.set(key, [p]);
  }
  const consensus = new Map<number, ProcessId | null>();
  const disagree = new Set<ProcessId>();
  const stale = new Set<ProcessId>();
  const electing = new Set<ProcessId>();
  let settled = true;
  for (const [key, members] of groups) {
    const named = members.map((p) => p.report!.coordinator).filter((c) => c !== null);
    const majority = named.length ? mostCommon(named) : null;
    consensus.set(key, majority);
    for (const p of members) {
      const c = p.report!.coordinator;
      if (p.report!.electing) electing.add(p.id);
      if (c !== null && c !== majority) disagree.add(p.id);
      if (c === null) {
        settled = false;
        continue;
      }
      const target = byId.get(c);
      if (!target || target.status !== 'up' || (target.group ?? -1) !== key) stale.add(p.id);
    }
  }
  if (electing.size || disagree.size || stale.size) settled = false;
  return { consensus, disagree, stale, electing, settled };
}

/** The most frequent value; ties go to the higher id (the value an election would pick), null last. */
function mostCommon(values: (ProcessId | null)[]): ProcessId | null {
  const counts = new Map<ProcessId | null, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: ProcessId | null = null;
  let bestN = -1;
  for (const [v, n] of counts) {
    if (n > bestN || (n === bestN && v !== null && (best === null || v > best))) {
      best = v;
      bestN = n;
    }
  }
  return best;
}
