// The work schedule's properties for the explorer (issue 27; 003's work schedule;
// docs/WORK_SCHEDULE.md, "Every schedule"): checked in every world the search reaches, from the
// processes' states and the messages in flight, as `ExploreSetup.invariant`.
// - result-lost: a result some live process held, or was being sent, in the world before is held
//   and sent by none now (every holder crashed, or the last copy was dropped);
// - counted-twice: an analyser keeps more results than it has tasks (they are keyed by task);
// - stale-order: a process obeyed an order stamped older than the newest token it had seen.
import type { ProcessId } from '../algorithms/algorithm.ts';
import type { Property, Violation } from '../analysis/properties.ts';
import type { ExploreSetup, World } from '../explore/world.ts';
import { separated } from '../sim/network.ts';
import { entries } from './task-results.ts';
import type { WorkState } from './work-state.ts';

export const WORK_PROPERTIES = ['result-lost', 'counted-twice', 'stale-order'] as const;

/** The invariant the explorer calls with the world before (null at the start) and the world now. */
export function workInvariant(
  setup: ExploreSetup,
): (prev: World | null, w: World, which: readonly Property[]) => Violation | null {
  return (prev, w, which) => {
    for (let i = 0; i < w.procs.length; i++) {
      const s = w.procs[i]!.state as WorkState | null;
      if (!s) continue;
      const id = setup.ids[i]!;
      const kept = entries(s.store).length;
      if (which.includes('counted-twice') && s.storeSize !== kept)
        return {
          property: 'counted-twice',
          processes: [id],
          message: `${id} counts ${s.storeSize} results kept for ${kept} tasks`,
        };
      if (which.includes('stale-order') && s.c.staleAccepted > 0)
        return {
          property: 'stale-order',
          processes: [id],
          message: `${id} obeyed an order stamped older than the newest token it had seen (${s.newest}; fencing ${s.job.fencing ? 'on' : 'off'})`,
        };
    }
    if (!prev || !which.includes('result-lost')) return null;
    const now = holders(setup, w);
    const before = holders(setup, prev);
    const gone = [...before.keys()].filter((t) => !now.has(t)).sort((a, b) => a - b);
    if (gone.length === 0) return null;
    return {
      property: 'result-lost',
      processes: [...new Set(gone.flatMap((t) => before.get(t) ?? []))].sort((a, b) => a - b),
      message: `the result of ${gone.length === 1 ? 'task' : 'tasks'} ${gone.join(', ')} is held by no live process any more, nor on its way to one`,
    };
  };
}

/** Task -> the live processes holding its result (computed, recorded or kept), and those it is on its way to. */
function holders(setup: ExploreSetup, w: World): Map<number, ProcessId[]> {
  const out = new Map<number, ProcessId[]>();
  const add = (t: number, id: ProcessId) => {
    const l = out.get(t);
    if (!l) out.set(t, [id]);
    else if (!l.includes(id)) l.push(id);
  };
  const up = new Set<ProcessId>();
  w.procs.forEach((p, i) => {
    const s = p.state as WorkState | null;
    if (!s) return;
    const id = setup.ids[i]!;
    up.add(id);
    for (const t of Object.keys(s.held)) add(Number(t), id);
    for (const [t] of entries(s.store)) add(t, id);
    if (s.office) for (const [t] of entries(s.office.done)) add(t, id);
  });
  for (const p of w.pending) {
    if (p.kind !== 'deliver' || !up.has(p.to) || separated(w.groups, p.from, p.to)) continue;
    const m = p.message as Record<string, unknown>;
    if (m['type'] === 'WORK_RESULT' || m['type'] === 'WORK_STORE') add(m['task'] as number, p.to);
    else if (m['type'] === 'WORK_HELD')
      for (const [t] of m['held'] as [number, number][]) add(t, p.to);
  }
  return out;
}
