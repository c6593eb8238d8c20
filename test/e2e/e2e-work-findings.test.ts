// End to end in headless Chromium against the real relay serving the built app (issue 27): a lab
// of server bots runs 003's work schedule with static sharing, the instructor crashes a worker
// mid-share over REST, and the dashboard's Checker findings panel shows the relay's "result
// lost" finding, with its text (003: "a crashed machine means missing results"). The work kinds
// are listed only once found. Screenshots at 1,400 and 390 px go to test/screenshots/
// (docs/screenshots/ with UPDATE_SCREENSHOTS=1).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Relay } from '../../server/relay.ts';
import { openPage, screenshotOf, toDocs } from '../helpers/browser.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'e2e-work-findings-token';
const LAB = 'lostroom';

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
    'election-lab-e2e-work-find-',
    TOKEN,
  ));
  const created = await api('POST', '/api/labs', {
    name: LAB,
    algorithm: 'bully',
    size: 4,
    detector: 'heartbeat',
    timing: { transmission: 100, processing: 20, heartbeatInterval: 300, heartbeatTimeout: 1000 },
    fabric: { link: { delay: 10 } },
    workload: { tasks: 9, size: 100, taskMs: 1500, sharing: 'static', fencing: true, slow: [] },
  });
  expect(created.status).toBe(201);
}, 180_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser, context });
});

const kinds = (page: Page) =>
  page
    .locator('[data-testid="findings"] ul.counts li')
    .evaluateAll((li) => li.map((x) => x.getAttribute('data-kind')));

describe('the checker findings panel with a workload', () => {
  it('a worker crashed under static sharing: the panel shows "result lost" with the tasks, at 1,400 and 390 px', async () => {
    const dashboard = await open(`/lab/${LAB}`, 1400);
    expect((await api('POST', `/api/labs/${LAB}/bots`, { count: 4 })).status).toBe(201);
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 30_000 })
      .toBe('coordinator 3 (4 of 4)');
    // Before any loss, the work kinds are not listed.
    expect(await kinds(dashboard)).toEqual(['safety', 'agreement', 'liveness', 'spurious']);
    // Coordinator 3 split the nine tasks among 0, 1 and 2 (three each, 1.5 s apiece); 0 goes down.
    await expect
      .poll(
        async () =>
          (
            (await (await api('GET', `/api/labs/${LAB}/stats`)).json()) as {
              messages: { byType: Record<string, number> };
            }
          ).messages.byType['WORK_ASSIGN'] ?? 0,
        { timeout: 20_000 },
      )
      .toBeGreaterThanOrEqual(9);
    expect((await api('POST', `/api/labs/${LAB}/processes/0/crash`)).status).toBe(200);
    const lost = dashboard.locator(
      '[data-testid="findings"] ul.counts li[data-kind="result-lost"]',
    );
    await expect.poll(() => lost.count(), { timeout: 20_000 }).toBe(1);
    expect(Number(await lost.locator('.n').textContent())).toBeGreaterThanOrEqual(1);
    await expect
      .poll(
        () =>
          dashboard
            .locator('[data-testid="findings"] ol.recent li[data-kind="result-lost"]')
            .first()
            .textContent(),
        { timeout: 10_000 },
      )
      .toMatch(/result lost.*lost: 0 went down: static sharing never hands them out again/s);
    const panel = dashboard.getByTestId('findings');
    toDocs(await screenshotOf(panel, 'findings-result-lost'), 'findings-result-lost');
    await dashboard.setViewportSize({ width: 390, height: 844 });
    await dashboard.reload();
    await expect.poll(() => lost.count(), { timeout: 20_000 }).toBe(1);
    toDocs(
      await screenshotOf(dashboard.getByTestId('findings'), 'findings-result-lost-phone'),
      'findings-result-lost-phone',
    );
    expect(errors.flat()).toEqual([]);
  });
});
