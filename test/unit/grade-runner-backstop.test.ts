// The runner's backstop in the explorer (issue 26, "No false accusation": the explorer's own work
// is not her runaway). A worker whose explorer outlasts its budget on a loaded machine but keeps
// telling the runner it is alive is not stopped; one that goes silent is, once the backstop is past.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runGrade, type SpawnWorker } from '@shared/grader/grade-runner.ts';
import type { GradeProgress } from '@shared/grader/grade-worker-body.ts';
import type { CaseResult } from '@shared/grader/case-result.ts';

const explorePass: CaseResult = {
  id: 'explore',
  group: 'explore',
  title: 'explorer',
  pass: true,
  figures: [],
  reason: null,
  fault: null,
  divergence: null,
  trace: null,
  ms: 0,
};

/** A fake grader worker: loads, skips to the explorer, then says `alive` every second for `aliveFor` ms, then (if `answers`) finishes. */
function fakeWorker(
  aliveFor: number,
  answers: boolean,
): { spawn: SpawnWorker; killed: () => boolean } {
  let terminated = false;
  const spawn: SpawnWorker = (events) => {
    const say = (m: GradeProgress) => !terminated && events.message(m);
    setTimeout(() => say({ kind: 'ready' }), 0);
    return {
      post() {
        say({ kind: 'loading' });
        say({ kind: 'loaded' });
        say({ kind: 'start', id: 'explore' });
        for (let t = 1000; t <= aliveFor; t += 1000) setTimeout(() => say({ kind: 'alive' }), t);
        if (answers)
          setTimeout(() => {
            say({ kind: 'case', result: explorePass });
            say({ kind: 'done' });
          }, aliveFor + 500);
      },
      terminate() {
        terminated = true;
      },
    };
  };
  return { spawn, killed: () => terminated };
}

const options = (spawn: SpawnWorker) => ({
  spawn,
  algorithm: 'bully' as const,
  source: 'export default {}',
  subject: 'x.js',
  exploreMs: 1000,
  stepMs: 1000,
  memoryMb: 256,
  clock: () => Date.now(),
});

describe('the grade runner in the explorer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('does not stop an explorer that outlasts its budget while its worker says it is alive (60 s at a 1 s budget)', async () => {
    const w = fakeWorker(60_000, true);
    const done = runGrade(options(w.spawn));
    await vi.advanceTimersByTimeAsync(70_000);
    const r = await done;
    expect(r.cases.find((c) => c.id === 'explore')).toMatchObject({ pass: true });
  });

  it('stops a worker that goes silent in the explorer, once the budget and the backstop are past', async () => {
    const w = fakeWorker(5_000, false);
    const told: CaseResult[] = [];
    void runGrade({ ...options(w.spawn), onCase: (c) => told.push(c) });
    await vi.advanceTimersByTimeAsync(5_000 + 2 * 1000 + 10_000 - 100);
    expect(w.killed()).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(w.killed()).toBe(true);
    expect(told).toEqual([
      expect.objectContaining({
        id: 'explore',
        pass: false,
        reason: expect.stringMatching(/the sandbox stopped answering in the explorer/),
      }),
    ]);
  });
});
