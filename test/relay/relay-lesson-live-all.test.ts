// Issue 28, "then the live run", for every shipped lesson: each step the live lab can reproduce
// (server/lab/lesson-live.ts `liveRefusal`) runs live on server bots, and its reveal is the file's
// expected value, measured from the lab's own trace. The work-schedule lesson's steps are among
// them: the job restarts with the run (POST .../job/restart's control), and its "results lost"
// is the Work panel's fold of the relayed work messages (003: 3, 0 and 24 lost). A step whose live
// value differs for a real reason is a lesson to fix (its set-up or timing), not its expected value.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lesson, LessonStep } from '@shared/lessons/lesson-schema.ts';
import { horizon, stepWorkload } from '@shared/lessons/lesson-runner.ts';
import { liveRefusal } from '../../server/lab/lesson-live.ts';
import { startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

const dir = new URL('../../lessons/', import.meta.url);
const lessons: Lesson[] = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as Lesson);
/**
 * An election's duration is a time, not a count: live it adds the relay's hops and the bots' own
 * timers to the file's transits (Figure 6-20 step 2 measured 415.8 and 455.4 ms for 410 on a loaded
 * machine), so it is held within this of the file's value; every count and id must be exact.
 */
const LIVE_TIME_SLACK_MS = 250;
/** Settle bound (15 s) plus a loaded machine's slack. */
const SLACK_MS = 25_000;

const move = (lab: string, action: string) => h.api('POST', `/api/labs/${lab}/lesson/${action}`);
const view = async (lab: string) => (await h.api('GET', `/api/labs/${lab}/lesson`)).body;

/** One step begun, run and revealed in `lab`, as the instructor's buttons do; its lesson view. */
async function runLive(lab: string, lesson: string, s: LessonStep, i: number) {
  expect((await h.api('POST', `/api/labs/${lab}/lesson`, { lesson, step: i })).status).toBe(200);
  // A step without a question goes straight to locked on start (a class predicts first).
  expect((await move(lab, 'start')).status).toBe(200);
  if (s.question) expect((await move(lab, 'lock')).status).toBe(200);
  expect((await move(lab, 'run')).status).toBe(200);
  await waitFor(
    async () => (await view(lab)).phase === 'ran',
    horizon(s, stepWorkload(s)) + SLACK_MS,
    `${lesson} step ${i} to run`,
    250,
  );
  expect((await move(lab, 'reveal')).status).toBe(200);
  return (await view(lab)) as { measured: unknown; expected: unknown; source: unknown };
}

/** The measured value as the test compares it: an election time near the file's counts as it. */
function compared(s: LessonStep, measured: unknown): unknown {
  const near =
    s.reveal.measure.kind === 'election-time' &&
    typeof measured === 'number' &&
    Math.abs(measured - Number(s.reveal.expected)) <= LIVE_TIME_SLACK_MS;
  return near ? s.reveal.expected : measured;
}

describe('every shipped step that can run live reveals its expected value live', () => {
  for (const lesson of lessons) {
    const live = lesson.steps.map((s, i) => ({ s, i })).filter(({ s }) => !liveRefusal(s));
    if (live.length === 0) continue;
    const budget = live.reduce((a, { s }) => a + 2 * (horizon(s, stepWorkload(s)) + SLACK_MS), 0);
    it(
      `${lesson.id}: steps ${live.map((l) => l.i).join(', ')} run live and reveal the file's value`,
      async () => {
        const lab = `all-${lesson.id}`;
        expect((await h.api('POST', '/api/labs', { name: lab, size: 3 })).status).toBe(201);
        const got: { step: number; measured: unknown; expected: unknown; source: unknown }[] = [];
        for (const { s, i } of live) {
          // A loaded machine (2 cores shared with other runs) can stall an ACK past the ring's
          // retransmission timer: one resent hop. A transient stall gets a second run; a set-up
          // or runner that measures wrong does so every time (the in-flight and emergent-pool
          // faults this test found did, run after run).
          let v = await runLive(lab, lesson.id, s, i);
          if (compared(s, v.measured) !== s.reveal.expected || v.source !== 'live')
            v = await runLive(lab, lesson.id, s, i);
          got.push({
            step: i,
            measured: compared(s, v.measured),
            expected: v.expected,
            source: v.source,
          });
        }
        // All steps' outcomes at once: one failing step names itself beside the others.
        expect(got).toEqual(
          live.map(({ s, i }) => ({
            step: i,
            measured: s.reveal.expected,
            expected: s.reveal.expected,
            source: 'live',
          })),
        );
      },
      budget + 10_000,
    );
  }
});
