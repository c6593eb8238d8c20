// The lab's algorithm state in one line, readable from the back of the room: how many processes
// hold each role (the emergent algorithm's master, candidates, slaves and idles; Raft's leader,
// candidates and followers), the emergent slave pool's size as the master reports it, and
// Raft's term. Built from the processes' reports alone; pure.
import type { AlgorithmName, ProcessId, Report } from '@shared/algorithms/algorithm.ts';

export type RoleTone = 'lead' | 'electing' | 'pool' | 'other';

export interface RoleCount {
  role: string;
  count: number;
  /** Ids holding it, listed when few (at most `LIST_IDS`), else empty. */
  ids: ProcessId[];
  tone: RoleTone;
}

export interface GlanceFact {
  label: string;
  value: string;
  /** A longer explanation (tooltip and screen readers). */
  note?: string;
}

export interface Glance {
  roles: RoleCount[];
  facts: GlanceFact[];
}

export const LIST_IDS = 6;

/** Roles in the order the panel shows them, per algorithm (unknown roles follow). */
const ROLE_ORDER: Record<AlgorithmName, string[]> = {
  bully: ['coordinator', 'electing', 'waiting', 'follower'],
  ring: ['coordinator', 'initiator', 'participant', 'follower'],
  'ring-active-list': ['coordinator', 'participant', 'follower'],
  emergent: ['master', 'candidate', 'slave', 'idle'],
  raft: ['leader', 'candidate', 'follower'],
};

const LEAD = new Set(['coordinator', 'leader', 'master']);

interface Proc {
  id: ProcessId;
  status: string;
  report: Report | null;
}

export function algorithmGlance(algorithm: AlgorithmName, processes: Iterable<Proc>): Glance {
  const up = [...processes].filter((p) => p.status === 'up');
  const byRole = new Map<string, ProcessId[]>();
  for (const p of up) {
    const role = p.report?.role ?? 'starting';
    byRole.set(role, [...(byRole.get(role) ?? []), p.id]);
  }
  const order = [...ROLE_ORDER[algorithm]];
  for (const r of byRole.keys()) if (!order.includes(r)) order.push(r);
  const roles = order.map((role): RoleCount => {
    const ids = byRole.get(role) ?? [];
    return {
      role,
      count: ids.length,
      ids: ids.length <= LIST_IDS ? ids : [],
      tone: toneOf(role, algorithm),
    };
  });
  // Always show the algorithm's own roles (a zero is news too); drop empty unknown ones.
  const shown = roles.filter((r) => r.count > 0 || ROLE_ORDER[algorithm].includes(r.role));
  const facts =
    algorithm === 'emergent' ? emergentFacts(up) : algorithm === 'raft' ? raftFacts(up) : [];
  return { roles: shown, facts };
}

function toneOf(role: string, algorithm: AlgorithmName): RoleTone {
  if (LEAD.has(role)) return 'lead';
  if (
    role === 'electing' ||
    role === 'candidate' ||
    role === 'initiator' ||
    role === 'participant' ||
    role === 'waiting'
  )
    return 'electing';
  if (algorithm === 'emergent' && role === 'slave') return 'pool';
  return 'other';
}

/** The slave pool's size as the master sees it (003: k slaves stand ready); what the slaves see when it differs. */
function emergentFacts(up: Proc[]): GlanceFact[] {
  const facts: GlanceFact[] = [];
  const sizeOf = (p: Proc) => {
    const v = p.report?.detail?.['poolSize'];
    return typeof v === 'number' ? v : null;
  };
  const masters = up.filter((p) => p.report?.role === 'master');
  const master = masters.length === 1 ? masters[0]! : null;
  const views = up
    .filter((p) => p.report?.role === 'slave' || p.report?.role === 'candidate')
    .map(sizeOf)
    .filter((v): v is number => v !== null);
  const masterView = master ? sizeOf(master) : null;
  if (masterView !== null)
    facts.push({
      label: 'pool size',
      value: String(masterView),
      note: `slave pool size reported by master ${master!.id}`,
    });
  else if (views.length)
    facts.push({
      label: 'pool size',
      value: String(Math.max(...views)),
      note: 'no single master: the largest pool a slave reports',
    });
  if (views.length) {
    const lo = Math.min(...views);
    const hi = Math.max(...views);
    if (lo !== hi || (masterView !== null && lo !== masterView))
      facts.push({
        label: 'slaves see',
        value: lo === hi ? String(lo) : `${lo}–${hi}`,
        note: 'pool sizes the slaves report',
      });
  }
  facts.push({
    label: 'master',
    value: masters.length ? masters.map((m) => m.id).join(', ') : 'none',
  });
  return facts;
}

/** Raft's current term: the leader's, else the highest any live process is in; the spread when they differ. */
function raftFacts(up: Proc[]): GlanceFact[] {
  const terms = up.map((p) => p.report?.term).filter((t): t is number => typeof t === 'number');
  const leaders = up.filter((p) => p.report?.role === 'leader');
  const facts: GlanceFact[] = [];
  const top = terms.length ? Math.max(...terms) : null;
  const leaderTerm = leaders.length === 1 ? (leaders[0]!.report!.term ?? null) : null;
  facts.push({
    label: 'term',
    value: top === null ? '–' : String(leaderTerm ?? top),
    note:
      leaderTerm !== null ? `leader ${leaders[0]!.id}'s term` : 'highest term of any live process',
  });
  if (terms.length) {
    const lo = Math.min(...terms);
    if (lo !== top)
      facts.push({
        label: 'terms in use',
        value: `${lo}–${top}`,
        note: 'processes that have not heard of the latest term yet',
      });
  }
  facts.push({
    label: 'leader',
    value: leaders.length
      ? leaders.map((l) => `${l.id} (term ${l.report!.term ?? '?'})`).join(', ')
      : 'none',
  });
  return facts;
}
