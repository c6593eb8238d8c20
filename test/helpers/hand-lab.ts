// The browser tests of hand mode share this: a served relay and one Chromium desk for the file,
// a lab of seven ids with bots on every id but hers, her tab, and what the lab's trace and stats
// say (who sent what, who believes whom). Registers the file's beforeAll and afterAll.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Timing } from '@shared/algorithms/algorithm.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import type { Relay } from '../../server/relay.ts';
import { watchErrors } from './browser.ts';
import { parseTrace, waitFor } from './relay-harness.ts';
import { startServedLab, stopServedLab, type Api } from './served-relay.ts';

export const HAND_IDS = [1, 2, 3, 4, 5, 6, 7];

export function handLab(prefix: string, token: string) {
  const s = {} as {
    relay: Relay;
    base: string;
    dataDir: string;
    api: Api;
    browser: Browser;
    desk: BrowserContext;
  };
  beforeAll(async () => {
    const lab = await startServedLab(prefix, token, { viewport: { width: 1400, height: 1000 } });
    Object.assign(s, lab, { desk: lab.context });
  }, 180_000);
  afterAll(() => stopServedLab({ ...s, context: s.desk }));

  const api: Api = (method, path, body) => s.api(method, path, body);
  /** The served relay's API, polled every 100 ms (relay-harness's `waitFor`). */
  const until = (cond: () => Promise<boolean>, ms: number, what: string) =>
    waitFor(cond, ms, what, 100);
  async function trace(lab: string): Promise<TraceEvent[]> {
    return parseTrace(await (await api('GET', `/api/labs/${lab}/trace`)).text());
  }
  const sendsFrom = (events: TraceEvent[], id: number, after = -1) =>
    events.filter((e) => e.kind === 'send' && e.from === id && e.seq > after);
  const lastSeq = async (lab: string) => (await trace(lab)).at(-1)?.seq ?? -1;
  const coordinators = async (lab: string) =>
    (
      (await (await api('GET', `/api/labs/${lab}/stats`)).json()) as {
        coordinators: Record<string, number>;
      }
    ).coordinators;
  /** Every live process believes `leader`, and `live` of them do. */
  async function agree(lab: string, leader: number, live: number): Promise<boolean> {
    const c = await coordinators(lab);
    return Object.keys(c).length === 1 && c[String(leader)] === live;
  }
  /** A lab of HAND_IDS, bots on `bots`; `start` runs once they are in (Raft's first election); then they agree on 7. */
  async function makeLab(
    name: string,
    algorithm: string,
    detector: string,
    bots: number[],
    timing: Partial<Timing>,
    start?: () => Promise<void>,
  ): Promise<void> {
    expect(
      (
        await api('POST', '/api/labs', {
          name,
          algorithm,
          ids: HAND_IDS,
          timing,
          detector,
          fabric: { link: { delay: 20 } },
        })
      ).status,
    ).toBe(201);
    expect(
      (await api('POST', `/api/labs/${name}/bots`, { count: bots.length, ids: bots })).status,
    ).toBe(201);
    await start?.();
    await until(() => agree(name, 7, 6), 20_000, `${name}: the bots agree on 7`);
  }
  const marks = (page: Page) => page.getByTestId('deviations').locator('li');
  /** Her tab as process `id`, in hand mode unless `query` says otherwise, once its start is queued. */
  async function openTab(
    lab: string,
    id: number,
    query = 'mode=hand&',
  ): Promise<{ page: Page; errors: string[] }> {
    const page = await s.desk.newPage();
    const errors = watchErrors(page);
    await page.goto(`${s.base}/lab/${lab}/process/${id}?${query}name=Ada`);
    await page.getByText('You are the process.').waitFor({ timeout: 10_000 });
    // Her first item (the start election's call): open, or folded away among the answered ones.
    await page
      .getByText(/started: the documents say a process holds an election/)
      .waitFor({ state: 'attached', timeout: 10_000 });
    return { page, errors };
  }

  return {
    api,
    get base(): string {
      return s.base;
    },
    get desk(): BrowserContext {
      return s.desk;
    },
    until,
    trace,
    sendsFrom,
    lastSeq,
    agree,
    makeLab,
    marks,
    openTab,
  };
}
