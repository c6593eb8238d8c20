// End to end in headless Chromium against the real relay serving the built app: the instructor
// pauses one process from the panel (SIGSTOP, issue 29) and resumes it. The dashboard marks it
// paused (badge, header count), the student tab that was paused says so, and the Resume button
// replaces Pause. Screenshots at 1,400 and 390 px go to test/screenshots/ (docs/screenshots/ with
// UPDATE_SCREENSHOTS=1).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Relay } from '../../server/relay.ts';
import { screenshot, toDocs, openPage } from '../helpers/browser.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'e2e-token';
const LAB = 'pausing';

let relay: Relay;
let base: string;
let dataDir: string;
let api: Api;
let browser: Browser;
let context: BrowserContext;
const errors: string[][] = [];

const open = (path: string, width: number): Promise<Page> =>
  openPage(context, base + path, width, errors);

beforeAll(async () => {
  ({ relay, base, dataDir, api, browser, context } = await startServedLab(
    'election-lab-e2e-pause-',
    TOKEN,
  ));
  const created = await api('POST', '/api/labs', {
    name: LAB,
    algorithm: 'bully',
    size: 6,
    timing: { transmission: 300, processing: 50, heartbeatInterval: 500, heartbeatTimeout: 2000 },
    fabric: { link: { delay: 10 } },
  });
  expect(created.status).toBe(201);
}, 180_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser, context });
});

describe('pausing one process from the panel', () => {
  it('the tab and the coordinator paused: marked on the dashboard and the tab, Resume offered; resumed, the marks go', async () => {
    const student = await open(`/lab/${LAB}/process/new?name=ada`, 1400);
    await student.waitForURL(new RegExp(`/lab/${LAB}/process/0(\\?|$)`), { timeout: 20_000 });
    expect((await api('POST', `/api/labs/${LAB}/bots`, { count: 5 })).status).toBe(201);
    const dashboard = await open(`/lab/${LAB}`, 1400);
    const instructor = await open(`/lab/${LAB}/instructor?token=${TOKEN}`, 1400);
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 30_000 })
      .toBe('coordinator 5 (6 of 6)');

    for (const id of [5, 0])
      await instructor.getByRole('button', { name: `Pause process ${id}`, exact: true }).click();
    await expect
      .poll(() => dashboard.getByTestId('processes-paused').textContent(), { timeout: 20_000 })
      .toBe('❚❚ 2 paused');
    await expect
      .poll(() => student.getByTestId('status').textContent(), { timeout: 20_000 })
      .toBe('paused by the instructor');
    // A stopped process keeps what it knows: the tab still shows the coordinator it believed in, and its frozen timers.
    expect(await student.getByTestId('coordinator').textContent()).toBe('5');
    expect(await student.locator('.paused-note').count()).toBe(1);
    await instructor
      .getByRole('button', { name: 'Resume process 5', exact: true })
      .waitFor({ timeout: 20_000 });
    // The others hear nothing from 5 and elect 4 without it (the paused tab 0 takes no part).
    await expect
      .poll(
        async () =>
          (
            (await (await api('GET', `/api/labs/${LAB}/processes/4`)).json()) as {
              report: { coordinator: number } | null;
            }
          ).report?.coordinator,
        { timeout: 30_000 },
      )
      .toBe(4);
    await expect
      .poll(() => dashboard.locator('tr[data-process="5"] .badge.paused').textContent(), {
        timeout: 20_000,
      })
      .toMatch(/^❚❚ paused/);
    toDocs(
      await screenshot(dashboard, 'process-paused-dashboard-1400'),
      'process-paused-dashboard-1400',
    );
    toDocs(
      await screenshot(instructor, 'process-paused-instructor-1400'),
      'process-paused-instructor-1400',
    );
    for (const page of [dashboard, instructor, student])
      await page.setViewportSize({ width: 390, height: 900 });
    // Drawn afresh at phone width (the ring's canvas is sized when the page lays out).
    await dashboard.reload();
    await expect
      .poll(() => dashboard.getByTestId('processes-paused').textContent(), { timeout: 20_000 })
      .toBe('❚❚ 2 paused');
    toDocs(
      await screenshot(dashboard, 'process-paused-dashboard-390'),
      'process-paused-dashboard-390',
    );
    toDocs(
      await screenshot(instructor, 'process-paused-instructor-390'),
      'process-paused-instructor-390',
    );
    toDocs(await screenshot(student, 'process-paused-tab-390'), 'process-paused-tab-390');

    for (const id of [5, 0])
      await instructor.getByRole('button', { name: `Resume process ${id}`, exact: true }).click();
    await expect
      .poll(() => dashboard.getByTestId('processes-paused').count(), { timeout: 20_000 })
      .toBe(0);
    await expect
      .poll(() => student.getByTestId('status').textContent(), { timeout: 20_000 })
      .toBe('up');
    await instructor
      .getByRole('button', { name: 'Pause process 5', exact: true })
      .waitFor({ timeout: 20_000 });
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 30_000 })
      .toBe('coordinator 5 (6 of 6)');
    expect(errors.flat()).toEqual([]);
  }, 180_000);
});
