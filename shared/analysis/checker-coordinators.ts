// The checker's safety half: who acts as coordinator, and when that makes a split brain.
//
// Without terms (Bully, rings, Emergent) two live processes acting as coordinator at once are a
// split brain once the overlap outlasts `bounds.overlap`, the time the winner's announcement
// needs to reach the loser: a recovered Bully 7 bullies 6 within one hop, and that hand-over is
// the algorithm working, not failing (003, "Uniqueness: multi-master situations should be
// avoided or detected and resolved speedily"). With terms (Raft) there is no grace: a second
// process acting as leader of a term that already had one breaks Election Safety (Ongaro &
// Ousterhout, Figure 3), whether or not the first is still leading.
import type { ProcessId, Report } from '../algorithms/algorithm.ts';
import type { Finding } from '../protocol/finding.ts';
import type { CheckerProfile } from './checker-profiles.ts';
import { leads } from './properties.ts';

interface Split {
  members: ProcessId[];
  since: number;
  flagged: boolean;
}

/** Raft terms remembered for the across-time check; older ones are forgotten first. */
const TERMS_KEPT = 4096;

export interface CoordinatorWatch {
  /** Re-read who acts as coordinator after a change at `t`; returns immediate (term) findings. */
  update(
    t: number,
    procs: ReadonlyMap<ProcessId, { live: boolean; report: Report | null }>,
  ): Finding[];
  /** Earliest time a pending overlap becomes a finding (Infinity: none pending). */
  nextDue(overlap: number): number;
  /** Findings for every overlap due at or before `at`. */
  due(at: number, overlap: number): Finding[];
  current(): { processes: ProcessId[]; since: number; term?: number }[];
  /** The lab was paused for `d` ms: pending overlaps start that much later. */
  shift(d: number): void;
  reset(): void;
}

export function createCoordinatorWatch(profile: CheckerProfile): CoordinatorWatch {
  // Keyed by term (Raft) or a single key -1.
  const splits = new Map<number, Split>();
  const leaderOfTerm = new Map<number, ProcessId>();

  return {
    update(t, procs) {
      const acting = actingByKey(profile, procs);
      for (const key of [...splits.keys()])
        if ((acting.get(key)?.length ?? 0) < 2) splits.delete(key);
      for (const [key, members] of acting) {
        if (members.length < 2) continue;
        const s = splits.get(key);
        if (!s) splits.set(key, { members, since: t, flagged: false });
        else if (members.some((m) => !s.members.includes(m)))
          Object.assign(s, {
            members,
            flagged: profile.terms ? s.flagged : false,
            since: s.flagged ? t : s.since,
          });
        else s.members = members;
      }
      if (!profile.terms) return [];
      for (const s of splits.values()) s.flagged = true; // reported below, at once
      return termFindings(leaderOfTerm, t, acting);
    },
    nextDue(overlap) {
      // Asked three times per journaled event: no iterator when there is no split to watch.
      if (splits.size === 0) return Infinity;
      let at = Infinity;
      for (const s of splits.values()) if (!s.flagged) at = Math.min(at, s.since + overlap);
      return at;
    },
    due(at, overlap) {
      const out: Finding[] = [];
      for (const s of splits.values()) {
        if (s.flagged || s.since + overlap > at) continue;
        s.flagged = true;
        out.push({
          kind: 'safety',
          at: s.since + overlap,
          since: s.since,
          processes: [...s.members],
          detail: `split brain: ${s.members.join(' and ')} act as coordinator at once (longer than ${overlap} ms)`,
        });
      }
      return out;
    },
    current: () =>
      [...splits].map(([key, s]) => ({
        processes: [...s.members],
        since: s.since,
        ...(profile.terms ? { term: key } : {}),
      })),
    shift(d) {
      for (const s of splits.values()) s.since += d;
    },
    reset() {
      splits.clear();
      leaderOfTerm.clear();
    },
  };
}

/** Who acts as coordinator, by term (Raft) or under the single key -1, ids ascending. */
function actingByKey(
  profile: CheckerProfile,
  procs: ReadonlyMap<ProcessId, { live: boolean; report: Report | null }>,
): Map<number, ProcessId[]> {
  const acting = new Map<number, ProcessId[]>();
  for (const [id, p] of procs) {
    if (!p.live || !leads(p.report)) continue;
    const key = profile.terms ? (p.report!.term ?? -1) : -1;
    acting.set(
      key,
      [...(acting.get(key) ?? []), id].sort((a, b) => a - b),
    );
  }
  return acting;
}

/** A second leader of a term already led (remembered in `leaderOfTerm`): Election Safety broken. */
function termFindings(
  leaderOfTerm: Map<number, ProcessId>,
  t: number,
  acting: Map<number, ProcessId[]>,
): Finding[] {
  const out: Finding[] = [];
  for (const [term, ids] of acting) {
    for (const id of ids) {
      const first = leaderOfTerm.get(term);
      if (first === undefined) {
        leaderOfTerm.set(term, id);
        if (leaderOfTerm.size > TERMS_KEPT) leaderOfTerm.delete(Math.min(...leaderOfTerm.keys()));
      } else if (first !== id) {
        const sim = ids.includes(first) ? 'at once' : 'one after the other';
        out.push({
          kind: 'safety',
          at: t,
          term,
          processes: [first, id],
          detail: `two leaders in term ${term} (${first} then ${id}, ${sim})`,
        });
        leaderOfTerm.set(term, id);
      }
    }
  }
  return out;
}
