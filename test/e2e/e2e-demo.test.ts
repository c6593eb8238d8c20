// Issue 28 item 7 in headless Chromium, as a newcomer meets `npm start`: the demo lab's dashboard
// shows a coordinator within seconds, the home page lists the shipped lessons, a lesson's link
// opens the instructor page with it picked, the panel says the demo runs and how to stop it, and
// one click on "Use lesson" starts the lesson and hands the lab over (the notice goes).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDemoLab } from '../../server/demo-lab.ts';
import type { Relay } from '../../server/relay.ts';
import { screenshot, screenshotOf, toDocs, watchErrors } from '../helpers/browser.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'demo-token';
let relay: Relay;
let base: string;
let dataDir: string;
let api: Api;
let browser: Browser;

beforeAll(async () => {
  ({ relay, base, dataDir, api, browser } = await startServedLab('election-lab-demo-', TOKEN));
  expect((await openDemoLab(relay)).bots).toHaveLength(8);
}, 180_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser });
});

describe('a first look that moves', () => {
  it('the demo dashboard shows an election, the home page lists lessons, and one click in the panel starts one and stops the demo', async () => {
    const desk = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await desk.newPage();
    const errors = watchErrors(page);
    const opened = performance.now();
    await page.goto(`${base}/lab/demo`);
    await expect
      .poll(() => page.getByTestId('consensus').textContent(), { timeout: 15_000 })
      .toMatch(/coordinator 7 \(8 of 8\)/);
    console.log(
      `demo dashboard: coordinator 7 shown ${Math.round(performance.now() - opened)} ms after the page was opened`,
    );

    await page.goto(`${base}/`);
    const list = page.getByTestId('lesson-list');
    await list.locator('li').first().waitFor({ timeout: 15_000 });
    const catalog = (await (await api('GET', '/api/lessons')).json()) as {
      lessons: { id: string }[];
    };
    expect(await list.locator('li').count()).toBe(catalog.lessons.length);
    toDocs(
      await screenshotOf(page.locator('section', { has: list }), 'home-lessons-1400'),
      'home-lessons-1400',
    );

    // The token arrives once through the URL the server prints; the page keeps it for this tab.
    await page.goto(`${base}/lab/demo/instructor?token=${TOKEN}`);
    await page.getByTestId('demo-notice').waitFor({ timeout: 15_000 });
    await page.goto(`${base}/`);
    await page.getByTestId('lesson-open-bully-figure-6-20').click({ timeout: 15_000 });
    await page.getByTestId('demo-notice').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('demo-notice').textContent()).toMatch(
      /crashes the coordinator every 30 s.*Any control you use on this page stops it/s,
    );
    await expect
      .poll(() => page.getByTestId('lesson-pick').inputValue(), { timeout: 15_000 })
      .toBe('bully-figure-6-20');
    toDocs(
      await screenshotOf(page.getByTestId('demo-notice'), 'demo-notice-1400'),
      'demo-notice-1400',
    );
    toDocs(await screenshot(page, 'demo-instructor-1400'), 'demo-instructor-1400');

    await page.getByTestId('lesson-begin').click();
    await expect
      .poll(() => page.getByTestId('lesson-phase').textContent(), { timeout: 10_000 })
      .toBe('ready');
    await page.getByTestId('demo-notice').waitFor({ state: 'detached', timeout: 10_000 });
    expect(relay.demo.status('demo')).toEqual({ running: false });
    expect(errors).toEqual([]);
  }, 120_000);

  it('at 390 px the lesson list and the demo notice fit the phone, and "Stop the demo" stops it', async () => {
    relay.demo.start(relay.labs.get('demo')!);
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
    });
    const page = await phone.newPage();
    const errors = watchErrors(page);
    await page.goto(`${base}/`);
    const list = page.getByTestId('lesson-list');
    await list.locator('li').first().waitFor({ timeout: 15_000 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    toDocs(
      await screenshotOf(page.locator('section', { has: list }), 'home-lessons-390'),
      'home-lessons-390',
    );
    await page.goto(`${base}/lab/demo/instructor?token=${TOKEN}`);
    const notice = page.getByTestId('demo-notice');
    await notice.waitFor({ timeout: 15_000 });
    toDocs(await screenshotOf(notice, 'demo-notice-390'), 'demo-notice-390');
    await page.getByTestId('demo-stop').click();
    await notice.waitFor({ state: 'detached', timeout: 10_000 });
    expect(relay.demo.status('demo')).toEqual({ running: false });
    expect(errors).toEqual([]);
  }, 120_000);
});
