// Issue 15 in a browser: two relays on one Redis, the built app served by both. A home page
// opened on B lists a lab created on A as soon as it exists (`labs-changed` through socket.io's
// Redis streams adapter, not the 15 s poll), and opening that lab's dashboard from B lands on
// A, the owner, showing the lab's processes.
import { afterAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { nodeChannel } from '@shared/lab-client/node-channel.ts';
import { launchBrowser, screenshot, watchErrors } from '../helpers/browser.ts';
import { ensureClientBuild } from '../helpers/client-build.ts';
import { startCluster, type ClusterHarness } from '../helpers/cluster-harness.ts';

let cluster: ClusterHarness | undefined;
let browser: Browser | undefined;
let fleet: BotFleet | undefined;
afterAll(async () => {
  fleet?.stop();
  await browser?.close();
  await cluster?.close();
});

describe('a clustered relay in the browser', () => {
  it('lists a lab made on another relay at once and sends its dashboard to the owner', async () => {
    await ensureClientBuild();
    cluster = await startCluster(2, 1500);
    const [a, b] = cluster.relays as [(typeof cluster.relays)[0], (typeof cluster.relays)[0]];
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(`${b.url}/`);
    await page.getByRole('cell', { name: 'demo', exact: true }).waitFor({ timeout: 10_000 });

    const created = await cluster.api(a.url, 'POST', '/api/labs', {
      name: 'onA',
      size: 4,
      algorithm: 'bully',
    });
    expect(created.status).toBe(201);
    // Well under the page's 15 s poll: the push made it.
    await page.getByRole('cell', { name: 'onA', exact: true }).waitFor({ timeout: 4000 });
    // Every lab of every relay, with the relay that runs it.
    await page.getByRole('heading', { name: 'Labs on these relays' }).waitFor({ timeout: 10_000 });
    await page
      .getByRole('row', { name: /onA/ })
      .getByRole('cell', { name: 'A', exact: true })
      .waitFor({ timeout: 10_000 });
    await screenshot(page, 'cluster-home');

    fleet = new BotFleet({
      lab: 'onA',
      count: 4,
      channel: () => nodeChannel(b.url, 'ws'),
      follow: (u) => nodeChannel(u, 'ws'),
      relays: [a.url, b.url],
    });
    await fleet.start();
    await page.getByRole('row', { name: /onA/ }).getByRole('link', { name: 'dashboard' }).click();
    await page.waitForURL(`${a.url}/lab/onA`, { timeout: 10_000 });
    await page.getByText('onA').first().waitFor({ timeout: 10_000 });
    await screenshot(page, 'cluster-dashboard-on-owner');
    expect(errors.filter((e) => !/WebSocket|ERR_CONNECTION|socket\.io/i.test(e))).toEqual([]);
  }, 60_000);
});
