// Code mode end to end in headless Chromium (docs/STUDENT_MODULES.md): a student's tab opens the
// Bully template, she types a correct solution, runs it as her process in a lab of bots, and
// when the coordinator crashes the lab elects her and agrees; the relay shows her as mode
// `code`. A module that loops is stopped and the tab stays usable; a send outside the lab never
// reaches the relay. A broken solution's grade names the failing case and opens its run in
// replay, and the instructor's board shows her grade (as her tab's claim) and opens the same run.
import { readdirSync, readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Relay } from '../../server/relay.ts';
import { SANDBOX_CSP } from '../../server/http/static.ts';
import { brokenSource } from '../fixtures/grader/broken.ts';
import { toDocs, screenshot, UNLABELLED_CONTROLS, watchErrors } from '../helpers/browser.ts';
import { waitFor } from '../helpers/relay-harness.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'code-token';
const LAB = 'code';
const text = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

let relay: Relay;
let base: string;
let dataDir: string;
let api: Api;
let browser: Browser;
let desk: BrowserContext;

beforeAll(async () => {
  ({ relay, base, dataDir, api, browser } = await startServedLab('election-lab-code-', TOKEN));
  // Quick timing, so a crash is noticed and an election ends within a second.
  const timing = { transmission: 40, processing: 5, heartbeatInterval: 150, heartbeatTimeout: 500 };
  expect(
    (
      await api('POST', '/api/labs', {
        name: LAB,
        algorithm: 'bully',
        size: 6,
        timing,
        fabric: { link: { delay: 20, jitter: 10 } },
      })
    ).status,
  ).toBe(201);
  expect((await api('POST', `/api/labs/${LAB}/bots`, { count: 4, ids: [0, 1, 2, 4] })).status).toBe(
    201,
  );
  desk = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
}, 180_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser });
});

const lab = async () =>
  (await (await api('GET', `/api/labs/${LAB}`)).json()) as {
    processes: {
      id: number;
      mode?: string;
      report: { coordinator: number | null } | null;
      claimedGrade?: {
        claimed: true;
        pass: boolean;
        failing: { id: string } | null;
        trace: boolean;
      };
    }[];
  };
const stats = async () =>
  (await (await api('GET', `/api/labs/${LAB}/stats`)).json()) as {
    coordinators: Record<string, number>;
  };
/** The served relay's API, polled every 100 ms (relay-harness's `waitFor`). */
const until = (cond: () => Promise<boolean>, ms: number, what: string) =>
  waitFor(cond, ms, what, 100);

/** Replaces the editor's text the way typing (or a paste) does: one input into CodeMirror. */
async function type(page: Page, code: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(code);
}

describe('code mode', () => {
  let page: Page;
  let errors: string[];

  it('loads the Bully template, runs her solution as process 3, and the lab elects her when the coordinator crashes', async () => {
    page = await desk.newPage();
    errors = watchErrors(page);
    await page.goto(`${base}/lab/${LAB}/process/3?mode=code&name=Ada`);
    await page.getByTestId('process-id').filter({ hasText: '3' }).waitFor({ timeout: 10_000 });
    // The template is preloaded, with its TODOs.
    await page
      .locator('.cm-content')
      .filter({ hasText: 'TODO' })
      .first()
      .waitFor({ timeout: 10_000 });
    expect(await page.locator('.cm-content').innerText()).toContain(
      'Bully (000, Figure 6-20; 002; 003): your module. Fill in the TODOs',
    );

    // A syntax error is marked before anything runs.
    await type(
      page,
      'export default {\n  name: "bully",\n  init(config) { return config self; },\n};\n',
    );
    await page.locator('.cm-lintRange-error').first().waitFor({ timeout: 5000 });
    await page.getByTestId('code-run').click();
    await expect
      .poll(() => page.getByTestId('code-faults').innerText())
      .toMatch(/Does not load: Syntax error: Unexpected token \(line 3/);

    await type(page, text('shared/grader/examples/bully.js'));
    await expect.poll(() => page.locator('.cm-lintRange-error').count()).toBe(0);
    await page.getByTestId('code-run').click();
    await expect
      .poll(() => page.getByTestId('code-status').innerText(), { timeout: 10_000 })
      .toBe('your module runs this process');
    await until(
      async () => (await lab()).processes[3]!.mode === 'code',
      5000,
      'the relay to show mode code',
    );
    // Her module starts afresh and holds an election; the live coordinator 4 wins it.
    await until(
      async () => (await stats()).coordinators['4'] === 5,
      10_000,
      'all five to follow 4',
    );

    // The coordinator crashes: her module notices (through the host's detector), elects, and wins.
    expect((await api('POST', `/api/labs/${LAB}/processes/4/crash`)).status).toBe(200);
    await until(
      async () => (await stats()).coordinators['3'] === 4,
      15_000,
      'the four live processes to follow 3',
    );
    await expect.poll(() => page.getByTestId('role').innerText()).toBe('coordinator');
    expect((await lab()).processes.find((p) => p.id === 0)!.report!.coordinator).toBe(3);

    // It stays agreed: her heartbeats keep the bots from suspecting her.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await stats()).coordinators).toEqual({ '3': 4 });
    expect(await page.evaluate(UNLABELLED_CONTROLS)).toEqual([]);
    await page.evaluate(`document.querySelector('.cm-scroller').scrollTop = 0`);
    toDocs(await screenshot(page, 'code-mode-1400'), 'code-mode-1400');
    expect(errors).toEqual([]);
  });

  it('stops a module that loops, restarts her process, and the tab stays usable', async () => {
    expect((await api('POST', `/api/labs/${LAB}/processes/4/recover`)).status).toBe(200);
    await until(
      async () => (await stats()).coordinators['4'] === 5,
      10_000,
      'all five to follow 4 again',
    );
    await type(page, brokenSource('loops-forever'));
    await page.getByTestId('code-run').click();
    await expect
      .poll(() => page.getByTestId('code-status').innerText(), { timeout: 10_000 })
      .toBe('your module runs this process');
    // Process 0 holds an election: its ELECTION reaches her, and her step never returns.
    expect((await api('POST', `/api/labs/${LAB}/processes/0/elect`)).status).toBe(200);
    // Her process starts afresh at once in the same worker, so the ELECTIONs of 1 and 2 may stop it again: any of them.
    await expect
      .poll(() => page.getByTestId('code-faults').innerText(), { timeout: 10_000 })
      .toMatch(
        /Stopped: a call did not return within 500 ms \(an endless loop\?\).*your process started afresh \[process 3, t=\d+, on message ELECTION from [0-2]\]/,
      );
    // The page answers: back to the reference, and the lab agrees again.
    await page.getByTestId('code-back').click();
    await expect
      .poll(() => page.getByTestId('code-status').innerText())
      .toBe('the lab’s algorithm runs this process');
    await until(
      async () => (await lab()).processes[3]!.mode === 'auto',
      5000,
      'the relay to show mode auto',
    );
    await until(
      async () => (await stats()).coordinators['4'] === 5,
      10_000,
      'all five to follow 4 once more',
    );
    expect(errors).toEqual([]);
  });

  it('refuses a send outside the lab in the tab: it never reaches the relay', async () => {
    await type(page, brokenSource('send-outside'));
    await page.getByTestId('code-run').click();
    await expect
      .poll(() => page.getByTestId('code-status').innerText(), { timeout: 10_000 })
      .toBe('your module runs this process');
    expect((await api('POST', `/api/labs/${LAB}/processes/0/elect`)).status).toBe(200);
    await expect
      .poll(() => page.getByTestId('code-faults').innerText(), { timeout: 10_000 })
      .toMatch(
        /Refused: effects\[0\]: a send to 99, which is not in this lab \(ids 0, 1, 2, 3, 4, 5\) \[process 3, t=\d+, on message ELECTION from 0\]/,
      );
    const trace = await (await api('GET', `/api/labs/${LAB}/trace`)).text();
    expect(trace).not.toMatch(/"to":99/);
    await page.getByTestId('code-back').click();
  });

  it('her module finds no storage, locks, clock or network in the browser: it runs in its own engine', async () => {
    const names = [
      'navigator',
      'performance',
      'indexedDB',
      'caches',
      'Event',
      'fetch',
      'importScripts',
      'self',
      'postMessage',
    ];
    const probe = `export default { name: 'bully', messageTypes: ['ELECTION'], init() { throw new Error('probe: ' + [${names.map((n) => `typeof ${n}`).join(', ')}].join(' ')); }, step: (s) => ({ state: s, effects: [] }), report: () => ({ role: 'follower', coordinator: null, electing: false }) };`;
    await type(page, probe);
    await page.getByTestId('code-run').click();
    await expect
      .poll(() => page.getByTestId('code-faults').innerText(), { timeout: 15_000 })
      .toMatch(new RegExp(`probe: ${names.map(() => 'undefined').join(' ')}`));
    await page.getByTestId('code-back').click();
    await expect
      .poll(() => page.getByTestId('code-status').innerText())
      .toBe('the lab’s algorithm runs this process');
  });

  it('grades a broken solution: the failing case, and its run opened in replay', async () => {
    await type(page, brokenSource('bully-no-wait'));
    await page.getByTestId('code-grade').click();
    await page.getByTestId('grade-verdict').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('grade-verdict').innerText()).toBe('fail');
    const failing = page.getByTestId('grade-case-explore');
    await expect
      .poll(() => failing.innerText())
      .toMatch(
        /safety broken after 2 steps in 4 processes \(3 down from the start\) with one crash: 0 and 1 both lead/,
      );
    expect(await page.getByTestId('grade-case-figure-6-20').innerText()).toMatch(
      /first divergence from the reference at t=0, process 4 handling elect/,
    );
    toDocs(await screenshot(page, 'code-mode-grade-1400'), 'code-mode-grade-1400');

    const [replay] = await Promise.all([
      desk.waitForEvent('page'),
      failing.getByTestId('open-trace').click(),
    ]);
    await replay.waitForURL(/\/replay\?stored=/);
    await replay.getByText(/explorer trace · bully · 4 processes/).waitFor({ timeout: 10_000 });
    await screenshot(replay, 'code-mode-replay-1400');
    await replay.close();

    // The relay keeps her grade for the class board, with the failing run.
    await until(
      async () => (await lab()).processes[3]!.claimedGrade !== undefined,
      5000,
      'the grade at the relay',
    );
    expect((await lab()).processes[3]!.claimedGrade).toMatchObject({
      claimed: true,
      pass: false,
      trace: true,
    });
    expect(errors).toEqual([]);
  });

  it('the instructor sees her mode and grade on the board and opens her failing run', async () => {
    const board = await desk.newPage();
    await board.goto(`${base}/lab/${LAB}/instructor?token=${TOKEN}`);
    const row = board.getByTestId('board-row-3');
    await expect
      .poll(() => row.innerText(), { timeout: 15_000 })
      .toMatch(
        /Ada\s+auto\s+—\s+—\s+—(\s+\d+){6}\s+—\s+fail \(claimed\)\s+3 of 13\s+reported by the student's tab\s+figure-6-20: ELECTION messages: measured 0, expected 6/,
      );
    const [replay] = await Promise.all([
      desk.waitForEvent('page'),
      row.getByRole('link', { name: /failing run/ }).click(),
    ]);
    await replay.waitForURL(/\/replay\?grade=code(%2F|\/)3/);
    await replay.getByText(/explorer trace · bully/).waitFor({ timeout: 10_000 });
    await replay.close();
    await board.close();
  });

  it('fits a 390 px phone', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
    });
    const small = await phone.newPage();
    const smallErrors = watchErrors(small);
    await small.goto(`${base}/lab/${LAB}/process/new?mode=code&name=Bo`);
    await small.getByTestId('process-id').filter({ hasText: /^\d+$/ }).waitFor({ timeout: 10_000 });
    await small
      .locator('.cm-content')
      .filter({ hasText: 'TODO' })
      .first()
      .waitFor({ timeout: 10_000 });
    expect(
      await small.evaluate<number>('document.documentElement.scrollWidth'),
    ).toBeLessThanOrEqual(390);
    toDocs(await screenshot(small, 'code-mode-390'), 'code-mode-390');
    expect(smallErrors).toEqual([]);
    await phone.close();
  });

  it('serves the sandbox workers with a policy that allows them no connection', async () => {
    const worker = readdirSync(new URL('../../client/dist/assets/', import.meta.url)).find((f) =>
      /^sandbox-worker-.*\.js$/.test(f),
    )!;
    const res = await fetch(`${base}/assets/${worker}`);
    expect(res.headers.get('content-security-policy')).toBe(SANDBOX_CSP);
  });
});
