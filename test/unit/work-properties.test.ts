// The work schedule's promises (issue 27, after 003's dynamic sharing) over many seeded random
// crash schedules in the simulator: with dynamic sharing and fencing on, "a crashed machine will
// mean missing results" and "a crashed analysis machine means all results are lost" no longer
// hold: every task completes, none is lost, none is kept twice, no stale order is obeyed. The
// schedules crash one process at a time (any role: worker, analyser, coordinator), some recover.
// Static sharing, the baseline, loses a crashed worker's share.
import { describe, expect, it } from 'vitest';
import { ALGORITHM_NAMES } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { DEFAULT_JOB, type WorkJob } from '@shared/work/work-job.ts';
import { simulateWork } from '@shared/work/work-sim.ts';
import { crashSchedule } from '../helpers/work-schedules.ts';

const SCHEDULES = 500;
const JOB: WorkJob = { ...DEFAULT_JOB, tasks: 6, taskMs: 200 };
const UNTIL = 16_000; // the job takes under 2 s of work; elections and rebuilds fit in the rest

describe('work schedule: properties over random crash schedules', () => {
  for (const name of ALGORITHM_NAMES) {
    it(`${name}: dynamic sharing with fencing completes every task, loses none, keeps none twice, obeys no stale order (${SCHEDULES} schedules)`, () => {
      for (let seed = 1; seed <= SCHEDULES; seed++) {
        const run = simulateWork(
          {
            algorithm: getAlgorithm(name),
            ids: [0, 1, 2, 3],
            seed,
            until: UNTIL,
            trace: false,
            ...crashSchedule(seed),
          },
          JOB,
        );
        const label = `${name} seed ${seed} ${JSON.stringify(crashSchedule(seed))}`;
        expect({ ...run.tasks, countedTwice: run.countedTwice }, label).toMatchObject({
          completed: JOB.tasks,
          lost: 0,
          countedTwice: 0,
          staleAccepted: 0,
          wrong: 0,
        });
      }
    });
  }

  it('static sharing: a worker that crashes mid-job loses its share (003 problem 3), dynamic sharing does not', () => {
    const spec = {
      algorithm: getAlgorithm('bully'),
      ids: [0, 1, 2, 3],
      until: UNTIL,
      trace: false,
      crashes: [{ id: 1, at: 300 }],
    };
    const stat = simulateWork(spec, { ...JOB, sharing: 'static' }).tasks;
    expect(stat.lost).toBeGreaterThan(0);
    expect(stat.completed + stat.lost).toBe(JOB.tasks);
    expect(simulateWork(spec, JOB).tasks).toMatchObject({ completed: JOB.tasks, lost: 0 });
  });

  it('static sharing: a crashed analyser loses every result (003 problem 4); dynamic sharing appoints a new one and loses none', () => {
    // 3 is the coordinator; the analyser is the highest other id, 2.
    const spec = {
      algorithm: getAlgorithm('bully'),
      ids: [0, 1, 2, 3],
      until: UNTIL,
      trace: false,
      crashes: [{ id: 2, at: 1500 }],
    };
    expect(simulateWork(spec, { ...JOB, sharing: 'static' }).tasks.completed).toBe(0);
    expect(simulateWork(spec, JOB).tasks).toMatchObject({ completed: JOB.tasks, lost: 0 });
  });
});
