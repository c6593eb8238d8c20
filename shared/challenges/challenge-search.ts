// A breadth-first search for a challenge's solution, fewest faults first, over a small grammar of
// faults (a directed link that loses everything from the start, a crash of an unprotected id at
// 1 s, a cut between the lower and the upper half at 0.5 s), each kind within the budget. It
// finds the solutions the tests submit (so no test hard-codes one) and tells whoever writes a
// challenge that it can be broken within its budget, and with how few faults (npm run challenge).
// Pure and bounded in runs.
import { overBudget, type Challenge, type Schedule } from './challenge-schema.ts';
import { runChallenge } from './challenge-verify.ts';

type Move = (s: Schedule) => Schedule;

function moves(c: Challenge): Move[] {
  const ids = c.setup.ids;
  const out: Move[] = [];
  for (const from of ids)
    for (const to of ids)
      if (from !== to)
        out.push((s) => ({ ...s, links: [...(s.links ?? []), { at: 0, from, to, loss: 1 }] }));
  for (const id of ids)
    if (!c.budget.protect.includes(id))
      out.push((s) => ({ ...s, crash: [...(s.crash ?? []), { id, at: 1000 }] }));
  const half = Math.ceil(ids.length / 2);
  out.push((s) => ({
    ...s,
    partition: [...(s.partition ?? []), { at: 500, groups: [ids.slice(0, half), ids.slice(half)] }],
  }));
  return out;
}

/** The first schedule (fewest faults) whose run reaches the target, or null within `maxRuns`. */
export function searchSolution(c: Challenge, seed = 1, maxRuns = 5000): Schedule | null {
  const ms = moves(c);
  let frontier: Schedule[] = [{}];
  let runs = 0;
  for (let depth = 1; depth <= 3; depth++) {
    const next: Schedule[] = [];
    for (const s of frontier)
      for (const m of ms) {
        const t = m(s);
        if (overBudget(c, t).length) continue;
        if (++runs > maxRuns) return null;
        if (runChallenge(c, seed, t).reached) return t;
        next.push(t);
      }
    frontier = next;
  }
  return null;
}
