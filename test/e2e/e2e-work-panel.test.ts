// End to end in headless Chromium against the real relay serving the built app (issue 27): the
// instructor sets a workload from her panel (003's work schedule, dynamic sharing, fencing on),
// a lab of server bots runs it, and she crashes the coordinator mid-job from the panel. The
// election names a new coordinator, which rebuilds the task table from what the others hold;
// the dashboard's Work panel, folded from the relay's trace, shows every task done and 0 lost.
// Screenshots at 1,400 and 390 px go to test/screenshots/ (docs/screenshots/ with
// UPDATE_SCREENSHOTS=1).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Relay } from '../../server/relay.ts';
import { screenshot, screenshotOf, toDocs, openPage } from '../helpers/browser.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'e2e-work-token';
const LAB = 'workroom';
const TASKS = 16;

let relay: Relay;
let base: string;
let dataDir: string;
let api: Api;
let browser: Browser;
let context: BrowserContext;
const errors: string[][] = [];

const open = (path: string, width: number): Promise<Page> =>
  openPage(context, base + path, width, errors);

const count = (page: Page, key: string) =>
  page.locator(`[data-testid="work-panel"] [data-count="${key}"] .n`).textContent();

beforeAll(async () => {
  ({ relay, base, dataDir, api, browser, context } = await startServedLab(
    'election-lab-e2e-work-',
    TOKEN,
  ));
  const created = await api('POST', '/api/labs', {
    name: LAB,
    algorithm: 'bully',
    size: 5,
    detector: 'heartbeat',
    timing: { transmission: 100, processing: 20, heartbeatInterval: 300, heartbeatTimeout: 1000 },
    fabric: { link: { delay: 10 } },
  });
  expect(created.status).toBe(201);
  expect((await api('POST', `/api/labs/${LAB}/bots`, { count: 5 })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser, context });
});

describe('the Work panel', () => {
  it("a job set from the instructor panel completes through the coordinator's crash, and the Work panel shows 0 lost (1,400 and 390 px)", async () => {
    const instructor = await open(`/lab/${LAB}/instructor?token=${TOKEN}`, 1400);
    const dashboard = await open(`/lab/${LAB}`, 1400);
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 30_000 })
      .toBe('coordinator 4 (5 of 5)');
    // No workload yet: no Work panel.
    expect(await dashboard.getByTestId('work-panel').count()).toBe(0);

    // The instructor's workload form: 16 tasks of 1.5 s, dynamic sharing, fencing on.
    const form = instructor.getByTestId('workload-form');
    await form.getByTestId('work-on').check();
    await form.locator('input[name="work-tasks"]').fill(String(TASKS));
    await form.locator('input[name="work-task-ms"]').fill('1500');
    await form.locator('input[name="work-slow"]').fill('1:2');
    await form.getByTestId('work-apply').click();
    await expect
      .poll(() => instructor.getByTestId('feedback').textContent(), { timeout: 10_000 })
      .toMatch(/Set the workload: 16 tasks, dynamic sharing, fencing on/);
    const lab = (await (await api('GET', `/api/labs/${LAB}`)).json()) as {
      config: { workload?: unknown };
    };
    expect(lab.config.workload).toEqual({
      tasks: TASKS,
      size: 1000,
      taskMs: 1500,
      sharing: 'dynamic',
      fencing: true,
      slow: [{ id: 1, factor: 2 }],
    });

    // The job runs: 4 is coordinator, and some results are kept before the crash, not all.
    await expect
      .poll(async () => Number(await count(dashboard, 'done')), { timeout: 30_000 })
      .toBeGreaterThanOrEqual(3);
    await expect
      .poll(() => dashboard.getByTestId('work-office').textContent(), { timeout: 10_000 })
      .toMatch(/on orders from 4\b.*analyser 3/s);
    expect(Number(await count(dashboard, 'done'))).toBeLessThan(TASKS);

    // She crashes the coordinator from her panel.
    await instructor.getByRole('button', { name: 'Crash process 4' }).click();
    await expect
      .poll(() => instructor.getByTestId('feedback').textContent(), { timeout: 10_000 })
      .toBe('Crashed 4');
    // The election names 3; its office (a newer token) gathers what the others hold and goes on.
    await expect
      .poll(() => dashboard.getByTestId('work-office').textContent(), { timeout: 30_000 })
      .toMatch(/on orders from 3\b/);
    await expect
      .poll(async () => Number(await count(dashboard, 'done')), { timeout: 60_000 })
      .toBe(TASKS);
    expect(await count(dashboard, 'lost')).toBe('0');
    expect(await count(dashboard, 'wrong')).toBe('0');
    expect(await dashboard.locator('[data-figure="makespan"] dt').textContent()).toBe('Makespan');
    expect(await dashboard.locator('[data-figure="stale-accepted"] dd').textContent()).toBe('0');
    // Every task's result is kept by the live analyser; none by the crashed 4.
    const states = await dashboard
      .locator('[data-testid="work-holders"] tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-state')));
    expect(states).toEqual(Array(TASKS).fill('done'));
    const kept = await dashboard
      .locator('[data-testid="work-holders"] tbody tr td:nth-child(3)')
      .allTextContents();
    expect(kept.every((k) => k.length > 0 && k !== '—' && !k.split(', ').includes('4'))).toBe(true);

    toDocs(await screenshot(dashboard, 'dashboard-work-panel'), 'dashboard-work-panel');
    toDocs(await screenshotOf(dashboard.getByTestId('work-panel'), 'work-panel'), 'work-panel');
    toDocs(
      await screenshotOf(
        instructor.getByTestId('workload-form').locator('xpath=..'),
        'instructor-workload',
      ),
      'instructor-workload',
    );
    const projector = await open(`/lab/${LAB}/projector`, 1400);
    // Opened after the job: it reads the relay's trace and counts the whole job.
    await expect
      .poll(async () => Number(await count(projector, 'done')), { timeout: 20_000 })
      .toBe(TASKS);
    expect(await count(projector, 'lost')).toBe('0');

    // A phone: the panel fits 390 px.
    await dashboard.setViewportSize({ width: 390, height: 844 });
    await dashboard.reload();
    await expect
      .poll(async () => Number(await count(dashboard, 'done')), { timeout: 20_000 })
      .toBe(TASKS);
    expect(await count(dashboard, 'lost')).toBe('0');
    await expect
      .poll(() => dashboard.evaluate('document.documentElement.scrollWidth'), { timeout: 10_000 })
      .toBeLessThanOrEqual(390);
    toDocs(
      await screenshotOf(dashboard.getByTestId('work-panel'), 'work-panel-phone'),
      'work-panel-phone',
    );
    toDocs(await screenshot(dashboard, 'dashboard-work-panel-phone'), 'dashboard-work-panel-phone');
    expect(errors.flat()).toEqual([]);
  }, 150_000);
});
