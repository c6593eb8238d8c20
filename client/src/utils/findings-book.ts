// What the dashboard knows about the live checker (shared/analysis/checker.ts): findings by kind, the
// most recent ones with their text, the split brain in force and the election's deadline. Two
// sources meet here: `finding` events in the trace (at once, but only from when the page began
// watching) and the relay's summary in GET /stats (exact, once a second). The summary replaces
// what the trace added; a trace finding the summary already holds is not counted twice.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import {
  FINDING_KINDS,
  RECENT_FINDINGS,
  WORK_FINDING_KINDS,
  type CheckerBounds,
  type CheckerSummary,
  type Finding,
  type FindingKind,
} from '@shared/protocol/finding.ts';

export interface SplitBrain {
  processes: ProcessId[];
  /** When it began (null when only the reports are known, as in replay). */
  since: number | null;
  term?: number;
}

const KEYS_KEPT = 4 * RECENT_FINDINGS;

export class FindingsBook {
  counts: Record<FindingKind, number> = zero();
  /** Oldest first, at most RECENT_FINDINGS. */
  recent: Finding[] = [];
  splitBrain: SplitBrain[] = [];
  spuriousElections = 0;
  quiet: boolean | null = null;
  election: CheckerSummary['election'] | null = null;
  bounds: CheckerBounds | null = null;
  /** True once a summary from the relay arrived (counts are then exact, not just since the page opened). */
  exact = false;
  private keys = new Set<string>();

  /** The relay's summary: authoritative for everything it carries. */
  applySummary(s: CheckerSummary): void {
    this.counts = { ...zero(), ...s.counts };
    this.recent = s.recent.slice(-RECENT_FINDINGS);
    this.splitBrain = s.splitBrain.map((b) => ({ ...b, processes: [...b.processes] }));
    this.spuriousElections = s.spuriousElections;
    this.quiet = s.quiet;
    this.election = s.election;
    this.bounds = s.bounds;
    this.exact = true;
    this.keys = new Set(this.recent.map(keyOf));
  }

  /** A `finding` trace event. A safety finding shows its split brain at once (the next summary says whether it lasts). */
  applyFinding(f: Finding): void {
    const key = keyOf(f);
    if (this.keys.has(key)) return;
    this.keys.add(key);
    if (this.keys.size > KEYS_KEPT) this.keys = new Set(this.recent.map(keyOf).concat(key));
    this.counts[f.kind]++;
    this.recent.push(f);
    if (this.recent.length > RECENT_FINDINGS)
      this.recent.splice(0, this.recent.length - RECENT_FINDINGS);
    if (
      f.kind === 'safety' &&
      !this.splitBrain.some((b) => sameMembers(b.processes, f.processes) && b.term === f.term)
    ) {
      this.splitBrain.push({
        processes: [...f.processes],
        since: f.since ?? f.at,
        ...(f.term === undefined ? {} : { term: f.term }),
      });
    }
  }

  /** The lab was reset: the relay's checker starts from nothing too. */
  reset(): void {
    Object.assign(this, new FindingsBook());
  }

  total(): number {
    return FINDING_KINDS.reduce((s, k) => s + this.counts[k], 0);
  }

  /** Every process in a split brain right now. */
  rivals(): Set<ProcessId> {
    return new Set(this.splitBrain.flatMap((b) => b.processes));
  }
}

function zero(): Record<FindingKind, number> {
  return {
    safety: 0,
    agreement: 0,
    liveness: 0,
    spurious: 0,
    'result-lost': 0,
    'counted-twice': 0,
    'stale-order': 0,
  };
}

function keyOf(f: Finding): string {
  return `${f.kind}|${f.at}|${f.detail}`;
}

function sameMembers(a: readonly ProcessId[], b: readonly ProcessId[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/** The kinds the panel lists: the work schedule's only once one is found (a lab without a workload never has them). */
export function shownKinds(counts: Readonly<Record<FindingKind, number>>): FindingKind[] {
  return FINDING_KINDS.filter((k) => !WORK_FINDING_KINDS.includes(k) || counts[k] > 0);
}

/** How each kind is named and marked in the panel (a shape as well as a colour). */
export const FINDING_LOOK: Record<
  FindingKind,
  {
    label: string;
    plural: string;
    shape: 'diamond' | 'triangle' | 'square' | 'circle';
    color: string;
    explain: string;
  }
> = {
  safety: {
    label: 'split brain',
    plural: 'split brains',
    shape: 'diamond',
    color: '#D55E00',
    explain: 'two processes acting as coordinator at once (Raft: in one term)',
  },
  agreement: {
    label: 'disagreement',
    plural: 'disagreements',
    shape: 'triangle',
    color: '#CC79A7',
    explain: 'the network is quiet and a live process follows the wrong coordinator',
  },
  liveness: {
    label: 'late election',
    plural: 'late elections',
    shape: 'square',
    color: '#E69F00',
    explain: 'an election still running past the bound its analysis gives',
  },
  spurious: {
    label: 'spurious election',
    plural: 'spurious elections',
    shape: 'circle',
    color: '#0072B2',
    explain: 'an election started while the coordinator was alive',
  },
  'result-lost': {
    label: 'result lost',
    plural: 'results lost',
    shape: 'square',
    color: '#009E73',
    explain: 'a task result no live process holds or can still hand in (work schedule)',
  },
  'counted-twice': {
    label: 'result counted twice',
    plural: 'results counted twice',
    shape: 'diamond',
    color: '#56B4E9',
    explain: 'a process says it keeps one task result twice (its claim, relayed)',
  },
  'stale-order': {
    label: 'stale order obeyed',
    plural: 'stale orders obeyed',
    shape: 'triangle',
    color: '#000000',
    explain: "a process obeyed a coordinator's order older than a token it had been given",
  },
};

/** "12.3 s" on the lab's clock, for the findings list. */
export function atText(ms: number): string {
  return ms >= 100_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Who is in a split brain when nothing but the reports is known (replay): live processes leading at once, per term where there are terms. */
export function rivalLeaders(
  processes: Iterable<{
    id: ProcessId;
    status: string;
    report: { role: string; term?: number } | null;
  }>,
  leading: ReadonlySet<string>,
): SplitBrain[] {
  const byTerm = new Map<number, ProcessId[]>();
  for (const p of processes) {
    if (p.status !== 'up' || !p.report || !leading.has(p.report.role)) continue;
    const key = p.report.term ?? -1;
    byTerm.set(key, [...(byTerm.get(key) ?? []), p.id]);
  }
  const out: SplitBrain[] = [];
  for (const [term, ids] of byTerm)
    if (ids.length > 1)
      out.push({
        processes: ids.sort((a, b) => a - b),
        since: null,
        ...(term >= 0 ? { term } : {}),
      });
  return out;
}

/** "split brain: 3 and 7 lead at once" (with terms for Raft), or null. */
export function splitBrainText(splitBrain: readonly SplitBrain[]): string | null {
  if (!splitBrain.length) return null;
  const groups = splitBrain.map(
    (b) => b.processes.join(' and ') + (b.term === undefined ? '' : ` (term ${b.term})`),
  );
  return `split brain: ${groups.join('; ')} lead at once`;
}
