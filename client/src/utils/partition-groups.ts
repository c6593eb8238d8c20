// The partition builder's model: groups of ids the instructor moves processes between (by drag
// and drop or by keyboard), and checks before it goes to the relay. Pure.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import { allGroups } from '@shared/sim/network.ts';

/** Groups to start editing from: the current partition (unlisted ids in a last group), else everyone in one. */
export function initialGroups(
  ids: readonly ProcessId[],
  partition: readonly (readonly ProcessId[])[] | null,
): ProcessId[][] {
  if (!partition) return [[...ids], []];
  return allGroups(ids, partition);
}

/** Moves `id` to group `target` (a new group when target is past the end), keeping other order. */
export function moveToGroup(
  groups: readonly (readonly ProcessId[])[],
  id: ProcessId,
  target: number,
): ProcessId[][] {
  const out = groups.map((g) => g.filter((x) => x !== id));
  while (out.length <= target) out.push([]);
  out[target]!.push(id);
  out[target]!.sort((a, b) => a - b);
  return out;
}

/** What is sent: non-empty groups only. A partition needs at least two; null means "nothing to cut". */
export function partitionBody(groups: readonly (readonly ProcessId[])[]): ProcessId[][] | null {
  const nonEmpty = groups.filter((g) => g.length > 0).map((g) => [...g]);
  return nonEmpty.length >= 2 ? nonEmpty : null;
}

/** Splits the ring order into `k` contiguous arcs: a quick partition to demonstrate with. */
export function splitInto(order: readonly ProcessId[], k: number): ProcessId[][] {
  const n = order.length;
  const parts = Math.max(1, Math.min(k, n));
  return Array.from({ length: parts }, (_, i) =>
    order
      .slice(Math.floor((i * n) / parts), Math.floor(((i + 1) * n) / parts))
      .slice()
      .sort((a, b) => a - b),
  );
}

/** Parses "3, 1 2" into ids; every id must be in the lab and appear once (a ring order). */
export function parseRing(
  text: string,
  ids: readonly ProcessId[],
): { ok: true; ring: ProcessId[] } | { ok: false; message: string } {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  const ring: ProcessId[] = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p)) return { ok: false, message: `“${p}” is not an id` };
    ring.push(Number(p));
  }
  const known = new Set(ids);
  const seen = new Set<ProcessId>();
  for (const id of ring) {
    if (!known.has(id)) return { ok: false, message: `${id} is not in the lab` };
    if (seen.has(id)) return { ok: false, message: `${id} appears twice` };
    seen.add(id);
  }
  const missing = ids.filter((id) => !seen.has(id));
  if (missing.length)
    return {
      ok: false,
      message: `missing: ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ', …' : ''}`,
    };
  return { ok: true, ring };
}

/** Fisher-Yates with the caller's random source (the page passes Math.random; tests a seeded one). */
export function shuffled<T>(list: readonly T[], random: () => number): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
