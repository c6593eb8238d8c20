// Hand mode end to end in headless Chromium for the algorithms test/e2e/e2e-hand-mode.test.ts does
// not play (docs/RUN_A_CLASS.md): the active-list ring (001), Anthony 2004's emergent election
// and Raft's term-based election. In each lab of six bots her tab is one process; nothing leaves it until she clicks,
// she plays her part in a real election after the coordinator crashes, the lab agrees and the
// coach leaves her correct moves unmarked, while one wrong move is marked with the rule the coach
// uses for that algorithm (shared/coach/rules.ts). Emergent (003, "Operation i"): only the slave
// pool elects, so an idle learns the new master from its heartbeat; answering the master as a
// slave while the pool is full is marked `reference.send`. Raft (Ongaro and Ousterhout 2014,
// §5.2): she grants the candidate her one vote of the term and follows the winner; declaring
// herself leader without a majority is marked `reference.belief`. Active list (001): she
// forwards Elect(j) for every j (the first with her own Elect, 001 (a)) and, when her own Elect
// comes back, sends Elected(max); a declaration before that is marked `ring.complete`.
// The relay's own coach journals exactly the marks her tab shows. Screenshots at 1,400 px; the tab
// fits a 390 px phone.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot, toDocs, UNLABELLED_CONTROLS } from '../helpers/browser.ts';
import { handLab } from '../helpers/hand-lab.ts';
import { sleep } from '../helpers/relay-harness.ts';

const TOKEN = 'hand-more-token';
// T = 1 s, M = 50 ms: UB = 2.05 s for each of her answers, time enough for scripted clicks on a
// busy machine; the link itself delivers in 20 ms, so the bots' elections stay quick.
const TIMING = {
  transmission: 1000,
  processing: 50,
  heartbeatInterval: 200,
  heartbeatTimeout: 1200,
};
const UB = 2 * TIMING.transmission + TIMING.processing;
// A whole round of Elects reaches her at once and each needs her answer within UB: 5.05 s here.
// With T = 1.5 s (UB 3.05 s) a loaded 2-core machine clicked her Elected past UB now and then,
// and the coach rightly marked it (ring.circulate): the test's clicks, not the rule, were slow.
const RING_TIMING = { ...TIMING, transmission: 2500 };
const RING_UB = 2 * RING_TIMING.transmission + RING_TIMING.processing;
// Raft grants no vote for one maximum election timeout (2 x heartbeatTimeout) after a fresh start.
const RAFT_QUIET = 2 * TIMING.heartbeatTimeout;

const h = handLab('election-lab-hand-more-', TOKEN);
const { api, until, trace, sendsFrom, lastSeq, agree, marks, openTab } = h;
/** A lab of seven ids, the bots on every id but hers; `start` runs once the bots are in (Raft's first election). */
const makeLab = (
  name: string,
  algorithm: string,
  detector: string,
  bots: number[],
  start?: () => Promise<void>,
  timing = TIMING,
) => h.makeLab(name, algorithm, detector, bots, timing, start);
const offers = (page: Page, prefix: string) => page.locator(`[data-testid^="offer-${prefix}"]`);
/**
 * Clicks the oldest open offer whose test id starts with `prefix`; false when there is none. The
 * queue lists the newest first; she answers in the order messages came, as a ring's hops must go
 * (an Elect(j) forwarded ahead of the one before it reaches j with a shorter list).
 */
async function clickOffer(page: Page, prefix: string): Promise<boolean> {
  const offer = offers(page, prefix).last();
  if ((await offer.count()) === 0) return false;
  // Newer messages push the list while she aims; a click that did not land is retried by the caller.
  return offer.click({ timeout: 2000 }).then(
    () => true,
    () => false,
  );
}
/** The marks' texts, so that a failing expectation says what the coach saw. */
const markTexts = async (page: Page) => (await marks(page).allInnerTexts()).join(' | ');
async function believe(page: Page, id: number): Promise<void> {
  await page.getByTestId('believe-select').selectOption(String(id));
  await page.getByTestId('believe').click();
}
/**
 * 7 crashes and `elector` is asked to elect; once `offer` reaches her, nothing has left her tab
 * (`self`) since the crash: she has not clicked. Returns the trace's last seq before the crash.
 */
async function crashThenElect(
  page: Page,
  lab: string,
  elector: number,
  offer: string,
  self: number,
): Promise<number> {
  const crashed = await lastSeq(lab);
  expect((await api('POST', `/api/labs/${lab}/processes/7/crash`)).status).toBe(200);
  expect((await api('POST', `/api/labs/${lab}/processes/${elector}/elect`)).status).toBe(200);
  await offers(page, offer).first().waitFor({ timeout: 10_000 });
  await sleep(300);
  expect(sendsFrom(await trace(lab), self, crashed)).toEqual([]);
  return crashed;
}
/** She declares herself though 6 won: the coach marks it with `rule`; she believes 6 again and the lab agrees. */
async function declareIsMarked(page: Page, lab: string, rule: string): Promise<void> {
  await page.getByTestId('move-declare').click();
  await marks(page).first().waitFor({ timeout: 10_000 });
  expect(await marks(page).first().getAttribute('data-rule')).toBe(rule);
  await believe(page, 6);
  await until(() => agree(lab, 6, 6), 10_000, `${lab}: the lab agrees on 6 again`);
}
/** The relay's own coach (server/lab/hand-audit.ts) journals the same marks as her tab shows. */
async function relayAgrees(page: Page, lab: string, self: number): Promise<void> {
  const tab = async () =>
    (await marks(page).evaluateAll((lis) => lis.map((li) => li.getAttribute('data-rule') ?? '')))
      .sort()
      .join(',');
  const relay = async () =>
    (await trace(lab))
      .flatMap((e) => (e.kind === 'deviation' && e.node === self ? [e.rule] : []))
      .sort()
      .join(',');
  await until(
    async () => (await relay()) === (await tab()),
    5000,
    `${lab}: the relay's marks and her tab's agree`,
  );
}
/** Screenshot at 1,400 px, then the phone's width: nothing wider than the screen. */
async function shoot(page: Page, name: string): Promise<void> {
  toDocs(await screenshot(page, name), name);
  expect(await page.evaluate(UNLABELLED_CONTROLS)).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => page.evaluate('document.documentElement.scrollWidth'), { timeout: 10_000 })
    .toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1400, height: 1000 });
}

describe('hand mode: the other algorithms', () => {
  it('active-list ring: she forwards every Elect(j) and sends Elected(max) when her own Elect comes back; the ring agrees; the coach marks none of it; declaring before that is marked', async () => {
    const lab = 'hand-active-ring';
    await makeLab(lab, 'ring-active-list', 'none', [1, 2, 4, 5, 6, 7], undefined, RING_TIMING);
    const { page, errors } = await openTab(lab, 3);
    await sleep(300);
    expect(sendsFrom(await trace(lab), 3)).toEqual([]);

    /** She answers what reaches her with the kit's 001 offers, oldest first, until the ring agrees on `leader` and nothing waits. */
    const play = async (leader: number, live: number, what: string) => {
      for (let i = 0; i < 120; i++) {
        const clicked =
          (await clickOffer(page, 'fwd-')) ||
          (await clickOffer(page, 'elected-')) ||
          (await clickOffer(page, 'believe-')) ||
          (await clickOffer(page, 'ack-'));
        if (!clicked && (await offers(page, '').count()) === 0 && (await agree(lab, leader, live)))
          return;
        await sleep(clicked ? 50 : 200);
      }
      throw new Error(
        `${what}: the ring did not agree on ${leader}; marks: ${await markTexts(page)}`,
      );
    };
    // 001, on detection: "sends Elect(i)": her start election, by hand; the ring elects anew.
    await page.getByTestId('move-elect').click();
    await play(7, 7, 'her start election');

    // 7 crashes and 2 detects it: Elect(2) reaches her, and nothing leaves her tab until she clicks.
    const crashed = await crashThenElect(page, lab, 2, 'fwd-4', 3);
    await play(6, 6, 'the election after 7 crashed');
    const hers = sendsFrom(await trace(lab), 3, crashed).map((e) =>
      e.kind === 'send' ? `${e.type}->${e.to}` : '',
    );
    expect(hers).toContain('ELECTED->4');
    expect(hers.filter((x) => x === 'ELECT->4').length).toBeGreaterThanOrEqual(2);
    // 001 (b): forwarding is right, and so is Elected(6) once her own Elect came back.
    await sleep(RING_UB + 600);
    expect(await markTexts(page)).toBe('');
    await shoot(page, 'hand-active-ring');

    // 001 (c): only the process whose own Elect came back chooses the highest id: declaring now is marked.
    await declareIsMarked(page, lab, 'ring.complete');
    await relayAgrees(page, lab, 3);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('emergent: only the slave pool elects (003); idle, she learns the new master from its heartbeat and the lab agrees; joining the pool while it is full is marked', async () => {
    const lab = 'hand-emergent';
    await makeLab(lab, 'emergent', 'heartbeat', [2, 3, 4, 5, 6, 7]);
    const { page, errors } = await openTab(lab, 1);
    // 003's heartbeats are the algorithm's own messages: no toggle sends them for her.
    expect(await page.getByTestId('auto-beat').count()).toBe(0);
    expect(await page.getByTestId('own-heartbeats').isVisible()).toBe(true);
    await offers(page, 'follow-7').first().waitFor({ timeout: 10_000 });
    await sleep(300);
    expect(sendsFrom(await trace(lab), 1)).toEqual([]);
    // 003, "Normal States": the master's heartbeat names it; an idle follows it and sends nothing.
    await clickOffer(page, 'follow-7');
    await until(() => agree(lab, 7, 7), 10_000, 'the lab agrees on 7');

    // The master crashes: the pool's candidates elect the highest of them; she hears its heartbeat.
    const crashed = await lastSeq(lab);
    expect((await api('POST', `/api/labs/${lab}/processes/7/crash`)).status).toBe(200);
    await offers(page, 'follow-6').first().waitFor({ timeout: 15_000 });
    expect(await offers(page, 'abort-').count()).toBe(0); // no CANDIDATE reaches an idle
    expect(sendsFrom(await trace(lab), 1, crashed)).toEqual([]);
    await clickOffer(page, 'follow-6');
    await until(() => agree(lab, 6, 6), 10_000, 'the lab agrees on 6');
    await sleep(UB + 600);
    expect(await markTexts(page)).toBe('');
    expect(await page.getByTestId('no-deviations').count()).toBe(1);
    await shoot(page, 'hand-emergent');

    // 003, "Operation ii": an idle joins the pool only while it sees fewer than poolMin slaves;
    // a slave heartbeat now is a send the reference does not make.
    await page.getByTestId('move-pool-beat').click();
    await marks(page)
      .first()
      .waitFor({ timeout: UB + 3000 });
    expect(await marks(page).first().getAttribute('data-rule')).toBe('reference.send');
    expect(await marks(page).first().innerText()).toMatch(/sent SLAVE_HEARTBEAT to \d/);
    await until(() => agree(lab, 6, 6), 10_000, 'the lab still agrees on 6');
    await relayAgrees(page, lab, 1);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('raft: she grants the candidate her one vote of the term and follows the winner; the lab agrees; declaring herself leader without a majority is marked', async () => {
    const lab = 'hand-raft';
    // With no failure detector Raft's followers never time out: elections start only when asked.
    await makeLab(lab, 'raft', 'none', [1, 2, 3, 4, 6, 7], async () => {
      expect((await api('POST', `/api/labs/${lab}/processes/7/elect`)).status).toBe(200);
    });
    const { page, errors } = await openTab(lab, 5);
    const opened = Date.now();
    await sleep(300);
    expect(sendsFrom(await trace(lab), 5)).toEqual([]);

    // The leader crashes and 6 campaigns once her tab's quiet period is over (a freshly started
    // process grants no vote for one maximum election timeout).
    await sleep(Math.max(0, opened + RAFT_QUIET + 200 - Date.now()));
    const crashed = await crashThenElect(page, lab, 6, 'vote-6', 5);
    // §5.2: "each server will vote for at most one candidate in a given term, first-come-first-served".
    await clickOffer(page, 'vote-6');
    // The winner's heartbeat: she follows it.
    await offers(page, 'follow-6').first().waitFor({ timeout: 10_000 });
    await clickOffer(page, 'follow-6');
    await until(() => agree(lab, 6, 6), 10_000, 'the lab agrees on 6');
    const hers = sendsFrom(await trace(lab), 5, crashed);
    expect(hers.map((e) => (e.kind === 'send' ? `${e.type}->${e.to}` : ''))).toEqual(['VOTE->6']);
    await sleep(UB + 600);
    expect(await markTexts(page)).toBe('');
    expect(await page.getByTestId('no-deviations').count()).toBe(1);
    await shoot(page, 'hand-raft');

    // §5.2: a candidate becomes leader only with votes from a majority: declaring herself is marked.
    await declareIsMarked(page, lab, 'reference.belief');
    await relayAgrees(page, lab, 5);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
