// The checker's agreement judgement, once the fabric is quiet. The verdict is properties.ts's
// `checkAgreement` (shared with the explorer and the experiments); this adds who is wrong,
// measured against the coordinator the algorithm must end with, for the finding.
import type { AlgorithmName, ProcessId, Report } from '../algorithms/algorithm.ts';
import type { CheckerProfile } from './checker-profiles.ts';
import { checkAgreement, leads } from './properties.ts';

interface Disagreement {
  /** Every live process whose coordinator is not the expected one. */
  processes: ProcessId[];
  detail: string;
}

/** `live` ascending; `reports` for every live id. Null when they agree. */
export function judgeAgreement(
  algorithm: AlgorithmName,
  expects: CheckerProfile['expects'],
  live: readonly ProcessId[],
  reports: Readonly<Record<ProcessId, Report | null>>,
): Disagreement | null {
  const v = checkAgreement(algorithm, live, reports);
  if (!v) return null;
  const believed = (id: ProcessId) => reports[id]?.coordinator ?? null;
  let expected: ProcessId | null;
  let why: string;
  if (expects === 'highest') {
    expected = live[live.length - 1]!;
    why = 'the highest live id';
  } else {
    // Any one live coordinator: the leading one most live processes follow (ties: highest id).
    const acting = live.filter((id) => believed(id) === id && leads(reports[id]));
    const followers = (c: ProcessId) => live.filter((id) => believed(id) === c).length;
    acting.sort((a, b) => followers(b) - followers(a) || b - a);
    expected = acting[0] ?? null;
    why = expected === null ? 'no live process leads' : 'the leader most processes follow';
  }
  const wrong = live.filter((id) => believed(id) !== expected);
  return {
    processes: wrong.length > 0 ? wrong : v.processes,
    detail: `${v.message}; expected ${expected ?? 'a coordinator'} (${why})`,
  };
}
