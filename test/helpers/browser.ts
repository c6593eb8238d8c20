// Headless Chromium for the end-to-end tests: Debian's /usr/bin/chromium through playwright-core
// (never a downloaded browser), and a place for screenshots (test/screenshots/, gitignored).
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type Locator,
  type Page,
} from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const SCREENSHOTS = fileURLToPath(new URL('../screenshots/', import.meta.url));

export function hasChromium(): boolean {
  return existsSync(CHROMIUM);
}

export async function launchBrowser(): Promise<Browser> {
  if (!hasChromium())
    throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (CI installs it)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = `${SCREENSHOTS}${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

const DOCS = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));

/** Copies a screenshot into docs/screenshots/, on purpose only (UPDATE_SCREENSHOTS=1): a test run leaves the tree clean. */
export function toDocs(shot: string, name: string): void {
  if (process.env['UPDATE_SCREENSHOTS'] !== '1') return;
  mkdirSync(DOCS, { recursive: true });
  copyFileSync(shot, `${DOCS}${name}.png`);
}

/** One element's screenshot (a panel of a long page). */
export async function screenshotOf(element: Locator, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = `${SCREENSHOTS}${name}.png`;
  await element.screenshot({ path });
  return path;
}

/** Collects page errors and console errors, so a test can assert the page stayed healthy. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return errors;
}

/** Opens `url` in a new page `width` px wide whose errors go to `errors` (one list per page). */
export async function openPage(
  context: BrowserContext,
  url: string,
  width: number,
  errors: string[][],
): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize({ width, height: 900 });
  errors.push(watchErrors(page));
  await page.goto(url);
  return page;
}

/**
 * Evaluated in a page: the visible buttons, inputs, selects and text areas with no label (no
 * aria-label, aria-labelledby, <label> or, for buttons, text). A string, so tests need no DOM types.
 */
export const UNLABELLED_CONTROLS = `(() => [...document.querySelectorAll('button, input, select, textarea')]
  .filter((el) => el.offsetParent !== null)
  .filter((el) => !(el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || (el.labels && el.labels.length) || (el.tagName === 'BUTTON' && el.textContent.trim())))
  .map((el) => el.outerHTML.slice(0, 120)))()`;
