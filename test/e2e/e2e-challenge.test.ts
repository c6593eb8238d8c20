// Issue 28, item 6 in headless Chromium: the instructor opens a "break it" challenge from her
// panel; a student on a phone builds a schedule of faults in the challenge page's editor, runs it
// in her private lab (the simulator in a Web Worker), sees the target reached on the space-time
// diagram and submits; the relay re-runs it and accepts it; a tampered submission (a set-up
// made easier) is refused with its reason; the projector lists who broke it, fewest faults first;
// the instructor replays the accepted run.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Challenge, Schedule } from '@shared/challenges/challenge-schema.ts';
import type { Relay } from '../../server/relay.ts';
import { screenshot, screenshotOf, toDocs, watchErrors } from '../helpers/browser.ts';
import { buildSchedule, challengeLab } from '../helpers/challenge-page.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'challenge-token';
const LAB = 'breakit';
const ID = 'ring-leaderless';

let relay: Relay;
let base: string;
let dataDir: string;
let api: Api;
let browser: Browser;
let challenge: Challenge;
let solution: Schedule;

beforeAll(async () => {
  ({ relay, base, dataDir, api, browser } = await startServedLab('election-lab-challenge-', TOKEN));
  ({ challenge, solution } = await challengeLab(
    api,
    { name: LAB, algorithm: 'ring', size: 6 },
    ID,
  ));
  expect(solution.links?.length).toBeGreaterThan(0);
}, 180_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser });
});

describe('a break-it challenge in class', () => {
  it('is opened, solved in a student page and accepted; a tampered submission is refused; the projector lists it', async () => {
    const desk = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const instructor = await desk.newPage();
    const errors = watchErrors(instructor);
    await instructor.goto(`${base}/lab/${LAB}/instructor?token=${TOKEN}`);
    await instructor
      .getByTestId('challenge-pick')
      .locator(`option[value="${ID}"]`)
      .waitFor({ state: 'attached', timeout: 15_000 });
    await instructor.getByTestId('challenge-pick').selectOption(ID);
    await instructor.getByTestId('challenge-open').click();
    await instructor.getByTestId('challenge-counts').waitFor({ timeout: 10_000 });

    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
    });
    const student = await phone.newPage();
    errors.push(...watchErrors(student));
    await student.goto(`${base}/lab/${LAB}/challenge`);
    await student.getByTestId('challenge-title').waitFor({ timeout: 15_000 });
    await buildSchedule(student, solution);
    const faults = (solution.links?.length ?? 0) + (solution.crash?.length ?? 0);
    expect(await student.getByTestId('budget-links').textContent()).toContain(
      `links ${solution.links!.length}/${challenge.budget.links}`,
    );
    await student.getByTestId('challenge-run').click();
    const result = student.getByTestId('challenge-result');
    await expect
      .poll(() => result.textContent(), { timeout: 30_000 })
      .toMatch(/Broken at 1\d\.\d\d s/);
    expect(await result.textContent()).toContain('No live process acted as coordinator');
    await student.getByTestId('challenge-name').fill('Ada');
    await student.getByTestId('challenge-submit').click();
    await expect
      .poll(() => student.getByTestId('challenge-verdict').textContent(), { timeout: 15_000 })
      .toContain(`Accepted: the relay's run broke it with ${faults} faults; you are #1`);
    expect(
      await student.evaluate<number>('document.documentElement.scrollWidth'),
    ).toBeLessThanOrEqual(390);
    toDocs(await screenshot(student, 'challenge-student-390'), 'challenge-student-390');

    // A forged success: the same schedule "run" on a ring whose links are ten times faster.
    const tampered = await student.evaluate(
      async ([lab, body]) => {
        const res = await fetch(`/api/labs/${lab}/challenge/submissions`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        return {
          status: res.status,
          body: (await res.json()) as { code: string; message: string },
        };
      },
      [
        LAB,
        {
          name: 'Mallory',
          submission: {
            challenge: ID,
            seed: 1,
            setup: { ...challenge.setup, link: { delay: 10 } },
            schedule: solution,
          },
        },
      ] as const,
    );
    expect(tampered.status).toBe(422);
    expect(tampered.body).toMatchObject({ code: 'SUBMISSION_REFUSED' });
    expect(tampered.body.message).toContain("set-up differs from the challenge's in link");

    // A second student at a desk runs a schedule that does not break it: no submit.
    const desktop = await desk.newPage();
    errors.push(...watchErrors(desktop));
    await desktop.goto(`${base}/lab/${LAB}/challenge`);
    await desktop.getByTestId('challenge-title').waitFor({ timeout: 15_000 });
    await buildSchedule(desktop, { links: solution.links });
    await desktop.getByTestId('challenge-run').click();
    await expect
      .poll(() => desktop.getByTestId('challenge-result').textContent(), { timeout: 30_000 })
      .toContain('Not broken yet');
    await desktop.getByTestId('challenge-name').fill('Barbara');
    expect(await desktop.getByTestId('challenge-submit').isDisabled()).toBe(true);
    toDocs(await screenshot(desktop, 'challenge-student-1400'), 'challenge-student-1400');

    // The projector: Ada with her faults; Mallory nowhere.
    for (const [context, size] of [
      [desk, 1400],
      [phone, 390],
    ] as const) {
      const projector = await context.newPage();
      errors.push(...watchErrors(projector));
      await projector.goto(`${base}/lab/${LAB}/projector`);
      const first = projector.getByTestId('board-1');
      await first.waitFor({ timeout: 15_000 });
      expect(await first.textContent()).toMatch(new RegExp(`Ada\\s*claimed\\s*${faults} faults`));
      expect(await projector.getByTestId('challenge-board').textContent()).not.toContain('Mallory');
      toDocs(
        await screenshot(projector, `challenge-projector-${size}`),
        `challenge-projector-${size}`,
      );
      await projector.close();
    }

    // The instructor's card: the board with a replay link per entry, at both widths.
    const card = (page: Page) => page.locator('.challenge-panel');
    await card(instructor).getByTestId('board-1').waitFor({ timeout: 15_000 });
    toDocs(
      await screenshotOf(card(instructor), 'challenge-instructor-1400'),
      'challenge-instructor-1400',
    );
    const phoneDesk = await phone.newPage();
    errors.push(...watchErrors(phoneDesk));
    await phoneDesk.goto(`${base}/lab/${LAB}/instructor?token=${TOKEN}`);
    await card(phoneDesk).getByTestId('board-1').waitFor({ timeout: 15_000 });
    toDocs(
      await screenshotOf(card(phoneDesk), 'challenge-instructor-390'),
      'challenge-instructor-390',
    );
    await phoneDesk.close();

    // The instructor replays Ada's run as the relay re-ran it.
    await instructor.getByTestId('board-replay-1').click({ timeout: 15_000 });
    await expect
      .poll(() => instructor.locator('h1').textContent(), { timeout: 15_000 })
      .toContain('challenge entry #1');
    await instructor.getByTestId('replay-summary').waitFor({ timeout: 15_000 });
    expect(errors).toEqual([]);
  }, 150_000);
});
