// The properties an election must keep, as pure checks over what the processes report. The
// explorer checks them at every step, the experiment runner at the end of every run, and a live
// checker can check them on the relay's reports.
//
// Safety (003, "Requirements": "Safety: one non-failed machine is selected"; 000: "only one
// process ... in the state of the leader"): no two live processes claim to lead at the same
// moment. Term-based algorithms (Raft) only promise one leader per term (Raft §5.2, Figure 3
// "Election Safety"), so there two leaders of different terms are allowed.
//
// Agreement (002, "Requirements": "All processes (that have not crashed) eventually set
// e_i = P, where P is the non-crashed process with highest id"): once nothing is in flight, every
// live process believes in the same live coordinator, which for the id-ranked algorithms is the
// highest live id, and which itself claims to lead.
import type { AlgorithmName, ProcessId, Report } from '../algorithms/algorithm.ts';

/** The election's two, and the work schedule's three (shared/work/work-explore.ts). */
export type Property = 'safety' | 'agreement' | 'result-lost' | 'counted-twice' | 'stale-order';

export interface Violation {
  property: Property;
  /** The processes involved (the rival leaders, or those that disagree). */
  processes: ProcessId[];
  message: string;
}

export type Reports = Readonly<Record<ProcessId, Report | null | undefined>>;

/** Roles that mean "I lead", across the lab's algorithms. */
const LEADER_ROLES: readonly string[] = ['coordinator', 'leader', 'master'];

/** Algorithms whose winner must be the highest live id (the documents' rule). */
const HIGHEST_ID_WINS: readonly AlgorithmName[] = ['bully', 'ring', 'ring-active-list'];

export function leads(r: Report | null | undefined): boolean {
  return !!r && LEADER_ROLES.includes(r.role);
}

/** Two live processes that both lead at once (in the same term, where reports carry terms). */
export function checkSafety(live: readonly ProcessId[], reports: Reports): Violation | null {
  const byTerm = new Map<number | 'none', ProcessId[]>();
  for (const id of live) {
    const r = reports[id];
    if (!leads(r)) continue;
    const key = r!.term ?? 'none';
    byTerm.set(key, [...(byTerm.get(key) ?? []), id]);
  }
  for (const [term, ids] of byTerm) {
    if (ids.length < 2) continue;
    const where = term === 'none' ? '' : ` in term ${term}`;
    return {
      property: 'safety',
      processes: ids,
      message: `${ids.join(' and ')} both lead${where}`,
    };
  }
  return null;
}

/** At quiescence: one coordinator for all live processes, live and leading (and the highest id, where the algorithm says so). */
export function checkAgreement(
  algorithm: AlgorithmName,
  live: readonly ProcessId[],
  reports: Reports,
): Violation | null {
  if (live.length === 0) return null;
  const expected = HIGHEST_ID_WINS.includes(algorithm) ? Math.max(...live) : null;
  const believed = new Map<ProcessId | null, ProcessId[]>();
  for (const id of live) {
    const c = reports[id]?.coordinator ?? null;
    believed.set(c, [...(believed.get(c) ?? []), id]);
  }
  const choices = [...believed.keys()];
  if (choices.length > 1) {
    const summary = [...believed].map(([c, who]) => `${who.join(',')} → ${c ?? 'none'}`).join('; ');
    const minority = [...believed.values()].sort((a, b) => a.length - b.length)[0]!;
    return {
      property: 'agreement',
      processes: minority,
      message: `live processes disagree: ${summary}`,
    };
  }
  const c = choices[0]!;
  if (c === null)
    return {
      property: 'agreement',
      processes: [...live],
      message: 'no live process knows a coordinator',
    };
  if (!live.includes(c))
    return {
      property: 'agreement',
      processes: [...live],
      message: `all follow ${c}, which is down`,
    };
  if (expected !== null && c !== expected)
    return {
      property: 'agreement',
      processes: [...live],
      message: `all follow ${c}, but the highest live id is ${expected}`,
    };
  if (!leads(reports[c]))
    return {
      property: 'agreement',
      processes: [c],
      message: `all follow ${c}, which does not claim to lead (${reports[c]?.role ?? 'no report'})`,
    };
  return null;
}
