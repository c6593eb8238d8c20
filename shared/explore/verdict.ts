// What an explorer run proved, in the student's words (DSLabs's lesson: say what the search
// found, not the state graph): "every schedule of 4 processes with one crash and one restart
// checked", or "not exhaustive: 1.2M states and 3,000 random schedules checked". One sentence
// for the CLI, the grader's report and the docs' figures.
import type { ExploreSetup, FaultBudget } from './world.ts';
import type { SearchResult } from './search.ts';

const WORDS = ['no', 'one', 'two', 'three', 'four', 'five'];
const count = (n: number, one: string, many: string) => `${WORDS[n] ?? n} ${n === 1 ? one : many}`;

const FAULT_NAMES: Record<keyof FaultBudget, [string, string]> = {
  crash: ['crash', 'crashes'],
  restart: ['restart with its state lost', 'restarts with their state lost'],
  drop: ['lost message', 'lost messages'],
  partition: ['partition that may heal', 'partitions that may heal'],
  slow: ['slow link', 'slow links'],
};

/** "4 processes (3 down from the start) with one crash and one restart". */
export function labWords(setup: ExploreSetup): string {
  const down = setup.crashed.length ? ` (${setup.crashed.join(', ')} down from the start)` : '';
  const faults = (Object.keys(FAULT_NAMES) as (keyof FaultBudget)[])
    .filter((k) => setup.budget[k] > 0)
    .map((k) => count(setup.budget[k], ...FAULT_NAMES[k]));
  const tail =
    faults.length === 0
      ? ' and no fault'
      : ` with ${faults.length > 1 ? `${faults.slice(0, -1).join(', ')} and ${faults[faults.length - 1]}` : faults[0]}`;
  return `${setup.ids.length} processes${down}${tail}`;
}

/** Millions and thousands as people write them: 1.2M, 3,000. */
function amount(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n.toLocaleString('en');
}

const BOUND_WORDS = {
  depth: 'the depth bound',
  states: 'the state bound',
  time: 'the time bound',
} as const;

/** What the run proved, in one sentence. */
export function provenWords(setup: ExploreSetup, r: SearchResult): string {
  if (r.exhaustive)
    return `every schedule of ${labWords(setup)} checked (${amount(r.states)} states, search complete)`;
  const bfs = `${amount(r.states)} states to depth ${r.depth}${r.bound ? ` (stopped by ${BOUND_WORDS[r.bound]})` : ''}`;
  const probes =
    r.probes.run > 0
      ? ` and ${amount(r.probes.run)} random schedules (${amount(r.probes.settled)} carried to the end of the election)`
      : '';
  const what = r.finding ? 'checked before the violation' : 'checked';
  return `not exhaustive: ${bfs}${probes} of ${labWords(setup)} ${what}`;
}
