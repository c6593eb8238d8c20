// simulate's plain warnings (issue 14): agreeing on a crashed coordinator is called out.
import { describe, expect, it } from 'vitest';
import { parseCli, warningsFor } from '../scripts/simulate.ts';

describe('simulate warnings', () => {
  it('says plainly when processes believe in a crashed coordinator', () => {
    const { options } = parseCli(['--crash', '7', '--nodes', '8']);
    const w = warningsFor(options, { 0: 7, 1: 7, 2: 6 });
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/believe 7 is coordinator, but 7 is crashed/);
    expect(warningsFor(options, { 0: 6, 1: 6 })).toEqual([]);
  });
});
