// The small labs the explorer's reductions are held to plain search on (test/unit/explore-por,
// explore-symmetry): each searched to exhaustion, recording every world's fingerprint, every
// violation met in any world and the reports of every quiet world.
import { checkAgreement, checkSafety } from '@shared/analysis/properties.ts';
import { search, type SearchResult } from '@shared/explore/search.ts';
import { live, reportsOf } from '@shared/explore/world.ts';
import { parseExploreCli, type ExploreCli } from '../../scripts/explore.ts';

export const clock = () => performance.now();

/** A lab as the CLI makes it, searched to exhaustion with no property stopping it. */
export function lab(
  algorithm: string,
  nodes: number,
  faults: string,
  more: string[] = [],
): ExploreCli {
  const args = ['--algorithm', algorithm, '--nodes', String(nodes), '--depth', '200'];
  args.push('--states', '400000', '--seconds', '120', '--probes', '0', '--check', '', ...more);
  if (faults) args.push('--faults', faults);
  return parseExploreCli(args);
}

export interface Visit {
  result: SearchResult;
  keys: Set<string>;
  /** Every violation met in any world (not only the first), and the reports of every quiet world. */
  violations: Set<string>;
  quiet: Set<string>;
}

export function visit(cli: ExploreCli, por: boolean): Visit {
  const { setup } = cli;
  const keys = new Set<string>();
  const violations = new Set<string>();
  const quiet = new Set<string>();
  const result = search(
    setup,
    {
      ...cli.limits,
      por,
      onWorld: (w, lo, hi) => {
        keys.add(`${lo}:${hi}`);
        const up = live(setup, w);
        const reports = reportsOf(setup, w);
        const s = checkSafety(up, reports);
        if (s) violations.add(s.message);
        if (w.pending.length > 0) return;
        quiet.add(JSON.stringify(reports));
        const a = checkAgreement(setup.algorithm.name, up, reports);
        if (a) violations.add(a.message);
      },
    },
    clock,
  );
  return { result, keys, violations, quiet };
}

// Every small lab plain search exhausts within a unit test's time: the five algorithms at N = 3
// with no fault and with one crash, Bully at N = 3 with a crash and a restart, and Bully
// with no fault and with one crash at N = 4 (the rings and Raft at N = 4 do not end within a
// unit test's time: bench:core compares them).
export const LABS: [string, number, string][] = [
  ['bully', 3, ''],
  ['bully', 3, 'crash'],
  ['bully', 3, 'crash,restart'],
  ['ring', 3, ''],
  ['ring', 3, 'crash'],
  ['ring-active-list', 3, ''],
  ['ring-active-list', 3, 'crash'],
  ['emergent', 3, ''],
  ['emergent', 3, 'crash'],
  ['raft', 3, ''],
  ['bully', 4, ''],
  ['bully', 4, 'crash'],
];
