// The dashboard under load, in real headless Chromium: 200 processes (bots) in one Raft lab whose
// leader heartbeats every 100 ms, so about 4,000 messages a second cross the relay (HEARTBEAT
// and replies), and then a leader crash and a 200-process election. The page must keep
// animating (requestAnimationFrame keeps firing, no long stall) and keep up with the lab.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Relay } from '../../server/relay.ts';
import { screenshot, watchErrors } from '../helpers/browser.ts';
import { startServedLab, stopServedLab } from '../helpers/served-relay.ts';

const TOKEN = 'load-token';
const LAB = 'big';
const N = 200;

let relay: Relay;
let base: string;
let dataDir: string;
let browser: Browser;

beforeAll(async () => {
  ({ relay, base, dataDir, browser } = await startServedLab('election-lab-load-', TOKEN));
  const res = await fetch(`${base}/api/labs`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      name: LAB,
      algorithm: 'raft',
      size: N,
      timing: { transmission: 100, processing: 10, heartbeatInterval: 100, heartbeatTimeout: 1500 },
      fabric: { link: { delay: 20, jitter: 10 } },
    }),
  });
  expect(res.status).toBe(201);
  // The relay's own bots (POST /api/labs/:lab/bots), as the instructor adds them.
  const added = await fetch(`${base}/api/labs/${LAB}/bots`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ count: N }),
  });
  expect(added.status).toBe(201);
}, 240_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser });
});

/** Frame gaps (ms) over `ms` of animation, measured in the page (a string: this file has no DOM types). */
async function frameGaps(page: Page, ms: number): Promise<number[]> {
  return page.evaluate(`new Promise((resolve) => {
    const gaps = [];
    let last = performance.now();
    const end = last + ${ms};
    const tick = (now) => {
      gaps.push(now - last);
      last = now;
      if (now < end) requestAnimationFrame(tick);
      else resolve(gaps);
    };
    requestAnimationFrame(tick);
  })`) as Promise<number[]>;
}

describe('dashboard at 200 processes', () => {
  it('keeps animating at thousands of messages a second and through a 200-process election', async () => {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto(`${base}/lab/${LAB}`);
    const agreed = (up: number) => new RegExp(`^coordinator (\\d+) \\(${up} of ${up}\\)$`);
    await expect
      .poll(() => page.getByTestId('consensus').textContent(), { timeout: 60_000 })
      .toMatch(agreed(N));
    const leader = Number(agreed(N).exec((await page.getByTestId('consensus').textContent())!)![1]);
    const steady = await frameGaps(page, 3000);
    await screenshot(page, 'dashboard-200-steady');

    const crash = await fetch(`${base}/api/labs/${LAB}/processes/${leader}/crash`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(crash.status).toBe(200);
    const gaps = [...steady, ...(await frameGaps(page, 4000))];
    const stats = (await (await fetch(`${base}/api/labs/${LAB}/stats`)).json()) as {
      messages: { sent: number };
    };
    const sorted = [...gaps].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const p95 = sorted[Math.floor(sorted.length * 0.95)]!;
    const worst = sorted[sorted.length - 1]!;
    console.log(
      `frames: ${gaps.length} in 7 s, median gap ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, worst ${worst.toFixed(1)} ms; relay messages so far ${stats.messages.sent}`,
    );
    await screenshot(page, 'dashboard-200-election');
    // Smooth enough to watch on a shared CI machine: most frames on time, rare hitches, and the
    // page never froze (it measured 16.7 ms median, p95 under 100 ms, worst 300-600 ms here).
    expect(median).toBeLessThan(50);
    expect(p95).toBeLessThan(200);
    expect(worst).toBeLessThan(1500);
    await expect
      .poll(() => page.getByTestId('consensus').textContent(), { timeout: 60_000 })
      .toMatch(agreed(N - 1));
    await screenshot(page, 'dashboard-200-after');
    expect(errors).toEqual([]);
  }, 180_000);
});
