// Hand mode in 003's work schedule, end to end in headless Chromium against the real relay
// serving the built app (issue 27, item 6; docs/WORK_SCHEDULE.md, "Hand mode"). A Bully lab of
// six bots runs a job (dynamic sharing, fencing on) with one student's tab as worker 5, on a
// phone (390 px). She follows her tab: accepts each task offered, computes it once its time has
// passed, sends the result; she follows the coach's hints for the election. The instructor
// crashes coordinator 7 from her panel mid-job; Bully elects 6, whose office asks what everyone
// holds and hands out the rest. The job completes and the Work panel shows 0 lost. In a second
// lab she is the coordinator (the top id): she takes office by the coach's hint, hands tasks out
// by hand and passes the results to the analyser. Screenshots at 1,400 and 390 px.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot, screenshotOf, toDocs } from '../helpers/browser.ts';
import { handLab } from '../helpers/hand-lab.ts';
import { sleep } from '../helpers/relay-harness.ts';

const TOKEN = 'work-hand-token';
// UB = 2T + M = 4.05 s for her clicks on a loaded machine (the hand-mode tests' figure); the
// links themselves take 20 ms.
const TIMING = {
  transmission: 2000,
  processing: 50,
  heartbeatInterval: 300,
  heartbeatTimeout: 1500,
};
const TASKS = 30;
const WORKLOAD = {
  tasks: TASKS,
  size: 1000,
  taskMs: 1500,
  sharing: 'dynamic',
  fencing: true,
  slow: [] as { id: number; factor: number }[],
};

const h = handLab('election-lab-work-hand-', TOKEN);
const { api, until, marks } = h;

/** A Bully lab of HAND_IDS with the workload, bots on `bots`, hints on. */
async function workLab(name: string, bots: number[], workload = WORKLOAD): Promise<void> {
  const created = await api('POST', '/api/labs', {
    name,
    algorithm: 'bully',
    ids: [1, 2, 3, 4, 5, 6, 7],
    timing: TIMING,
    detector: 'heartbeat',
    fabric: { link: { delay: 20 } },
    workload,
  });
  expect(created.status).toBe(201);
  expect((await api('PUT', `/api/labs/${name}/play`, { hints: true })).status).toBe(200);
  expect(
    (await api('POST', `/api/labs/${name}/bots`, { count: bots.length, ids: bots })).status,
  ).toBe(201);
}

/**
 * One look at her tab, in one round trip: the work button she can click now (send the result,
 * compute, accept), and once 7 crashed every election hint the coach gives (the work hints are
 * the same moves as her work buttons).
 */
async function follow(page: Page, electing: boolean): Promise<void> {
  await page.evaluate(`(() => {
    const enabled = (sel) => [...document.querySelectorAll(sel)].filter((b) => !b.disabled);
    const keys = ['work-result', 'work-again', 'work-compute', 'work-accept', 'work-store'];
    keys.map((k) => enabled('[data-testid="' + k + '"]')[0]).find((b) => b)?.click();
    if (!${electing}) return;
    for (const li of document.querySelectorAll('[data-testid="hint"]'))
      if (!/WORK_|Accept task/.test(li.textContent)) li.querySelector('button')?.click();
  })()`);
}

const count = (page: Page, key: string) =>
  page.locator(`[data-testid="work-panel"] [data-count="${key}"] .n`).textContent();

describe('hand mode in the work schedule', () => {
  it('a lab of bots plus one hand-mode worker tab completes a job while the coordinator is crashed from the instructor panel; the Work panel shows 0 lost (390 px)', async () => {
    const lab = 'work-hand';
    await workLab(lab, [1, 2, 3, 4, 6, 7]);
    const { page, errors } = await h.openTab(lab, 5);
    await page.setViewportSize({ width: 390, height: 844 });
    const instructor = await h.desk.newPage();
    await instructor.goto(`${h.base}/lab/${lab}/instructor?token=${TOKEN}`);
    const dashboard = await h.desk.newPage();
    await dashboard.goto(`${h.base}/lab/${lab}`);

    // 003: a process holds an election on start: by hand, then she believes 7's COORDINATOR.
    await page.getByTestId('move-elect').click();
    await page.locator('[data-testid="offer-believe-7"]').first().waitFor({ timeout: 10_000 });
    await page.locator('[data-testid="offer-believe-7"]').first().click();
    let crashed = false;
    let crashedAt = -1;
    let mine = 0;
    let shot = false;
    for (let i = 0; i < 600; i++) {
      await follow(page, crashed);
      if (!shot && (await page.locator('[data-testid="work-compute"][disabled]').count()) > 0) {
        toDocs(await screenshot(page, 'hand-work-worker-phone'), 'hand-work-worker-phone');
        shot = true;
      }
      const done = Number(await count(dashboard, 'done'));
      mine = Number(await page.getByTestId('hand-work-held').getAttribute('data-n'));
      if (!crashed && mine >= 2 && done >= 8) {
        crashedAt = (await h.trace(lab)).at(-1)?.seq ?? -1;
        await instructor.getByRole('button', { name: 'Crash process 7' }).click();
        await until(
          async () => (await instructor.getByTestId('feedback').textContent()) === 'Crashed 7',
          10_000,
          'the instructor crashed 7',
        );
        crashed = true;
      }
      // Done: once her own task (if any) is sent too, so nothing of hers is left owed.
      const busy = await page
        .locator('[data-testid="work-compute"], [data-testid="work-result"]')
        .count();
      if (crashed && done === TASKS && busy === 0) break;
      await sleep(200);
    }
    expect(crashed).toBe(true);
    expect(shot).toBe(true);
    expect(Number(await count(dashboard, 'done'))).toBe(TASKS);
    expect(await count(dashboard, 'lost')).toBe('0');
    expect(await count(dashboard, 'wrong')).toBe('0');
    await expect
      .poll(() => dashboard.getByTestId('work-office').textContent(), { timeout: 10_000 })
      .toMatch(/on orders from 6\b/);
    // She computed part of the job herself, for 7 and, after the crash, for 6.
    const results = h
      .sendsFrom(await h.trace(lab), 5, crashedAt)
      .filter((e) => e.kind === 'send' && e.type === 'WORK_RESULT');
    expect(mine).toBeGreaterThanOrEqual(2);
    expect(results.length).toBeGreaterThanOrEqual(1);
    toDocs(
      await screenshotOf(dashboard.getByTestId('work-panel'), 'hand-work-panel'),
      'hand-work-panel',
    );
    await page.setViewportSize({ width: 1400, height: 1000 });
    toDocs(await screenshot(page, 'hand-work-worker'), 'hand-work-worker');
    // Following her tab and the coach in time leaves her unmarked.
    expect(await marks(page).allTextContents()).toEqual([]);
    expect(errors).toEqual([]);
  }, 200_000);

  it('as the top id she takes office by the hint, hands tasks she picks to empty workers and passes the results to the analyser; nothing marked (1,400 and 390 px)', async () => {
    const lab = 'work-hand-coordinator';
    // Machines of different speeds, so the results come back one by one, not all at once.
    await workLab(lab, [1, 2, 3, 4, 5, 6], {
      ...WORKLOAD,
      taskMs: 3000,
      slow: [2, 3, 4, 5, 6].map((id) => ({ id, factor: 1 + (id - 1) * 0.5 })),
    });
    const { page, errors } = await h.openTab(lab, 7);
    // Bully's top id: declaring herself is her start election (003).
    await page.getByTestId('move-declare').click();
    const hint = (text: string) =>
      page.locator('[data-testid="hint"]').filter({ hasText: text }).locator('button');
    await hint('Take office').first().waitFor({ timeout: 10_000 });
    await hint('Take office').first().click();
    await until(
      async () =>
        (await page.getByTestId('hand-work-role').textContent())?.includes('coordinator') ?? false,
      5000,
      'her office',
    );
    // The reference hands out tasks once everyone answered "what do you hold?" (two round trips).
    await hint('Hand the next task').first().waitFor({ timeout: 20_000 });
    const give = page.getByTestId('hand-assign').getByRole('button', { name: 'Give' });
    // The form starts on the reference's next order (task i to worker i + 1); she gives each.
    for (let i = 0; i < 6; i++) {
      await until(
        async () => (await page.getByTestId('assign-worker').inputValue()) === String(i + 1),
        5000,
        `worker ${i + 1} picked`,
      );
      expect(await page.getByTestId('assign-task').inputValue()).toBe(String(i));
      await give.click();
    }
    // The form marks the machines she gave a task to as busy.
    expect(
      await page.getByTestId('assign-worker').locator('option', { hasText: 'busy' }).count(),
    ).toBeGreaterThan(0);
    // Results come back: she passes them on, and follows the hints to give each empty worker its next task.
    const dashboard = await h.desk.newPage();
    await dashboard.goto(`${h.base}/lab/${lab}`);
    let shot = false;
    for (let i = 0; i < 200 && Number(await count(dashboard, 'done')) < 9; i++) {
      // Her Work card's pass-on button, and the coach's hints for the next orders (the reference's own).
      await page.evaluate(`(() => {
        const hints = [...document.querySelectorAll('[data-testid="hint"]')];
        // One way to pass a result on, not both (a second WORK_STORE would be one too many).
        if (!hints.some((li) => li.textContent.includes('WORK_STORE')))
          document.querySelector('[data-testid="work-store"]')?.click();
        for (const li of hints)
          if (/WORK_ASSIGN|WORK_STORE/.test(li.textContent)) li.querySelector('button')?.click();
      })()`);
      if (!shot && (await page.getByTestId('work-store').count()) > 0) {
        toDocs(await screenshot(page, 'hand-work-coordinator'), 'hand-work-coordinator');
        shot = true;
      }
      await sleep(200);
    }
    expect(Number(await count(dashboard, 'done'))).toBeGreaterThanOrEqual(9);
    expect(await count(dashboard, 'lost')).toBe('0');
    const stores = h
      .sendsFrom(await h.trace(lab), 7)
      .filter((e) => e.kind === 'send' && e.type === 'WORK_STORE');
    expect(stores.length).toBeGreaterThanOrEqual(9);
    expect(stores.every((e) => e.kind === 'send' && e.to === 6)).toBe(true);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() => page.evaluate('document.documentElement.scrollWidth'), { timeout: 10_000 })
      .toBeLessThanOrEqual(390);
    toDocs(await screenshot(page, 'hand-work-coordinator-phone'), 'hand-work-coordinator-phone');
    expect(await marks(page).allTextContents()).toEqual([]);
    expect(errors).toEqual([]);
  }, 200_000);
});
