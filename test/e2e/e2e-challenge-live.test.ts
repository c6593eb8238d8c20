// Issue 28, item 6 in headless Chromium: "The instructor can replay any submitted schedule in the
// live lab", and the board's names. A student joins the lab from a phone (her process page, her
// name), follows the challenge card to the challenge page, breaks Bully's split-brain challenge in
// her private lab and submits under a typed nickname: the board shows the name she joined with,
// verified; a submission without a session shows its typed name, claimed. The instructor clicks
// "Run in live lab" on the verified entry: the lab takes the challenge's set-up with server bots,
// plays her faults, and the board says, live, that the relay's own checker saw two coordinators.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Challenge, Schedule } from '@shared/challenges/challenge-schema.ts';
import type { Relay } from '../../server/relay.ts';
import { screenshot, screenshotOf, toDocs, watchErrors } from '../helpers/browser.ts';
import { buildSchedule, challengeLab } from '../helpers/challenge-page.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'replay-live-token';
const LAB = 'replaylive';
const ID = 'bully-split-brain';

let relay: Relay;
let base: string;
let dataDir: string;
let api: Api;
let browser: Browser;
let challenge: Challenge;
let solution: Schedule;

beforeAll(async () => {
  ({ relay, base, dataDir, api, browser } = await startServedLab('election-lab-replay-', TOKEN));
  ({ challenge, solution } = await challengeLab(
    api,
    { name: LAB, algorithm: 'bully', size: 6 },
    ID,
  ));
  expect((await api('POST', `/api/labs/${LAB}/challenge`, { challenge: ID })).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser });
});

const card = (page: Page) => page.locator('.challenge-panel');

describe('replaying an accepted challenge entry in the live lab', () => {
  it('a joined student is verified, a typed name claimed; the instructor runs the entry live and the board says it reproduced', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
    });
    const student = await phone.newPage();
    const errors = watchErrors(student);
    await student.goto(`${base}/lab/${LAB}/process/new?name=Ines`);
    await student.getByTestId('challenge-card-link').click({ timeout: 20_000 });
    await student.getByTestId('challenge-title').waitFor({ timeout: 15_000 });
    await buildSchedule(student, solution);
    await student.getByTestId('challenge-run').click();
    await expect
      .poll(() => student.getByTestId('challenge-result').textContent(), { timeout: 30_000 })
      .toMatch(/Broken at/);
    expect(await student.getByTestId('challenge-name-note').textContent()).toContain(
      'verified by the relay',
    );
    await student.getByTestId('challenge-name').fill('Bully Breaker');
    await student.getByTestId('challenge-submit').click();
    await expect
      .poll(() => student.getByTestId('challenge-verdict').textContent(), { timeout: 15_000 })
      .toContain('Accepted under the name you joined the lab with');
    toDocs(await screenshot(student, 'challenge-verified-390'), 'challenge-verified-390');

    // Someone with no lab session: the name typed, shown as claimed.
    const claimed = await api('POST', `/api/labs/${LAB}/challenge/submissions`, {
      name: 'Ada',
      submission: { challenge: ID, seed: 1, setup: challenge.setup, schedule: solution },
    });
    expect(claimed.status).toBe(200);

    const desk = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const instructor = await desk.newPage();
    errors.push(...watchErrors(instructor));
    await instructor.goto(`${base}/lab/${LAB}/instructor?token=${TOKEN}`);
    const first = card(instructor).getByTestId('board-1');
    await first.waitFor({ timeout: 15_000 });
    expect(await first.textContent()).toMatch(/Ines\s*verified/);
    expect(await first.textContent()).not.toContain('Bully Breaker');
    expect(await card(instructor).getByTestId('board-2').textContent()).toMatch(/Ada\s*claimed/);

    await instructor.getByTestId('board-live-1').click();
    const live = card(instructor).getByTestId('challenge-live');
    await expect.poll(() => live.textContent(), { timeout: 15_000 }).toMatch(/Live lab: /);
    expect(await live.textContent()).toContain('#1 Ines (verified)');
    // One replay at a time: the buttons wait for its end.
    expect(await instructor.getByTestId('board-live-2').isDisabled()).toBe(true);
    await expect
      .poll(() => live.textContent(), { timeout: 60_000, interval: 500 })
      .toMatch(/Live run (reproduced|did not reproduce) the target/);
    const text = (await live.textContent()) ?? '';
    expect(text).toContain('Live run reproduced the target');
    expect(text).toMatch(/Live checker: (\d+ \w+, )*\d+ safety/);
    expect(text).toContain('timing in a live lab differs');
    toDocs(await screenshotOf(card(instructor), 'challenge-live-1400'), 'challenge-live-1400');

    // The projector shows the same verdict; the instructor's card at phone width.
    const projector = await desk.newPage();
    errors.push(...watchErrors(projector));
    await projector.goto(`${base}/lab/${LAB}/projector`);
    await expect
      .poll(() => projector.getByTestId('challenge-live').textContent(), { timeout: 15_000 })
      .toContain('Live run reproduced the target');
    toDocs(
      await screenshot(projector, 'challenge-live-projector-1400'),
      'challenge-live-projector-1400',
    );
    const phoneDesk = await phone.newPage();
    errors.push(...watchErrors(phoneDesk));
    await phoneDesk.goto(`${base}/lab/${LAB}/instructor?token=${TOKEN}`);
    await card(phoneDesk).getByTestId('challenge-live').waitFor({ timeout: 15_000 });
    expect(
      await phoneDesk.evaluate<number>('document.documentElement.scrollWidth'),
    ).toBeLessThanOrEqual(390);
    toDocs(await screenshotOf(card(phoneDesk), 'challenge-live-390'), 'challenge-live-390');
    expect(errors).toEqual([]);
  }, 180_000);
});
