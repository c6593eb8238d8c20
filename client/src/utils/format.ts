// Small text formatters shared by the views.
import type { Report } from '@shared/algorithms/algorithm.ts';

/** "[1, 4, 7, …] (12)" — long lists shortened, the count kept. */
export function formatList(list: readonly number[] | undefined, max = 8): string {
  if (!list) return '';
  if (list.length <= max) return `[${list.join(', ')}]`;
  return `[${list.slice(0, max).join(', ')}, …] (${list.length})`;
}

/** The algorithm-specific part of a report in one line: successor, term, detail figures. */
export function formatDetail(r: Report | null): string {
  if (!r) return '';
  const parts: string[] = [];
  if (r.successor !== undefined) parts.push(`next ${r.successor ?? '–'}`);
  if (r.term !== undefined) parts.push(`term ${r.term}`);
  for (const [k, v] of Object.entries(r.detail ?? {}))
    parts.push(`${k} ${v === null ? '–' : String(v)}`);
  return parts.join(', ');
}

export function formatMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.round(ms)} ms`;
}
