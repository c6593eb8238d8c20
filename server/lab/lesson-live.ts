// A lesson step run in the live lab (issue 28: "then the live run"): the step is a script the
// live lab runs (live-script.ts: its set-up on the lab, bots on free ids, its faults at their
// times) and the reveal is measured from the lab's own trace of the run. A step the live lab
// cannot reproduce, or a lab that does not settle, runs in the simulator instead, and its reveal
// says "simulated".
import { measureRun, runStep } from '@shared/lessons/lesson-runner.ts';
import type { LessonStep } from '@shared/lessons/lesson-schema.ts';
import type { Lab } from './lab.ts';
import type { LiveRunner, StepRun } from './lesson-room.ts';
import { scriptRefusal, type LiveScripts } from './live-script.ts';

/**
 * Why the live lab cannot run this step as its file means it, or null: its set-up's (every
 * reveal, the work schedule's figures too, is measured from the lab's trace).
 */
export function liveRefusal(step: LessonStep): string | null {
  return scriptRefusal(step);
}

export class LessonLiveRuns implements LiveRunner {
  constructor(private readonly scripts: LiveScripts) {}

  start(lab: Lab, step: LessonStep, done: (run: StepRun) => void): { untilMs: number } | null {
    if (liveRefusal(step)) return null;
    const started = this.scripts.start(lab, step, 'lesson', (end) => {
      // Cancelled: the lesson ended or moved on, and wants no result.
      if (end.kind === 'cancelled') return;
      if (end.kind !== 'ran') return done(simulated(step));
      done({
        measured: end.facts ? measureRun(step, end.facts) : null,
        trace: end.trace,
        source: 'live',
      });
    });
    return 'refused' in started ? null : started;
  }

  cancel(lab: Lab): void {
    if (this.scripts.busy(lab) === 'lesson') this.scripts.cancel(lab);
  }
}

function simulated(step: LessonStep): StepRun {
  const o = runStep(step);
  return { measured: o.measured, trace: o.trace(), source: 'simulated' };
}
