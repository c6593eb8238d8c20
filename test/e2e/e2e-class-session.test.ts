// The class session end to end in headless Chromium: a student on a 390 px phone joins by code
// and sees her process; the instructor's roster shows her, and a second student who then left.
// A name with a zero-width character is refused on the join page before the tab joins.
import jsQR from 'jsqr';
import type { Browser } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Relay } from '../../server/relay.ts';
import { toDocs, screenshot, screenshotOf, watchErrors } from '../helpers/browser.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'session-token';
const LAB = 'session';

let relay: Relay;
let base: string;
let dataDir: string;
let api: Api;
let browser: Browser;

beforeAll(async () => {
  ({ relay, base, dataDir, api, browser } = await startServedLab('election-lab-session-', TOKEN));
  expect((await api('POST', '/api/labs', { name: LAB, algorithm: 'bully', size: 4 })).status).toBe(
    201,
  );
}, 180_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser });
});

describe('class session', () => {
  it('a phone joins by code, and the roster shows who joined and who left', async () => {
    const code = ((await (await api('GET', `/api/labs/${LAB}`)).json()) as { joinCode: string })
      .joinCode;
    expect(code).toMatch(/^[A-Z]{6}$/);

    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
    });
    const ada = await phone.newPage();
    const adaErrors = watchErrors(ada);
    await ada.goto(`${base}/join/${code.toLowerCase()}`);
    // A zero-width "Ada" is refused on the page, with the relay's own words (display-name.ts).
    await ada.getByLabel('Your name').fill('\u200bAda');
    await ada.getByRole('button', { name: 'Join', exact: true }).click();
    await expect
      .poll(() => ada.getByRole('alert').textContent(), { timeout: 5000 })
      .toContain('zero-width character');
    expect(ada.url()).toContain('/join/');
    await ada.getByLabel('Your name').fill('Ada');
    await ada.getByRole('button', { name: 'Join', exact: true }).click();
    await ada.waitForURL(/\/lab\/session\/process\//, { timeout: 10_000 });
    await ada.getByTestId('process-id').filter({ hasText: /^\d+$/ }).waitFor({ timeout: 10_000 });
    // Nothing wider than the phone: no sideways scrolling.
    expect(await ada.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    toDocs(await screenshot(ada, 'join-by-code-390'), 'join-by-code-390');

    // Bo joins from the home page's code field, then closes his tab.
    const desk = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const bo = await desk.newPage();
    await bo.goto(base + '/');
    // The labs table stays inside its card at 1,400 px (it used to run into "Create a lab").
    const labsCard = bo.locator('section', { has: bo.locator('#labs-title') });
    await labsCard.locator('table').waitFor({ timeout: 10_000 });
    expect(
      await labsCard.evaluate((el: any) => el.scrollWidth - el.clientWidth),
    ).toBeLessThanOrEqual(0);
    toDocs(await screenshot(bo, 'home-1400'), 'home-1400');
    await bo.getByLabel('Join code').fill(code);
    await bo.getByRole('button', { name: 'Join by code' }).click();
    // The home page has its own 'Your name' and 'Join' (by lab name): act only on the join page's form.
    await bo.waitForURL(/\/join\//, { timeout: 10_000 });
    const joinForm = bo.locator('form.join-form');
    await joinForm.getByLabel('Your name').fill('Bo');
    await joinForm.getByRole('button', { name: 'Join', exact: true }).click();
    await bo.getByTestId('process-id').filter({ hasText: /^\d+$/ }).waitFor({ timeout: 10_000 });
    await bo.close();

    const instructor = await desk.newPage();
    await instructor.goto(`${base}/lab/${LAB}/instructor?token=${TOKEN}`);
    await expect
      .poll(() => instructor.getByTestId('join-code').textContent(), { timeout: 10_000 })
      .toBe(code);
    const row = (name: string) => instructor.locator('.roster-table tr', { hasText: name });
    await expect
      .poll(() => row('Ada').textContent(), { timeout: 10_000 })
      .toMatch(/human\s*yes, joined/);
    await expect.poll(() => row('Bo').textContent(), { timeout: 15_000 }).toMatch(/left/);
    // Since when: Ada joined, Bo left, each at a time of day.
    expect(await row('Ada').getByTestId('roster-connected').textContent()).toMatch(
      /^\s*yes, joined \d\d:\d\d:\d\d(just now|\d+ s ago)\s*$/,
    );
    expect(await row('Bo').getByTestId('roster-connected').textContent()).toMatch(
      /^\s*left \d\d:\d\d:\d\d(just now|\d+ s ago)\s*$/,
    );
    toDocs(await screenshot(instructor, 'roster-1400'), 'roster-1400');

    // The instructor's roster on a phone: the table fits its panel (no scrolling inside it either).
    const teacherPhone = await phone.newPage();
    await teacherPhone.goto(`${base}/lab/${LAB}/instructor?token=${TOKEN}`);
    const roster = teacherPhone.locator('section', { has: teacherPhone.locator('#roster-title') });
    await expect
      .poll(() => roster.locator('.roster-table tr', { hasText: 'Bo' }).textContent(), {
        timeout: 15_000,
      })
      .toMatch(/left/);
    expect(
      await teacherPhone.evaluate<number>('document.documentElement.scrollWidth'),
    ).toBeLessThanOrEqual(390);
    expect(
      await roster.locator('.table-box').evaluate((el: any) => el.scrollWidth - el.clientWidth),
    ).toBeLessThanOrEqual(0);
    await roster.scrollIntoViewIfNeeded();
    toDocs(await screenshotOf(roster, 'roster-390'), 'roster-390');
    expect(adaErrors).toEqual([]);
    await phone.close();
    await desk.close();
  }, 90_000);

  it.each([
    { width: 1400, height: 900, minFontPx: 64 },
    { width: 390, height: 844, minFontPx: 32 },
  ])(
    'the projector view at $width px shows the code in large type and a QR code that decodes to the join link',
    async ({ width, height, minFontPx }) => {
      const code = ((await (await api('GET', `/api/labs/${LAB}`)).json()) as { joinCode: string })
        .joinCode;
      const ctx = await browser.newContext({ viewport: { width, height } });
      const page = await ctx.newPage();
      const errors = watchErrors(page);
      await page.goto(`${base}/lab/${LAB}/projector`);
      await expect
        .poll(() => page.getByTestId('projector-code').textContent(), { timeout: 10_000 })
        .toBe(code);
      const img = page.getByTestId('join-qr');
      await img.waitFor({ timeout: 10_000 });
      const png = PNG.sync.read(await img.screenshot());
      const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
      expect(decoded?.data).toBe(`${base}/join/${code}`);
      const fontPx = await page
        .getByTestId('projector-code')
        .evaluate((el) => parseFloat((globalThis as any).getComputedStyle(el).fontSize));
      expect(fontPx).toBeGreaterThanOrEqual(minFontPx);
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth'),
      ).toBeLessThanOrEqual(width);
      toDocs(await screenshot(page, `projector-${width}`), `projector-${width}`);
      expect(errors).toEqual([]);
      await ctx.close();
    },
    60_000,
  );
});
