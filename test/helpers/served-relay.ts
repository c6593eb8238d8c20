// The browser tests' relay: the real server on 127.0.0.1 (port 0) serving the built app, with a
// throwaway data folder, and a fetch helper that carries the instructor token; with a headless
// browser and a context, every browser test's stage (startServedLab).
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRelay, type Relay } from '../../server/relay.ts';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { launchBrowser } from './browser.ts';
import { CLIENT_DIST, ensureClientBuild } from './client-build.ts';

export type Api = (method: string, path: string, body?: unknown) => Promise<Response>;

export async function startServedRelay(
  prefix: string,
  token: string,
): Promise<{ relay: Relay; base: string; dataDir: string; api: Api }> {
  await ensureClientBuild();
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const relay = await createRelay({ dataDir, token, clientDir: CLIENT_DIST, onError: () => {} });
  await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(relay.server.address() as AddressInfo).port}`;
  const api: Api = (method, path, body) =>
    fetch(base + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { relay, base, dataDir, api };
}

/** Closes the relay and removes its data folder (either may be missing if setup failed). */
export async function stopServedRelay(
  relay: Relay | undefined,
  dataDir: string | undefined,
): Promise<void> {
  await relay?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}

/** A browser test's whole stage: the served relay, headless Chromium and one context in it. */
export interface ServedLab {
  relay: Relay;
  base: string;
  dataDir: string;
  api: Api;
  browser: Browser;
  context: BrowserContext;
}

/** The served relay, the browser and one context (`context`: its options); stopped again if any part fails. */
export async function startServedLab(
  prefix: string,
  token: string,
  context: BrowserContextOptions = {},
): Promise<ServedLab> {
  const served = await startServedRelay(prefix, token);
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    return { ...served, browser, context: await browser.newContext(context) };
  } catch (e) {
    await browser?.close();
    await stopServedRelay(served.relay, served.dataDir);
    throw e;
  }
}

/** Closes what `startServedLab` made, whichever parts exist. */
export async function stopServedLab(lab: Partial<ServedLab>): Promise<void> {
  await lab.context?.close();
  await lab.browser?.close();
  await stopServedRelay(lab.relay, lab.dataDir);
}
