// Issue 28, the live run's guards: a lab that does not agree on one coordinator within the settle
// bound (15 s) runs the step in the simulator and says "simulated"; a live run never takes an id
// away from a person (a student's tab holds it); and a removed lab lets go of its lesson (its room
// and its file writer), so a relay that makes and removes labs holds nothing for them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lesson } from '@shared/lessons/lesson-schema.ts';
import {
  joinAs,
  labTrace,
  sleep,
  startRelay,
  waitFor,
  type Harness,
} from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

const shipped = (id: string): Lesson =>
  JSON.parse(readFileSync(new URL(`../../lessons/${id}.json`, import.meta.url), 'utf8')) as Lesson;
/** Figure 6-20's first step (8 ids, 7 crashes, 6 wins), with a test's horizon. */
const figure620 = (): Lesson => {
  const l = shipped('bully-figure-6-20');
  const s = l.steps[0]!;
  return { ...l, id: 'fallback', steps: [{ ...s, setup: { ...s.setup, until: 4000 } }] };
};
const move = (lab: string, action: string) => h.api('POST', `/api/labs/${lab}/lesson/${action}`);
const view = async (lab: string) => (await h.api('GET', `/api/labs/${lab}/lesson`)).body;
const holder = (lab: string, id: number) =>
  h.relay.labs.get(lab)?.processes.get(id)?.conn?.transport ?? null;

async function openAndRun(lab: string): Promise<Record<string, unknown>> {
  expect((await h.api('POST', `/api/labs/${lab}/lesson`, { lesson: figure620() })).status).toBe(
    200,
  );
  expect((await move(lab, 'start')).status).toBe(200);
  expect((await move(lab, 'lock')).status).toBe(200);
  const ran = await move(lab, 'run');
  expect(ran.status).toBe(200);
  return ran.body;
}

describe('the settle bound', () => {
  it('a lab that never agrees on a coordinator runs the step in the simulator after 15 s, and says so', async () => {
    const lab = 'unsettled';
    expect((await h.api('POST', '/api/labs', { name: lab, size: 8 })).status).toBe(201);
    // A person's tab on 7 that joined and never reports: the lab cannot agree, so it never settles.
    const { c } = await joinAs(h, 'ws', lab, 7);
    try {
      const running = await openAndRun(lab);
      expect(running).toMatchObject({ phase: 'locked', running: { live: true } });
      // Not before the bound: the lab is given its 15 s to settle (bots joining, electing).
      await sleep(5000);
      expect((await view(lab)).phase).toBe('locked');
      await waitFor(async () => (await view(lab)).phase === 'ran', 40_000, 'the fallback', 250);
      expect((await move(lab, 'reveal')).status).toBe(200);
      // The simulator's value for the step as its file means it: 000 Figure 6-20, 6 wins.
      expect(await view(lab)).toMatchObject({ measured: 6, expected: 6, source: 'simulated' });
      const trace = await labTrace(h, lab);
      expect(trace.some((e) => e.kind === 'note' && /did not settle/.test(e.text))).toBe(true);
      expect(trace.some((e) => e.kind === 'note' && /runs live from here/.test(e.text))).toBe(
        false,
      );
      // Her id stayed hers throughout.
      expect(holder(lab, 7)).toBe('ws');
    } finally {
      await c.close();
    }
  }, 60_000);
});

describe('a live run never removes a person', () => {
  it('a person on an id the step has none for: the step runs in the simulator, and the lab keeps her and its ids', async () => {
    const lab = 'held';
    expect((await h.api('POST', '/api/labs', { name: lab, size: 10 })).status).toBe(201);
    // Figure 6-20 has ids 0..7: a live set-up would have to take 9 away from her.
    const { c } = await joinAs(h, 'socketio', lab, 9);
    try {
      const ran = await openAndRun(lab);
      expect(ran).toMatchObject({ phase: 'ran', measured: 6, source: 'simulated' });
      expect(ran.running).toBeUndefined();
      const config = h.relay.labs.get(lab)!.config;
      expect(config.ids).toContain(9);
      expect(holder(lab, 9)).toBe('socketio');
      expect(c.received.some((r) => r.frame.type === 'left')).toBe(false);
    } finally {
      await c.close();
    }
  });
});

describe('a removed lab lets go of its lesson', () => {
  it('its room and file writer are dropped, its lesson file is gone, and a new lab of that name has no lesson', async () => {
    const before = h.relay.lessons.writersHeld;
    for (let i = 0; i < 5; i++) {
      const lab = `gone-${i}`;
      expect((await h.api('POST', '/api/labs', { name: lab, size: 3 })).status).toBe(201);
      expect((await h.api('POST', `/api/labs/${lab}/lesson`, { lesson: figure620() })).status).toBe(
        200,
      );
      expect((await move(lab, 'start')).status).toBe(200);
      expect(h.relay.lessons.writersHeld).toBe(before + 1);
      expect((await h.api('DELETE', `/api/labs/${lab}`)).status).toBe(204);
      expect(h.relay.lessons.writersHeld).toBe(before);
      // The last save cannot write the file back after the removal deleted it.
      await sleep(50);
      expect(existsSync(join(h.dataDir, `${lab}.lesson.json`))).toBe(false);
    }
    expect((await h.api('POST', '/api/labs', { name: 'gone-0', size: 3 })).status).toBe(201);
    expect((await h.api('GET', '/api/labs/gone-0/lesson')).body).toBeNull();
  });
});
