// Random but reproducible crash schedules for the work schedule's property test.
import { createRng } from '@shared/sim/rng.ts';
import type { SimulationSpec } from '@shared/sim/simulator.ts';

const LAST_FAULT = 4000;

/** One or two crashes of random processes at random times, one down at a time; most recover. */
export function crashSchedule(
  seed: number,
): Pick<SimulationSpec, 'crashes' | 'recoveries' | 'link'> {
  const rng = createRng(seed * 7919 + 5);
  const crashes: { id: number; at: number }[] = [];
  const recoveries: { id: number; at: number }[] = [];
  let t = Math.floor(rng() * 2000);
  const faults = 1 + Math.floor(rng() * 2);
  for (let i = 0; i < faults && t < LAST_FAULT; i++) {
    const id = Math.floor(rng() * 4);
    crashes.push({ id, at: t });
    if (i === faults - 1 && rng() < 0.3) break; // the last one may stay down
    const back = t + 200 + Math.floor(rng() * 2000);
    recoveries.push({ id, at: back });
    t = back + Math.floor(rng() * 1000);
  }
  return {
    crashes,
    recoveries,
    link: { delay: 20 + Math.floor(rng() * 80), jitter: Math.floor(rng() * 40) },
  };
}
