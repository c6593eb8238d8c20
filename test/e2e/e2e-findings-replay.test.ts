// End to end in headless Chromium against the real relay serving the built app: the live
// checker's findings on the dashboard (issue 6: a partitioned Bully lab has two coordinators and
// the checker flags the split brain), replay (issue 7: a trace from `npm run simulate -- --trace`
// uploaded and scrubbed to the end shows the coordinators the simulator reported; the explorer's
// bad schedule opens with its verdict; a bad file says what is wrong; a lab's own trace opens
// with `?lab=`), and the instructor panel's sweep drawing
// its plots. Screenshots go to test/screenshots/.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseExploreCli, runExplore } from '../../scripts/explore.ts';
import type { Relay } from '../../server/relay.ts';
import {
  screenshot,
  screenshotOf,
  toDocs,
  UNLABELLED_CONTROLS,
  watchErrors,
} from '../helpers/browser.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'e2e-findings-token';
const LAB = 'split';
const N = 8;
const root = new URL('../../', import.meta.url).pathname;

let relay: Relay;
let base: string;
let dataDir: string;
let api: Api;
let browser: Browser;
let context: BrowserContext;
const errors = new Map<string, string[]>();
const pages: Page[] = [];

async function open(name: string, path: string): Promise<Page> {
  const page = await context.newPage();
  errors.set(name, watchErrors(page));
  pages.push(page);
  await page.goto(base + path);
  return page;
}

beforeAll(async () => {
  ({ relay, base, dataDir, api, browser, context } = await startServedLab(
    'election-lab-findings-',
    TOKEN,
    { viewport: { width: 1440, height: 1000 } },
  ));
  const created = await api('POST', '/api/labs', {
    name: LAB,
    algorithm: 'bully',
    size: N,
    timing: { transmission: 150, processing: 30, heartbeatInterval: 300, heartbeatTimeout: 1200 },
    fabric: { link: { delay: 10 } },
  });
  expect(created.status).toBe(201);
  expect((await api('POST', `/api/labs/${LAB}/bots`, { count: N })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser, context });
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state !== 'fail') return;
  for (const [i, page] of pages.entries())
    await screenshot(page, `failed-findings-${i}`).catch(() => {});
});

describe('findings, replay and the sweep in the browser', () => {
  it('a partition of a Bully lab: the dashboard shows the split brain the checker flags, on the ring and in the findings', async () => {
    const dashboard = await open('dashboard', `/lab/${LAB}`);
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 20_000 })
      .toBe(`coordinator ${N - 1} (${N} of ${N})`);
    await expect
      .poll(() => dashboard.locator('[data-role="coordinator"] .n').textContent())
      .toBe('1');
    const cut = await api('POST', `/api/labs/${LAB}/partition`, {
      groups: [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
      ],
    });
    expect(cut.status).toBeLessThan(300);
    // 3 wins the lower side's election; the checker sees 3 and 7 lead at once past the hand-over time.
    await expect
      .poll(() => dashboard.getByTestId('split-brain').first().textContent(), { timeout: 20_000 })
      .toContain('3 and 7');
    await expect
      .poll(() => dashboard.locator('[data-kind="safety"] .n').first().textContent(), {
        timeout: 5_000,
      })
      .not.toBe('0');
    await expect
      .poll(() => dashboard.locator('.recent li[data-kind="safety"]').first().textContent())
      .toContain('split brain: 3 and 7');
    expect(await dashboard.locator('.ring canvas').getAttribute('aria-label')).toContain(
      'split brain: 3 and 7 lead at once',
    );
    for (const id of [3, 7])
      await expect
        .poll(() => dashboard.locator(`tr[data-process="${id}"]`).textContent())
        .toContain('split brain');
    await expect
      .poll(() => dashboard.locator('[data-role="coordinator"] .n').textContent())
      .toBe('2');
    await screenshot(dashboard, 'dashboard-split-brain');
    // The instructor panel shows the same findings, from the same book (issue 24: "the instructor
    // panel shows the findings"): the split brain in force and its count, at 1,400 and 390 px.
    const instructor = await open('instructor', `/lab/${LAB}/instructor?token=${TOKEN}`);
    const panel = instructor.getByTestId('findings');
    await expect
      .poll(() => panel.getByTestId('split-brain').first().textContent(), { timeout: 20_000 })
      .toContain('3 and 7');
    await expect
      .poll(() => panel.locator('[data-kind="safety"] .n').first().textContent())
      .not.toBe('0');
    await expect
      .poll(() => panel.locator('.recent li[data-kind="safety"]').first().textContent())
      .toContain('split brain: 3 and 7');
    toDocs(await screenshotOf(panel, 'instructor-findings-1400'), 'instructor-findings-1400');
    await instructor.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() => instructor.evaluate('document.documentElement.scrollWidth'), { timeout: 10_000 })
      .toBeLessThanOrEqual(390);
    toDocs(await screenshotOf(panel, 'instructor-findings-390'), 'instructor-findings-390');
    // Healed: 7 bullies 3 and the split brain is over; the count stays.
    expect((await api('DELETE', `/api/labs/${LAB}/partition`)).status).toBeLessThan(300);
    await expect
      .poll(() => dashboard.getByTestId('split-brain').count(), { timeout: 20_000 })
      .toBe(0);
    await expect
      .poll(() => dashboard.getByTestId('consensus').textContent(), { timeout: 20_000 })
      .toBe(`coordinator ${N - 1} (${N} of ${N})`);
    expect(await dashboard.locator('[data-kind="safety"] .n').first().textContent()).not.toBe('0');
    await screenshot(dashboard, 'dashboard-healed');
  }, 90_000);

  it('replay: a trace from `npm run simulate -- --trace` uploaded and scrubbed to the end shows the coordinators the simulator reported', async () => {
    const file = join(dataDir, 'bully-8.jsonl');
    const { stdout } = await promisify(execFile)(
      join(root, 'node_modules/.bin/tsx'),
      [
        'scripts/simulate.ts',
        '--algorithm',
        'bully',
        '--nodes',
        '8',
        '--crash',
        '7',
        '--initiator',
        '2',
        '--trace',
        file,
        '--json',
      ],
      { cwd: root, timeout: 30_000 },
    );
    const sim = JSON.parse(stdout) as { coordinatorByNode: Record<string, number>; events: number };
    const page = await open('replay', '/replay');
    await page.getByTestId('trace-file').setInputFiles(file);
    await expect
      .poll(() => page.getByTestId('replay-summary').textContent(), { timeout: 10_000 })
      .toContain('simulator trace · bully · 8 processes');
    const total = (await readFile(file, 'utf8')).trim().split('\n').length - 1; // less the header
    await expect
      .poll(() => page.getByTestId('replay-where').textContent())
      .toContain(`event 0 of ${total}`);
    // Keyboard: the slider steps one event per arrow key.
    await page.getByTestId('scrub').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(() => page.getByTestId('replay-where').textContent())
      .toContain(`event 2 of ${total}`);
    await page.getByTestId('scrub').fill(String(Math.round(total * 0.3)));
    await screenshot(page, 'replay-mid-election');
    await page.getByRole('button', { name: 'Go to the end' }).click();
    await expect
      .poll(() => page.getByTestId('replay-where').textContent())
      .toContain(`event ${total} of ${total}`);
    for (const [id, coordinator] of Object.entries(sim.coordinatorByNode)) {
      await expect
        .poll(() => page.locator(`tr[data-process="${id}"] td`).nth(5).textContent())
        .toContain(String(coordinator));
    }
    await expect
      .poll(() => page.locator('tr[data-process="7"]').textContent())
      .toContain('crashed');
    expect(await page.locator('.ring canvas').getAttribute('aria-label')).toContain(
      `coordinator ${sim.coordinatorByNode['0']}`,
    );
    await page.getByRole('button', { name: 'Step back one event' }).click();
    await expect
      .poll(() => page.getByTestId('replay-where').textContent())
      .toContain(`event ${total - 1} of ${total}`);
    await screenshot(page, 'replay-end');
    // Play from the start in trace time (the run lasts under half a second): it stops at the end.
    await page.getByRole('button', { name: 'Go to the start' }).click();
    await page.getByRole('button', { name: 'Play' }).click();
    await expect
      .poll(() => page.getByTestId('replay-where').textContent(), { timeout: 10_000 })
      .toContain(`event ${total} of ${total}`);
    await expect.poll(() => page.getByRole('button', { name: 'Play' }).count()).toBe(1);
    expect(await page.evaluate(UNLABELLED_CONTROLS)).toEqual([]);
  }, 60_000);

  it('replay: a file that is not a trace says which lines are wrong; a lab opens with ?lab= and replays its findings', async () => {
    const page = await open('replay-bad', '/replay');
    await page.getByTestId('trace-file').setInputFiles({
      name: 'notes.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from('hello\n{"seq":1,"t":0,"kind":"teleport"}\n'),
    });
    await expect
      .poll(() => page.getByTestId('replay-error').textContent())
      .toContain('“notes.jsonl” is not a trace');
    await expect
      .poll(() => page.getByTestId('replay-error').textContent())
      .toContain('line 1: not valid JSON');
    await expect.poll(() => page.getByTestId('replay-error').textContent()).toContain('line 2');
    await screenshot(page, 'replay-bad-file');
    // `npm run explore`'s shortest bad schedule opens, with its verdict.
    const cli = parseExploreCli([
      '--algorithm',
      'bully',
      '--nodes',
      '4',
      '--faults',
      'slow',
      '--seconds',
      '60',
    ]);
    const { traceText } = runExplore(cli, () => performance.now());
    await page.getByTestId('trace-file').setInputFiles({
      name: 'bully-4-slow.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(traceText!),
    });
    await expect
      .poll(() => page.getByTestId('violation').textContent())
      .toContain('safety: 1 and 2 both lead');
    await page.getByRole('button', { name: 'Go to the end' }).click();
    await expect
      .poll(() => page.getByTestId('split-brain').first().textContent())
      .toContain('1 and 2');
    await screenshot(page, 'replay-explorer');
    const lab = await open('replay-lab', `/replay?lab=${LAB}`);
    await expect
      .poll(() => lab.getByTestId('replay-summary').textContent(), { timeout: 15_000 })
      .toContain('relay trace · bully · 8 processes');
    await lab.getByRole('button', { name: 'Go to the end' }).click();
    await expect
      .poll(() => lab.locator('[data-kind="safety"] .n').first().textContent())
      .not.toBe('0');
    await screenshot(lab, 'replay-lab');
  }, 60_000);

  it("the instructor panel's sweep runs the simulator in the browser and plots messages and election time against N beside the formulas", async () => {
    const page = await open('instructor', `/lab/${LAB}/instructor?token=${TOKEN}`);
    await page.getByLabel('N values').fill('4, 8, 16, 32');
    await page.getByRole('button', { name: 'Run sweep (bully)' }).click();
    // Two cases: messages by type for each, election time for each.
    await expect
      .poll(() => page.getByTestId('sweep-figures').locator('img').count(), { timeout: 30_000 })
      .toBe(4);
    const alts = await page
      .getByTestId('sweep-figures')
      .locator('img')
      .evaluateAll((imgs) =>
        imgs.map(
          (i) =>
            (i as unknown as { alt: string; naturalWidth: number }).alt +
            ' ' +
            (i as unknown as { naturalWidth: number }).naturalWidth,
        ),
      );
    expect(alts.join('\n')).toMatch(/Messages by type against N for bully, worst case[^\n]* 820/);
    expect(alts.join('\n')).toMatch(/Election time in T against N for bully[^\n]* 820/);
    // The table beside it: 8 processes, worst case, N(N−1)/2 = 28 ELECTIONs measured and predicted (bold: they agree).
    const row8 = page.locator('.sweep table').first().locator('tbody tr').nth(1);
    await expect.poll(() => row8.locator('td').first().textContent()).toBe('28');
    expect(await row8.locator('td strong').first().textContent()).toBe('28');
    // Bad input is refused on the page.
    await page.getByLabel('N values').fill('8, 500');
    await page.getByRole('button', { name: 'Run sweep (bully)' }).click();
    await expect
      .poll(() => page.locator('.sweep [role="alert"]').textContent())
      .toContain('from 3 to 64');
    await page.getByLabel('N values').fill('4, 8, 16, 32');
    await page.getByRole('button', { name: 'Run sweep (bully)' }).click();
    await expect
      .poll(() => page.getByTestId('sweep-figures').locator('img').count(), { timeout: 30_000 })
      .toBe(4);
    await page.locator('#sweep-title').scrollIntoViewIfNeeded();
    await screenshot(page, 'instructor-sweep');
    expect(await page.evaluate(UNLABELLED_CONTROLS)).toEqual([]);
  }, 60_000);

  it('no page logged an error', () => {
    for (const [name, list] of errors) expect({ name, errors: list }).toEqual({ name, errors: [] });
  });
});
