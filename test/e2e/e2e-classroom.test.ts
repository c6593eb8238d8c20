// End to end in real headless Chromium against the real relay serving the built app: an
// instructor page, five student tabs that are real processes, twenty server-side bots added
// from the panel and the dashboard in
// one lab. Crashing the coordinator from the panel must bring every tab and the dashboard to
// the new coordinator; a partition built in the panel must show on the dashboard. Screenshots
// of every view go to test/screenshots/.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Relay } from '../../server/relay.ts';
import { screenshot, UNLABELLED_CONTROLS, watchErrors } from '../helpers/browser.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'e2e-token';
const LAB = 'classroom';
const STUDENTS = 5;
const BOTS = 20;
const N = STUDENTS + BOTS;

let relay: Relay;
let base: string;
let dataDir: string;
let api: Api;
let browser: Browser;
let context: BrowserContext;
const errors = new Map<string, string[]>();

async function open(name: string, path: string): Promise<Page> {
  const page = await context.newPage();
  errors.set(name, watchErrors(page));
  await page.goto(base + path);
  return page;
}

beforeAll(async () => {
  ({ relay, base, dataDir, api, browser, context } = await startServedLab(
    'election-lab-e2e-',
    TOKEN,
    { viewport: { width: 1440, height: 1000 } },
  ));
  // Bounds loose enough for a busy two-core CI machine running Chromium, the relay and the bots:
  // with T = 100 ms there, event-loop stalls past UB made timeouts fire early and elections
  // cascade (hundreds of thousands of messages after a switch to the ring algorithm).
  const created = await api('POST', '/api/labs', {
    name: LAB,
    algorithm: 'bully',
    size: N,
    timing: { transmission: 300, processing: 50, heartbeatInterval: 500, heartbeatTimeout: 2000 },
    fabric: { link: { delay: 10 } },
  });
  expect(created.status).toBe(201);
}, 180_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser, context });
});

describe('the lab in the browser', () => {
  let dashboard: Page;
  let instructor: Page;
  const students: Page[] = [];

  // A failing step leaves pictures of what the pages showed.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    const pages: [string, Page | undefined][] = [
      ['dashboard', dashboard],
      ['instructor', instructor],
      ['student-0', students[0]],
    ];
    for (const [name, page] of pages)
      if (page) await screenshot(page, `failed-${name}`).catch(() => {});
  });

  it('five student tabs join as processes 0 to 4, and twenty bots added from the panel take the other ids', async () => {
    dashboard = await open('dashboard', `/lab/${LAB}`);
    instructor = await open('instructor', `/lab/${LAB}/instructor?token=${TOKEN}`);
    for (let i = 0; i < STUDENTS; i++) {
      const page = await open(`student-${i}`, `/lab/${LAB}/process/new?name=student-${i}`);
      // The tab asks for the next free id and shows it in the URL once it has it.
      await page.waitForURL(new RegExp(`/lab/${LAB}/process/${i}(\\?|$)`), { timeout: 10_000 });
      await expect
        .poll(() => page.getByTestId('status').textContent(), { timeout: 10_000 })
        .toBe('up');
      students.push(page);
    }
    // The token left the address bar.
    expect(instructor.url()).not.toContain('token=');
    // Twenty server-side bots from the panel: they take the free ids 5..24.
    await instructor.getByLabel('Server bots to add').fill(String(BOTS));
    await instructor.getByRole('button', { name: 'Add bots' }).click();
    await expect
      .poll(() => instructor.getByTestId('feedback').textContent(), { timeout: 20_000 })
      .toBe(`Added ${BOTS} bots (ids ${STUDENTS}–${N - 1})`);
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 20_000 })
      .toBe(`coordinator ${N - 1} (${N} of ${N})`);
    for (const page of students)
      await expect
        .poll(() => page.getByTestId('coordinator').textContent(), { timeout: 10_000 })
        .toBe(String(N - 1));
    await screenshot(dashboard, 'dashboard-steady');
    await screenshot(instructor, 'instructor');
    await screenshot(students[0]!, 'student-steady');
  }, 90_000);

  it('crashing the coordinator from the panel: every tab and the dashboard show the new coordinator', async () => {
    await instructor.getByRole('button', { name: `Crash process ${N - 1}`, exact: true }).click();
    const next = String(N - 2);
    for (const page of students)
      await expect
        .poll(() => page.getByTestId('coordinator').textContent(), { timeout: 20_000 })
        .toBe(next);
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 20_000 })
      .toBe(`coordinator ${next} (${N - 1} of ${N - 1})`);
    // The stats panel counted the election that followed.
    await expect
      .poll(() => dashboard.locator('.stats tr.total td').first().textContent(), { timeout: 5_000 })
      .not.toBe('0');
    await screenshot(dashboard, 'dashboard-after-crash');
    await screenshot(students[4]!, 'student-after-crash');
    await screenshot(instructor, 'instructor-after-crash');
  }, 60_000);

  it('a student tab crashed from the panel stops and says so; recovered, it starts from scratch; reloaded, it keeps its id', async () => {
    const tab = students[2]!;
    await instructor.getByRole('button', { name: 'Crash process 2', exact: true }).click();
    await expect
      .poll(() => tab.getByTestId('status').textContent(), { timeout: 10_000 })
      .toBe('crashed');
    await expect
      .poll(() => tab.getByRole('alert').first().textContent())
      .toContain('Crashed by the instructor');
    await expect.poll(() => tab.locator('.timers li').count()).toBe(0); // its timers are gone
    await screenshot(tab, 'student-crashed');
    await instructor.getByRole('button', { name: 'Recover process 2', exact: true }).click();
    await expect
      .poll(() => tab.getByTestId('status').textContent(), { timeout: 10_000 })
      .toBe('up');
    await expect.poll(() => tab.locator('.title-row').textContent()).toContain('started 2 times');
    await expect
      .poll(() => tab.getByTestId('coordinator').textContent(), { timeout: 20_000 })
      .toBe(String(N - 2));
    await tab.reload();
    await expect
      .poll(() => tab.getByTestId('process-id').textContent(), { timeout: 10_000 })
      .toBe('2');
    await expect
      .poll(() => tab.getByTestId('status').textContent(), { timeout: 10_000 })
      .toBe('up');
    expect(tab.url()).toContain(`/lab/${LAB}/process/2`);
    await expect
      .poll(() => tab.getByTestId('coordinator').textContent(), { timeout: 20_000 })
      .toBe(String(N - 2));
  }, 60_000);

  it('a partition built in the panel shows on the dashboard, and each side elects its own coordinator', async () => {
    await instructor.getByRole('button', { name: 'Split ring in 2' }).click();
    await instructor.getByRole('button', { name: 'Apply partition' }).click();
    await expect
      .poll(() => dashboard.getByTestId('partition').textContent(), { timeout: 10_000 })
      .toBe('partitioned into 2 groups');
    // Ring 0..24 split in two arcs: 0..11 and 12..24 (24 crashed). The first side loses 23 and elects 11.
    for (const page of students)
      await expect
        .poll(() => page.getByTestId('coordinator').textContent(), { timeout: 20_000 })
        .toBe('11');
    await expect
      .poll(() => dashboard.locator('tr[data-process="0"] td').nth(3).textContent(), {
        timeout: 10_000,
      })
      .toContain('cut off');
    await screenshot(dashboard, 'dashboard-partition');
    await screenshot(instructor, 'instructor-partition');
    await instructor.getByRole('button', { name: 'Heal' }).click();
    await expect
      .poll(() => dashboard.getByTestId('partition').count(), { timeout: 10_000 })
      .toBe(0);
  }, 60_000);

  it('pause, then deliver one held message and drop another by hand, then resume', async () => {
    await instructor.getByRole('button', { name: 'Pause', exact: true }).click();
    await expect
      .poll(() => dashboard.locator('.lab-header .badge.electing').textContent(), {
        timeout: 5_000,
      })
      .toBe('paused');
    let first = -1;
    let second = -1;
    try {
      // Heartbeats keep being sent and are now held: pick from the list.
      const rows = instructor.locator('tr[data-msg]');
      await expect.poll(() => rows.count(), { timeout: 10_000 }).toBeGreaterThan(1);
      first = Number(await rows.nth(0).getAttribute('data-msg'));
      second = Number(await rows.nth(1).getAttribute('data-msg'));
      await screenshot(instructor, 'instructor-paused');
      // The held list is re-read twice a second meanwhile; the buttons stay enabled through it.
      await instructor.getByRole('button', { name: `Deliver message ${first}` }).click();
      await expect
        .poll(() => instructor.getByTestId('feedback').textContent())
        .toBe(`Delivered message ${first}`);
      await instructor.getByRole('button', { name: `Drop message ${second}` }).click();
      await expect
        .poll(() => instructor.getByTestId('feedback').textContent())
        .toBe(`Dropped message ${second}`);
    } finally {
      // The tests after this one need a running lab, whatever happened here.
      await instructor.getByRole('button', { name: 'Resume', exact: true }).click();
    }
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${base}/api/labs/${LAB}`)).json()) as { paused: boolean }).paused,
      )
      .toBe(false);
    await expect.poll(() => dashboard.locator('.lab-header .badge.electing').count()).toBe(0);
    const trace = await (await fetch(`${base}/api/labs/${LAB}/trace`)).text();
    expect(trace).toContain(`"kind":"drop","msg":${second}`);
    expect(trace).toMatch(new RegExp(`"kind":"drop","msg":${second},[^\n]*"reason":"manual"`));
  }, 30_000);

  it('network settings apply to the lab, and the trace downloads as JSON Lines', async () => {
    await instructor.getByLabel('Delay (ms)').first().fill('35');
    await instructor.getByLabel('Delay (ms)').first().dispatchEvent('change');
    await instructor.getByRole('button', { name: 'Apply network settings' }).click();
    await expect
      .poll(
        async () =>
          (
            (await (await fetch(`${base}/api/labs/${LAB}`)).json()) as {
              config: { fabric: { link: { delay: number } } };
            }
          ).config.fabric.link.delay,
        { timeout: 5_000 },
      )
      .toBe(35);
    const [download] = await Promise.all([
      instructor.waitForEvent('download'),
      instructor.getByRole('button', { name: 'Download trace (JSON Lines)' }).click(),
    ]);
    const path = await download.path();
    const { readFile } = await import('node:fs/promises');
    const lines = (await readFile(path, 'utf8')).trim().split('\n');
    expect(lines.length).toBeGreaterThan(100);
    expect(JSON.parse(lines.at(-1)!)).toHaveProperty('kind');
  }, 30_000);

  it('choosing another algorithm restarts every tab with it, and they agree again', async () => {
    await instructor.locator('select[name="algorithm"]').selectOption('ring');
    await instructor.getByRole('button', { name: 'Apply (restarts every process)' }).click();
    for (const page of students)
      await expect
        .poll(() => page.locator('.title-row').textContent(), { timeout: 10_000 })
        .toContain('ring');
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 20_000 })
      .toBe(`coordinator ${N - 2} (${N - 1} of ${N - 1})`);
    for (const page of students)
      await expect
        .poll(() => page.getByTestId('coordinator').textContent(), { timeout: 10_000 })
        .toBe(String(N - 2));
    await screenshot(dashboard, 'dashboard-ring');
    await screenshot(students[2]!, 'student-ring');
  }, 60_000);

  it('every control on every page has a label, and the partition builder works from the keyboard', async () => {
    const unlabelled = UNLABELLED_CONTROLS;
    const home = await open('home', '/');
    await home.getByRole('heading', { name: 'Labs on this relay' }).waitFor();
    for (const page of [home, dashboard, instructor, students[0]!])
      expect({ url: page.url(), unlabelled: await page.evaluate(unlabelled) }).toEqual({
        url: page.url(),
        unlabelled: [],
      });
    await screenshot(home, 'home');
    // Keyboard instead of drag and drop: focus process 3's chip, press → to move it to group 2.
    const chip = instructor.getByRole('button', { name: 'Process 3, in group 1' });
    await chip.focus();
    await instructor.keyboard.press('ArrowRight');
    await expect
      .poll(() => instructor.getByRole('region', { name: /^Group 2, 1 processes$/ }).count())
      .toBe(1);
    await expect
      .poll(() =>
        instructor.evaluate(
          'document.activeElement && document.activeElement.getAttribute("aria-label")',
        ),
      )
      .toBe('Process 3, in group 2');
  }, 30_000);

  it('reset: every process restarts, the crashed one too, and the lab agrees on the highest id again', async () => {
    await instructor.getByRole('button', { name: 'Reset the lab…' }).click();
    await instructor.getByRole('button', { name: 'Yes, reset' }).click();
    await expect
      .poll(() => instructor.getByTestId('feedback').textContent(), { timeout: 10_000 })
      .toBe('Reset the lab');
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 30_000 })
      .toBe(`coordinator ${N - 1} (${N} of ${N})`);
    for (const page of students)
      await expect
        .poll(() => page.getByTestId('coordinator').textContent(), { timeout: 10_000 })
        .toBe(String(N - 1));
    await screenshot(dashboard, 'dashboard-after-reset');
  }, 60_000);

  it('no page logged an error', () => {
    for (const [name, list] of errors) expect({ name, errors: list }).toEqual({ name, errors: [] });
  });
});
