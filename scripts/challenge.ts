// npm run challenge -- [FILE.json ...]: checks "break it" challenge files as the relay would load
// them, and for each says whether no faults already break it (a challenge to mend), the fewest
// faults the search finds within its budget, and how long the relay takes to verify that
// schedule. Exit 1 when a file is refused, is broken without faults, or the search finds nothing
// (docs/RUN_A_CLASS.md, "Writing a challenge").
import { readFileSync } from 'node:fs';
import { parseChallenge, totalFaults } from '@shared/challenges/challenge-schema.ts';
import { searchSolution } from '@shared/challenges/challenge-search.ts';
import { runChallenge, verifySubmission } from '@shared/challenges/challenge-verify.ts';
import { checkFilesCli } from './cli.ts';

const USAGE = `Usage: npm run challenge -- [FILE.json ...]

Checks challenge files against the challenge schema (docs/schema.json, Challenge), runs each with
no faults (it must not break), searches for the fewest faults that break it within its budget,
and times the relay's verification of that schedule (median of 20 runs). Without files: every
challenges/*.json. Exits 1 when a file is refused, breaks without faults, or the search finds
no schedule within the budget.

  --help    this text`;

const RUNS = 20;

function check(path: string): { lines: string[]; ok: boolean } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const why = err instanceof Error ? err.message : 'unreadable';
    return { lines: [`${path}: refused: not readable JSON (${why})`], ok: false };
  }
  const parsed = parseChallenge(raw);
  if (!parsed.ok)
    return { lines: [`${path}: refused`, ...parsed.errors.map((e) => `  ${e}`)], ok: false };
  const c = parsed.challenge;
  const head = `${path}: ${c.id}`;
  if (runChallenge(c, 1, {}).reached)
    return { lines: [`${head}: BROKEN WITHOUT FAULTS (seed 1): nothing to do`], ok: false };
  const found = searchSolution(c);
  if (!found)
    return { lines: [`${head}: the search found no schedule within the budget`], ok: false };
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    verifySubmission(c, { challenge: c.id, seed: 1, setup: c.setup, schedule: found });
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return {
    lines: [
      `${head}: broken with ${totalFaults(found)} fault(s): ${JSON.stringify(found)}`,
      `  the relay verifies it in ${times[RUNS >> 1]!.toFixed(1)} ms (median of ${RUNS})`,
    ],
    ok: true,
  };
}

process.exitCode = checkFilesCli(
  'challenge',
  USAGE,
  new URL('../challenges/', import.meta.url),
  check,
  process.argv.slice(2),
);
