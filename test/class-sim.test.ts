// The class simulator (shared/coach/class-sim.ts, `npm run class`): simulated students, each a
// hand runner with its coach, follow the coach's hints in virtual time on the lab's network model.
import { describe, expect, it } from 'vitest';
import { runClass } from '@shared/coach/class-sim.ts';

describe('class simulator', () => {
  it('a class of 6 playing Bully by hand at time scale 100 agrees on the start election and after the coordinator crashes, the same for the same seed', () => {
    const spec = { algorithm: 'bully', students: 6, think: [1, 4], mistakes: 0, scale: 100, seed: 3 } as const;
    const r = runClass(spec);
    expect(r.ub).toBe(21_000);
    expect(r.coordinatorWait).toBe(53_000);
    expect(r.start.coordinator).toBe(5);
    expect(r.crash?.coordinator).toBe(4);
    expect(r.start.stuck).toEqual([]);
    expect(r.crash?.stuck).toEqual([]);
    expect(r.students.every((s) => s.clicks > 0)).toBe(true);
    expect(runClass(spec)).toEqual(r);
  });
});
