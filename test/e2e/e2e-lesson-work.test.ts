// Issue 28's eighth lesson in headless Chromium: the work schedule (003), run live. Three students
// answer over raw WebSockets and leave (their answers stay; their ids go to server bots), the
// instructor locks, runs and reveals from her panel: the live lab takes the step's set-up, the
// job restarts with the run, worker 2 crashes at 1 s, and the panel and the projector show 3
// lost results, measured live from the relayed work messages (server/lab/live-script.ts).
// Screenshots of the instructor's card and the projector at 1,400 and 390 px (UPDATE_SCREENSHOTS=1).
import type { Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Relay } from '../../server/relay.ts';
import { openPage, screenshot, screenshotOf, toDocs } from '../helpers/browser.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'lesson-work-token';
const LAB = 'work-class';

let relay: Relay;
let base: string;
let dataDir: string;
let api: Api;
let browser: Browser;

beforeAll(async () => {
  ({ relay, base, dataDir, api, browser } = await startServedLab(
    'election-lab-lesson-work-',
    TOKEN,
  ));
  expect((await api('POST', '/api/labs', { name: LAB, size: 6 })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser });
});

/** A student over a raw WebSocket: joins as `id`, answers step 0 with `value`, resolves on `answered`. */
function student(id: number, value: number): Promise<WebSocket> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/ws`);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`student ${id}: no answer`)), 10_000);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'join', lab: LAB, id, kind: 'external' })));
    ws.on('message', (data) => {
      const f = JSON.parse(String(data)) as { type: string };
      if (f.type === 'joined')
        ws.send(JSON.stringify({ type: 'answer', step: 0, value, ref: 'a' }));
      if (f.type === 'answered') {
        clearTimeout(timer);
        // She leaves: her id is free at once for the live run's bots, her answer stays.
        ws.send(JSON.stringify({ type: 'leave' }));
        resolve(ws);
      }
      if (f.type === 'error') reject(new Error(`student ${id}: ${String(data)}`));
    });
  });
}

const phase = (page: Page) => page.getByTestId('lesson-phase').textContent();

describe('the work-schedule lesson (003) in class', () => {
  it('three students answer, the instructor runs and reveals: 3 results lost, measured live, on her panel and the projector', async () => {
    const desk = await browser.newContext();
    const errors: string[][] = [];
    const instructor = await openPage(
      desk,
      `${base}/lab/${LAB}/instructor?token=${TOKEN}`,
      1400,
      errors,
    );
    await instructor
      .getByTestId('lesson-pick')
      .locator('option', { hasText: 'work schedule' })
      .waitFor({ state: 'attached', timeout: 15_000 });
    await instructor.getByTestId('lesson-pick').selectOption('work-schedule-003');
    await instructor.getByTestId('lesson-begin').click();
    await expect.poll(() => phase(instructor), { timeout: 10_000 }).toBe('ready');
    await instructor.getByTestId('lesson-start').click();
    await expect.poll(() => phase(instructor), { timeout: 10_000 }).toBe('open');
    const sockets = await Promise.all([student(0, 3), student(1, 3), student(2, 5)]);

    // The live run: settling (bots join, elect), then the job's horizon (about 20 s).
    for (const [action, next, ms] of [
      ['lock', 'locked', 10_000],
      ['run', 'ran', 90_000],
      ['reveal', 'revealed', 10_000],
    ] as const) {
      await instructor.getByTestId(`lesson-${action}`).click();
      await expect.poll(() => phase(instructor), { timeout: ms, interval: 500 }).toBe(next);
    }
    await expect
      .poll(() => instructor.getByTestId('lesson-measured').textContent(), { timeout: 10_000 })
      .toContain('Measured: 3');
    expect(await instructor.getByTestId('lesson-source').textContent()).toBe(
      'measured in the live lab',
    );
    const card = instructor.locator('.lesson-panel');
    toDocs(await screenshotOf(card, 'lesson-work-instructor-1400'), 'lesson-work-instructor-1400');

    const phone = await openPage(desk, `${base}/lab/${LAB}/instructor?token=${TOKEN}`, 390, errors);
    await expect
      .poll(() => phone.getByTestId('lesson-measured').textContent(), { timeout: 15_000 })
      .toContain('Measured: 3');
    toDocs(
      await screenshotOf(phone.locator('.lesson-panel'), 'lesson-work-instructor-390'),
      'lesson-work-instructor-390',
    );

    for (const width of [1400, 390]) {
      const projector = await openPage(desk, `${base}/lab/${LAB}/projector`, width, errors);
      const measured = projector.getByTestId('board-measured');
      await expect.poll(() => measured.textContent(), { timeout: 15_000 }).toContain('3');
      expect(await measured.textContent()).not.toContain('simulated');
      // The two answers given, 3 (two students) marked as the measured value.
      const bar = projector.locator('[data-testid="answer-bar"][data-value="3"]');
      expect(await bar.locator('.count').textContent()).toBe('2');
      expect(await bar.getByTestId('measured-mark').count()).toBe(1);
      toDocs(
        await screenshot(projector, `lesson-work-projector-${width}`),
        `lesson-work-projector-${width}`,
      );
    }
    // The lab keeps the step's workload: the Workload card's "Restart the job", at both widths.
    for (const [page, width] of [
      [instructor, 1400],
      [phone, 390],
    ] as const) {
      const form = page.getByTestId('workload-form');
      await form.getByTestId('work-restart').waitFor({ timeout: 15_000 });
      toDocs(await screenshotOf(form, `work-restart-${width}`), `work-restart-${width}`);
    }
    await instructor.getByTestId('work-restart').click();
    await expect
      .poll(() => instructor.getByTestId('feedback').textContent(), { timeout: 10_000 })
      .toContain('Restarted the job from a fresh task list');
    expect(errors.flat()).toEqual([]);
    for (const ws of sockets) ws.close();
    await desk.close();
  }, 180_000);
});
