// The work schedule's scenario scripts (test/scenarios/work-*.txt, whose whole traces
// test/unit/scenario-scripts.test.ts compares) checked for what each one is about, in the audit's
// figures (shared/work/work-audit.ts). 003's four problems of static sharing, and its question
// "What happens if two machines decide they are co-ordinators? ... Need to timestamp
// communications."
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { simulateWork, type WorkRun } from '@shared/work/work-sim.ts';
import { compileScenario, splitScenario } from '../helpers/scenario-script.ts';

function run(name: string, change: (script: string) => string = (s) => s): WorkRun {
  const text = readFileSync(new URL(`../scenarios/${name}.txt`, import.meta.url), 'utf8');
  const spec = compileScenario(change(splitScenario(text).script));
  if (!spec.work) throw new Error(`${name} has no work line`);
  return simulateWork({ ...spec, algorithm: spec.work.election }, spec.work.job);
}

const whole = { lost: 0, wrong: 0, staleAccepted: 0 };

describe('work schedule scenarios', () => {
  it('a worker crashing mid-task: its task is given to another machine, nothing is lost (003: "solving 3")', () => {
    const r = run('work-worker-crash');
    expect(r.tasks).toMatchObject({ ...whole, completed: r.tasks.total });
    expect(r.tasks.reassigned).toBeGreaterThanOrEqual(1);
    // The same crash under static sharing loses the crashed machine's share (problem 3).
    expect(
      run('work-worker-crash', (s) => s.replace('work tasks=5', 'work sharing=static tasks=5'))
        .tasks.lost,
    ).toBeGreaterThan(0);
  });

  it('the analyser crashing: a new one is appointed and keeps every result (003: "solving 4")', () => {
    const r = run('work-analyser-crash');
    expect(r.tasks).toMatchObject({ ...whole, completed: r.tasks.total });
    expect(r.countedTwice).toBe(0);
    expect(
      run('work-analyser-crash', (s) => s.replace('work tasks=6', 'work sharing=static tasks=6'))
        .tasks.completed,
    ).toBe(0);
  });

  for (const algorithm of ['bully', 'raft']) {
    it(`the coordinator crashing mid-job (${algorithm}): the new one rebuilds the table from what the others hold, nothing lost (003: "to solve 1")`, () => {
      const r = run(`work-coordinator-crash-${algorithm}`);
      expect(r.tasks).toMatchObject({ ...whole, completed: r.tasks.total });
      // Results finished before the crash are held, not computed again.
      expect(r.tasks.duplicates).toBe(0);
    });
  }

  it('a slow worker: dynamic sharing finishes sooner than static, which waits for the slow share (003: "solving 2")', () => {
    const dynamic = run('work-slow-worker').tasks;
    const stat = run('work-slow-worker', (s) =>
      s
        .replace('work tasks=6', 'work sharing=static tasks=6')
        .replace('advance 2500ms', 'advance 6s'),
    ).tasks;
    expect(dynamic).toMatchObject({ ...whole, completed: 6 });
    expect(stat.completed).toBe(6);
    expect(dynamic.makespanMs!).toBeLessThan(stat.makespanMs!);
  });

  it('a crashed worker recovering: its new boot tells the coordinator it came back empty; its task is handed out again', () => {
    const r = run('work-recovery');
    expect(r.tasks).toMatchObject({ ...whole, completed: r.tasks.total });
    expect(r.tasks.reassigned).toBeGreaterThanOrEqual(1);
  });

  it('a Bully partition with fencing off: after the heal, stale orders are obeyed and counted', () => {
    const r = run('work-bully-partition-fencing-off');
    expect(r.tasks.staleAccepted).toBeGreaterThan(0);
    expect(r.tasks.staleRefused).toBe(0);
  });

  it('the same partition with fencing on: stale orders are refused, none obeyed, nothing lost', () => {
    const r = run('work-bully-partition-fencing-on');
    expect(r.tasks.staleRefused).toBeGreaterThan(0);
    expect(r.tasks).toMatchObject({ ...whole, completed: r.tasks.total });
  });
});
