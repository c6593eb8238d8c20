// Issue 28, item 6's way in: a student reaches the lab's open "break it" challenge from where
// she already is (her process page, the join page the QR code opens), not only from the
// projector's address; the card goes when the instructor closes the challenge. The home page
// lists the shipped challenges beside the lessons, each a link that opens the instructor's page
// with it picked.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Challenge } from '@shared/challenges/challenge-schema.ts';
import type { Relay } from '../../server/relay.ts';
import { launchBrowser, screenshot, toDocs, watchErrors } from '../helpers/browser.ts';
import { startServedRelay, stopServedRelay, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'challenge-links-token';
const LAB = 'linked';
const ID = 'ring-leaderless';

let relay: Relay;
let base: string;
let dataDir: string;
let api: Api;
let browser: Browser;
let shipped: Challenge[];

beforeAll(async () => {
  ({ relay, base, dataDir, api } = await startServedRelay('election-lab-chlinks-', TOKEN));
  expect((await api('POST', '/api/labs', { name: LAB, algorithm: 'ring', size: 4 })).status).toBe(
    201,
  );
  shipped = ((await (await api('GET', '/api/challenges')).json()) as { challenges: Challenge[] })
    .challenges;
  expect(shipped.length).toBeGreaterThan(1);
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stopServedRelay(relay, dataDir);
});

const sizes = [
  [1400, 900],
  [390, 844],
] as const;

async function pageAt(width: number, height: number, errors: string[]): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width, height },
    ...(width < 500 ? { isMobile: true } : {}),
  });
  const page = await context.newPage();
  errors.push(...watchErrors(page));
  return page;
}

describe('the way to a challenge', () => {
  it('the home page lists every shipped challenge, and its link opens the instructor page with it picked', async () => {
    const errors: string[] = [];
    for (const [w, hgt] of sizes) {
      const home = await pageAt(w, hgt, errors);
      await home.goto(`${base}/`);
      const list = home.getByTestId('challenge-list');
      await list.waitFor({ timeout: 15_000 });
      for (const c of shipped) expect(await list.textContent()).toContain(c.title);
      await home.getByTestId(`challenge-open-${ID}`).waitFor({ timeout: 15_000 });
      await home.getByRole('heading', { name: /Break-it challenges/ }).scrollIntoViewIfNeeded();
      expect(
        await home.evaluate<number>('document.documentElement.scrollWidth'),
      ).toBeLessThanOrEqual(w);
      toDocs(await screenshot(home, `home-challenges-${w}`), `home-challenges-${w}`);
      if (w === 1400) {
        await home.getByTestId(`challenge-open-${ID}`).click();
        await home.waitForURL(new RegExp(`/lab/${LAB}/instructor\\?challenge=${ID}$`), {
          timeout: 15_000,
        });
        // With her token, the instructor's picker has it chosen: one click opens it.
        await home.goto(`${base}/lab/${LAB}/instructor?challenge=${ID}&token=${TOKEN}`);
        await home
          .getByTestId('challenge-pick')
          .locator(`option[value="${ID}"]`)
          .waitFor({ state: 'attached', timeout: 15_000 });
        expect(await home.getByTestId('challenge-pick').inputValue()).toBe(ID);
      }
      await home.context().close();
    }
    expect(errors).toEqual([]);
  }, 120_000);

  it('the process page and the join page show the open challenge with a link to it, and drop it when it closes', async () => {
    const errors: string[] = [];
    expect((await api('POST', `/api/labs/${LAB}/challenge`, { challenge: ID })).status).toBe(200);
    const title = shipped.find((c) => c.id === ID)!.title;
    const code = ((await (await api('GET', `/api/labs/${LAB}`)).json()) as { joinCode: string })
      .joinCode;
    const pages: Page[] = [];
    for (const [w, hgt] of sizes) {
      const proc = await pageAt(w, hgt, errors);
      await proc.goto(`${base}/lab/${LAB}/process/new?name=Ada`);
      const card = proc.getByTestId('challenge-card');
      await card.waitFor({ timeout: 15_000 });
      expect(await card.textContent()).toContain(title);
      expect(
        await proc.evaluate<number>('document.documentElement.scrollWidth'),
      ).toBeLessThanOrEqual(w);
      await card.scrollIntoViewIfNeeded();
      toDocs(await screenshot(proc, `process-challenge-card-${w}`), `process-challenge-card-${w}`);

      const join = await proc.context().newPage();
      errors.push(...watchErrors(join));
      await join.goto(`${base}/join/${code}`);
      await join.getByTestId('challenge-card').waitFor({ timeout: 15_000 });
      expect(await join.getByTestId('challenge-card').textContent()).toContain(title);
      toDocs(await screenshot(join, `join-challenge-card-${w}`), `join-challenge-card-${w}`);
      // The link takes her to her private lab for this challenge.
      await join.getByTestId('challenge-card-link').click();
      await expect
        .poll(() => join.getByTestId('challenge-title').textContent(), { timeout: 15_000 })
        .toContain(title);
      pages.push(proc);
    }
    // Closed: the card goes from the open pages (they ask every two seconds).
    expect((await api('DELETE', `/api/labs/${LAB}/challenge`)).status).toBeLessThan(300);
    for (const p of pages) {
      await p.getByTestId('challenge-card').waitFor({ state: 'detached', timeout: 15_000 });
      await p.context().close();
    }
    expect(errors).toEqual([]);
  }, 120_000);
});
