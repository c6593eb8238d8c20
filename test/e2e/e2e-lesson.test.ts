// Issue 28 in headless Chromium: phone-sized students answer a lesson's question on their process
// pages, the instructor locks, runs and reveals from her panel, and the projector shows the
// class's histogram with the measured value marked (000 Figure 6-20: process 6 wins).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Relay } from '../../server/relay.ts';
import { screenshot, screenshotOf, toDocs, watchErrors } from '../helpers/browser.ts';
import { startServedLab, stopServedLab, type Api } from '../helpers/served-relay.ts';

const TOKEN = 'lesson-token';
const LAB = 'lesson';
/** Each student's answer: three say 6 (right), one says 7. */
const ANSWERS = [6, 7, 6, 6];

let relay: Relay;
let base: string;
let dataDir: string;
let api: Api;
let browser: Browser;

beforeAll(async () => {
  ({ relay, base, dataDir, api, browser } = await startServedLab('election-lab-lesson-', TOKEN));
  expect(
    (await api('POST', '/api/labs', { name: LAB, algorithm: 'bully', size: 8, detector: 'none' }))
      .status,
  ).toBe(201);
}, 180_000);

afterAll(async () => {
  await stopServedLab({ relay, dataDir, browser });
});

const phase = (page: Page) => page.getByTestId('lesson-phase').textContent();

describe('a lesson in class', () => {
  it('students answer on phones, the instructor locks, runs and reveals, the projector shows the histogram', async () => {
    const desk = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const instructor = await desk.newPage();
    const errors = watchErrors(instructor);
    await instructor.goto(`${base}/lab/${LAB}/instructor?token=${TOKEN}`);
    await instructor
      .getByTestId('lesson-pick')
      .locator('option', { hasText: 'Figure 6-20' })
      .waitFor({ state: 'attached', timeout: 15_000 });
    await instructor.getByTestId('lesson-pick').selectOption('bully-figure-6-20');
    await instructor.getByTestId('lesson-begin').click();
    await expect.poll(() => phase(instructor), { timeout: 10_000 }).toBe('ready');
    await instructor.getByTestId('lesson-start').click();
    await expect.poll(() => phase(instructor), { timeout: 10_000 }).toBe('open');

    const projector = await desk.newPage();
    await projector.goto(`${base}/lab/${LAB}/projector`);
    await projector.getByTestId('lesson-board').waitFor({ timeout: 15_000 });

    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
    });
    const students: Page[] = [];
    for (const [i, value] of ANSWERS.entries()) {
      const s = await phone.newPage();
      errors.push(...watchErrors(s));
      await s.goto(`${base}/lab/${LAB}/process/new?name=S${i + 1}`);
      await s.getByTestId('process-id').filter({ hasText: /^\d+$/ }).waitFor({ timeout: 15_000 });
      // A first thought, then her answer: only the last one counts.
      await s.locator('[data-answer="5"]').click({ timeout: 15_000 });
      await expect
        .poll(() => s.getByTestId('answer-state').textContent(), { timeout: 10_000 })
        .toContain('Your answer: process 5');
      await s.locator(`[data-answer="${value}"]`).click();
      await expect
        .poll(() => s.getByTestId('answer-state').textContent(), { timeout: 10_000 })
        .toContain(`Your answer: process ${value}`);
      students.push(s);
    }
    expect(
      await students[0]!.evaluate<number>('document.documentElement.scrollWidth'),
    ).toBeLessThanOrEqual(390);
    toDocs(await screenshot(students[0]!, 'lesson-question-390'), 'lesson-question-390');
    await expect
      .poll(() => projector.getByTestId('board-answered').textContent(), { timeout: 10_000 })
      .toBe(`${ANSWERS.length} answered`);
    // Before the reveal the class sees a count only, no bars.
    expect(await projector.getByTestId('answer-bar').count()).toBe(0);
    // The question's 60 s count down on the projector (lessons/bully-figure-6-20.json, step 1).
    const clockText = () => projector.getByTestId('board-clock').textContent();
    await expect.poll(clockText, { timeout: 10_000 }).toMatch(/^0:[0-5]\d left$/);
    const before = Number(/0:(\d\d)/.exec((await clockText())!)![1]);
    await expect
      .poll(async () => Number(/0:(\d\d)/.exec((await clockText()) ?? '')?.[1] ?? 99), {
        timeout: 10_000,
      })
      .toBeLessThan(before);
    toDocs(await screenshot(projector, 'lesson-projector-open-1400'), 'lesson-projector-open-1400');
    const projectorPhoneOpen = await phone.newPage();
    await projectorPhoneOpen.goto(`${base}/lab/${LAB}/projector`);
    await projectorPhoneOpen.getByTestId('board-clock').waitFor({ timeout: 15_000 });
    toDocs(
      await screenshot(projectorPhoneOpen, 'lesson-projector-open-390'),
      'lesson-projector-open-390',
    );
    await projectorPhoneOpen.close();

    // The join page (the QR code's link) shows the open question and its clock before she joins; answering needs joining.
    const code = ((await (await api('GET', `/api/labs/${LAB}`)).json()) as { joinCode: string })
      .joinCode;
    for (const [context, size] of [
      [phone, 390],
      [desk, 1400],
    ] as const) {
      const joiner = await context.newPage();
      errors.push(...watchErrors(joiner));
      await joiner.goto(`${base}/join/${code}`);
      const card = joiner.getByTestId('question-card');
      await card.waitFor({ timeout: 15_000 });
      expect(await card.textContent()).toContain('Which process becomes coordinator?');
      await expect
        .poll(() => joiner.getByTestId('question-clock').textContent(), { timeout: 10_000 })
        .toMatch(/^0:[0-5]\d left$/);
      expect(await joiner.getByTestId('answer-state').textContent()).toContain(
        'Join the lab to answer',
      );
      expect(await joiner.locator('[data-answer="6"]').isDisabled()).toBe(true);
      toDocs(await screenshot(joiner, `lesson-join-${size}`), `lesson-join-${size}`);
      await joiner.close();
    }
    await expect
      .poll(() => students[0]!.getByTestId('question-clock').textContent(), { timeout: 10_000 })
      .toMatch(/left$/);

    for (const [action, next] of [
      ['lock', 'locked'],
      ['run', 'ran'],
      ['reveal', 'revealed'],
    ] as const) {
      await instructor.getByTestId(`lesson-${action}`).click();
      // Run drives the live lab: it settles (server bots fill the free ids), then runs the step.
      await expect
        .poll(() => phase(instructor), { timeout: action === 'run' ? 30_000 : 10_000 })
        .toBe(next);
    }
    await expect
      .poll(() => instructor.getByTestId('lesson-measured').textContent(), { timeout: 10_000 })
      .toContain('Measured: 6');
    toDocs(await screenshot(instructor, 'lesson-instructor-1400'), 'lesson-instructor-1400');
    // The class board: each student's revealed answer counted, and correct for the three who said 6.
    const board = instructor.getByTestId('class-board');
    const correctCells = board.getByTestId('board-correct');
    await expect
      .poll(async () => (await correctCells.allTextContents()).sort().join(','), {
        timeout: 15_000,
      })
      .toBe('0,1,1,1');
    expect((await board.locator('td[data-col="answers"]').allTextContents()).sort().join(',')).toBe(
      '1,1,1,1',
    );
    toDocs(await screenshotOf(board, 'class-board-lesson-1400'), 'class-board-lesson-1400');

    // The projector: one bar per id, 6 marked as measured with its three answers, 7 with one.
    await expect
      .poll(() => projector.getByTestId('measured-mark').count(), { timeout: 10_000 })
      .toBe(1);
    const bar = (v: number) => projector.locator(`[data-testid="answer-bar"][data-value="${v}"]`);
    expect(await projector.getByTestId('answer-bar').count()).toBe(8);
    expect(await bar(6).locator('.count').textContent()).toBe('3');
    expect(await bar(7).locator('.count').textContent()).toBe('1');
    expect(await bar(5).locator('.count').textContent()).toBe('0');
    expect(await bar(6).getByTestId('measured-mark').count()).toBe(1);
    // Bars share one scale: 3 answers draw three times as long as 1 (the mark takes no length from its row).
    const width = async (v: number) => (await bar(v).locator('.bar').boundingBox())!.width;
    expect((await width(6)) / (await width(7))).toBeGreaterThan(2.8);
    expect((await width(6)) / (await width(7))).toBeLessThan(3.2);
    expect(await projector.getByTestId('board-measured').textContent()).toContain(
      '75% of the class right',
    );
    toDocs(
      await screenshot(projector, 'lesson-projector-reveal-1400'),
      'lesson-projector-reveal-1400',
    );
    // The run itself, in replay: the simulator's trace of this step.
    const replay = await desk.newPage();
    await replay.goto(`${base}/lab/${LAB}/projector`);
    await replay.getByTestId('lesson-replay').click({ timeout: 15_000 });
    await expect
      .poll(() => replay.locator('h1').textContent(), { timeout: 15_000 })
      .toContain("the lesson's run (lesson)");
    await replay.getByTestId('replay-summary').waitFor({ timeout: 15_000 });
    const projectorPhone = await phone.newPage();
    await projectorPhone.goto(`${base}/lab/${LAB}/projector`);
    await projectorPhone.getByTestId('measured-mark').waitFor({ timeout: 15_000 });
    toDocs(
      await screenshot(projectorPhone, 'lesson-projector-reveal-390'),
      'lesson-projector-reveal-390',
    );

    // Each student sees the result against her own answer.
    await expect
      .poll(() => students[0]!.getByTestId('answer-state').textContent(), { timeout: 10_000 })
      .toMatch(/Measured: process 6 · you said process 6 ✓/);
    await expect
      .poll(() => students[1]!.getByTestId('answer-state').textContent(), { timeout: 10_000 })
      .toMatch(/you said process 7 ✗/);
    toDocs(await screenshot(students[1]!, 'lesson-reveal-390'), 'lesson-reveal-390');

    const instructorPhone = await phone.newPage();
    await instructorPhone.goto(`${base}/lab/${LAB}/instructor?token=${TOKEN}`);
    await instructorPhone.getByTestId('lesson-measured').waitFor({ timeout: 15_000 });
    expect(
      await instructorPhone.evaluate<number>('document.documentElement.scrollWidth'),
    ).toBeLessThanOrEqual(390);
    const phoneBoard = instructorPhone.getByTestId('class-board');
    await expect
      .poll(
        async () =>
          (await phoneBoard.getByTestId('board-correct').allTextContents()).sort().join(','),
        { timeout: 15_000 },
      )
      .toBe('0,1,1,1');
    toDocs(await screenshotOf(phoneBoard, 'class-board-lesson-390'), 'class-board-lesson-390');
    // The page is long at 390 px: the lesson's card alone.
    toDocs(
      await screenshotOf(
        instructorPhone.locator('section', { has: instructorPhone.locator('#lesson-title') }),
        'lesson-instructor-390',
      ),
      'lesson-instructor-390',
    );
    expect(errors).toEqual([]);
    await desk.close();
    await phone.close();
  }, 180_000);
});
