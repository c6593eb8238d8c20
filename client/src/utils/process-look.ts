// How one process is drawn and described: shape by kind (human, bot, external), fill by role,
// crossed out when crashed, dashed when nobody holds the id, a violet outline and a pause sign
// (two bars) when the instructor paused it, a ring in its partition group's
// colour, a halo when it disagrees. Every visual cue has a text twin for tables and screen readers.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import { GROUP_COLOURS, OKABE_ITO, STATUS_COLOURS } from './message-style.ts';
import { COORDINATOR_ROLES } from './space-time-layout.ts';
import type { Agreement } from './who-disagrees.ts';

export type NodeShape = 'circle' | 'square' | 'diamond';

export interface ProcessLook {
  shape: NodeShape;
  fill: string;
  stroke: string;
  dashed: boolean;
  crossed: boolean;
  /** Paused by the instructor (SIGSTOP): drawn with a pause sign; it keeps its role and beliefs. */
  paused: boolean;
  /** Partition group ring colour, when the lab is partitioned. */
  ring: string | null;
  halo: 'disagrees' | 'stale' | null;
  /** One of two or more processes acting as coordinator at once (the checker's split brain). */
  rival: boolean;
  role: string;
  /** Its role says it is the coordinator (coordinator, leader, master). */
  leads: boolean;
  /** e.g. "up", "crashed", "absent", "up, cut off (group 2)", "paused (3 held)". */
  status: string;
  kind: string;
  /** The coordinator it believes in, as text. */
  believes: string;
}

export const ROLE_FILL = {
  coordinator: OKABE_ITO.blue,
  electing: OKABE_ITO.orange,
  /** The emergent algorithm's slaves: standing by to take over (a pale tint of the coordinator's blue). */
  pool: '#c6e4f7',
  other: '#ffffff',
  crashed: '#d9d9d9',
  absent: '#ffffff',
} as const;

/** Roles drawn in the pool tint: ready to stand for election (the emergent algorithm's slaves). */
export const POOL_ROLES: ReadonlySet<string> = new Set(['slave']);

export function processLook(
  p: ProcessInfo,
  agreement: Agreement,
  mainGroup: number | null,
  rivals: ReadonlySet<ProcessId> = NO_RIVALS,
): ProcessLook {
  const shape: NodeShape =
    p.kind === 'bot' ? 'square' : p.kind === 'external' ? 'diamond' : 'circle';
  const kind = p.kind ?? (p.status === 'absent' ? 'nobody' : 'unknown');
  const ring = p.group === null ? null : GROUP_COLOURS[p.group % GROUP_COLOURS.length]!;
  if (p.status === 'absent' || p.status === 'crashed')
    return { ...STOPPED_LOOK[p.status], shape, ring, kind };
  const role = p.report?.role ?? 'starting';
  const leads = COORDINATOR_ROLES.has(role);
  const paused = p.paused === true;
  return {
    shape,
    fill: roleFill(role, leads, p.report?.electing === true),
    stroke: paused ? STATUS_COLOURS.paused : '#1b1b1b',
    dashed: false,
    crossed: false,
    paused,
    ring,
    halo: agreement.disagree.has(p.id) ? 'disagrees' : agreement.stale.has(p.id) ? 'stale' : null,
    rival: rivals.has(p.id),
    role,
    leads,
    status: upStatus(p, mainGroup),
    kind,
    believes: p.report ? String(p.report.coordinator ?? 'none') : '?',
  };
}

/** A process that runs nothing (nobody holds the id, or it crashed): no role, no belief, no halo. */
const STOPPED_LOOK: Record<'absent' | 'crashed', Omit<ProcessLook, 'shape' | 'ring' | 'kind'>> = {
  absent: {
    fill: ROLE_FILL.absent,
    stroke: STATUS_COLOURS.absent,
    dashed: true,
    crossed: false,
    paused: false,
    halo: null,
    rival: false,
    role: '-',
    leads: false,
    status: 'absent',
    believes: '-',
  },
  crashed: {
    fill: ROLE_FILL.crashed,
    stroke: STATUS_COLOURS.crashed,
    dashed: false,
    crossed: true,
    paused: false,
    halo: null,
    rival: false,
    role: 'crashed',
    leads: false,
    status: 'crashed',
    believes: '-',
  },
};

function roleFill(role: string, leads: boolean, electing: boolean): string {
  if (leads) return ROLE_FILL.coordinator;
  if (electing) return ROLE_FILL.electing;
  return POOL_ROLES.has(role) ? ROLE_FILL.pool : ROLE_FILL.other;
}

/** "up" or "paused (3 held)", with its partition group and whether that group is cut off. */
function upStatus(p: ProcessInfo, mainGroup: number | null): string {
  const word = p.paused === true ? `paused${p.held ? ` (${p.held} held)` : ''}` : 'up';
  if (p.group === null) return word;
  const cutOff = mainGroup !== null && p.group !== mainGroup;
  return cutOff ? `${word}, cut off (group ${p.group + 1})` : `${word} (group ${p.group + 1})`;
}

const NO_RIVALS: ReadonlySet<ProcessId> = new Set();

/** The group most processes are in: the others are "cut off". null when not partitioned. */
export function mainGroup(
  processes: Iterable<{ group: number | null; status: string }>,
): number | null {
  const counts = new Map<number, number>();
  for (const p of processes)
    if (p.group !== null && p.status !== 'absent')
      counts.set(p.group, (counts.get(p.group) ?? 0) + 1);
  let best: number | null = null;
  let bestN = 0;
  for (const [g, n] of counts)
    if (n > bestN || (n === bestN && best !== null && g < best)) [best, bestN] = [g, n];
  return best;
}

export interface Belief {
  coordinator: ProcessId | null;
  count: number;
  /** The process believed in is not up (crashed or gone): the headline says so. */
  down?: boolean;
}

/**
 * How many up processes believe in each coordinator: the dashboard's headline is the first. A
 * live coordinator comes before one that is down, and any before nobody (issue 24: a projector
 * said "coordinator none" while the first students already followed the new one, and named a
 * crashed coordinator as if it led); most believers first within each.
 */
export function beliefs(processes: Iterable<ProcessInfo>): Belief[] {
  const list = [...processes];
  const up = new Set(list.filter((p) => p.status === 'up').map((p) => p.id));
  const counts = new Map<ProcessId | null, number>();
  for (const p of list)
    if (p.status === 'up' && p.report)
      counts.set(p.report.coordinator, (counts.get(p.report.coordinator) ?? 0) + 1);
  const rank = (b: Belief) => (b.coordinator === null ? 2 : b.down ? 1 : 0);
  return [...counts]
    .map(([coordinator, count]) => ({
      coordinator,
      count,
      ...(coordinator !== null && !up.has(coordinator) ? { down: true } : {}),
    }))
    .sort(
      (a, b) =>
        rank(a) - rank(b) || b.count - a.count || (b.coordinator ?? -1) - (a.coordinator ?? -1),
    );
}
