// End to end in headless Chromium against the real relay serving the built app (issue 24, "the
// projector and the dashboard show only what is true"): a Bully lab with no failure detector
// whose coordinator crashes. Nobody detects it, so every live process still believes it; the
// dashboard's headline and the projector's ring must say it is down, never present it as the
// coordinator they follow. Screenshots at 1,400 and 390 px go to test/screenshots/
// (docs/screenshots/ with UPDATE_SCREENSHOTS=1).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Relay } from '../../server/relay.ts';
import { screenshot, toDocs, openPage } from '../helpers/browser.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'e2e-truth-token';
const LAB = 'truth';

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
    'election-lab-e2e-truth-',
    TOKEN,
  ));
  const created = await api('POST', '/api/labs', {
    name: LAB,
    algorithm: 'bully',
    size: 4,
    detector: 'none',
    timing: { transmission: 100, processing: 20 },
    fabric: { link: { delay: 10 } },
  });
  expect(created.status).toBe(201);
  expect((await api('POST', `/api/labs/${LAB}/bots`, { count: 4 })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser, context });
});

describe('the dashboard and the projector after an undetected crash', () => {
  it('name the crashed coordinator as down, with how many still believe it (the dashboard at 1,400 and 390 px, the projector at 1,400)', async () => {
    const dashboard = await open(`/lab/${LAB}`, 1400);
    const projector = await open(`/lab/${LAB}/projector`, 1400);
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 30_000 })
      .toBe('coordinator 3 (4 of 4)');
    expect((await api('POST', `/api/labs/${LAB}/processes/3/crash`)).status).toBe(200);
    // No detector: nobody elects, every live process still believes 3.
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 20_000 })
      .toBe('coordinator 3 (down) (3 of 3)');
    const ring = projector.locator('[role="img"]').first();
    await expect
      .poll(() => ring.getAttribute('aria-label'), { timeout: 20_000 })
      .toMatch(/coordinator 3 \(down\)/);
    toDocs(await screenshot(dashboard, 'dashboard-coordinator-down'), 'dashboard-coordinator-down');
    toDocs(await screenshot(projector, 'projector-coordinator-down'), 'projector-coordinator-down');
    // A phone opens the dashboard (the projector is for the room's screen).
    await dashboard.setViewportSize({ width: 390, height: 844 });
    // Drawn afresh at phone width (the ring's canvas is sized when the page lays out).
    await dashboard.reload();
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 20_000 })
      .toBe('coordinator 3 (down) (3 of 3)');
    await expect
      .poll(() => dashboard.evaluate('document.documentElement.scrollWidth'), { timeout: 10_000 })
      .toBeLessThanOrEqual(390);
    toDocs(
      await screenshot(dashboard, 'dashboard-coordinator-down-phone'),
      'dashboard-coordinator-down-phone',
    );
    expect(errors.flat()).toEqual([]);
  }, 90_000);
});
