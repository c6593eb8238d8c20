// The relay's own coach of a hand-played worker in 003's work schedule (server/lab/hand-audit.ts):
// it cannot see her click "accept", so it reads her accepting from the status beat her tab sends
// at once, naming the task (shared/coach/hand-work.ts). A result sent in time after that is not
// marked; one never sent is marked work.result, as her tab's coach marks it.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, roundTripBound } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { answerKey, DEFAULT_JOB, makeToken, type WorkJob } from '@shared/work/work-job.ts';
import { withWork } from '@shared/work/with-work.ts';
import { HandAudit } from '../../server/lab/hand-audit.ts';
import { ManualClock } from '../helpers/manual-clock.ts';

const JOB: WorkJob = { ...DEFAULT_JOB, tasks: 4, taskMs: 400 };
const KEY = answerKey(JOB);
const T5 = makeToken(1, 5);
const UB = roundTripBound(DEFAULT_TIMING);

function audit() {
  const clock = new ManualClock();
  const rules: string[] = [];
  const a = new HandAudit({
    algorithm: withWork(getAlgorithm('bully'), JOB),
    config: {
      self: 2,
      ids: [1, 2, 3, 4, 5],
      ring: [1, 2, 3, 4, 5],
      timing: DEFAULT_TIMING,
      detector: 'none',
      initialCoordinator: 5,
    },
    seed: 1,
    clock,
    onAction: () => {},
    onDeviation: (d) => rules.push(d.rule),
    onError: (err) => {
      throw err;
    },
  });
  a.delivered(5, { type: 'WORK_HOLD', token: T5, boot: 0 });
  a.delivered(5, { type: 'WORK_ASSIGN', token: T5, task: 2, reportTo: 5 });
  return { a, clock, rules };
}

describe("the relay's coach of a hand-played worker", () => {
  it('her status beat naming the task starts its time; the result sent in time is not marked', () => {
    const { a, clock, rules } = audit();
    clock.advance(1500); // she takes her time to accept: not a departure
    a.sent(5, { type: 'WORK_STATUS', token: T5, task: 2, boot: 0 });
    clock.advance(300);
    a.sent(5, { type: 'WORK_STATUS', token: T5, task: 2, boot: 0 }); // the beat again: same task
    clock.advance(JOB.taskMs - 300 + 100);
    a.sent(5, { type: 'WORK_RESULT', token: T5, task: 2, value: KEY[2]! });
    clock.advance(3000);
    a.judge();
    a.stop();
    expect(rules).toEqual([]);
  });

  it('a result never sent after her accepting is marked work.result', () => {
    const { a, clock, rules } = audit();
    a.sent(5, { type: 'WORK_STATUS', token: T5, task: 2, boot: 0 });
    clock.advance(JOB.taskMs + UB + 600);
    a.judge();
    a.stop();
    expect(rules).toEqual(['work.result']);
  });
});
