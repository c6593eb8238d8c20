// The challenge page driven as a student would (the browser tests): her schedule of faults typed
// into the editor, row by row.
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Challenge, Schedule } from '@shared/challenges/challenge-schema.ts';
import { searchSolution } from '@shared/challenges/challenge-search.ts';
import type { Api } from './served-relay.ts';

/**
 * A lab of `algorithm` with `size` ids on the served relay, and the shipped challenge `id` with a
 * schedule that breaks it: found by search, never written in a test.
 */
export async function challengeLab(
  api: Api,
  lab: { name: string; algorithm: string; size: number },
  id: string,
): Promise<{ challenge: Challenge; solution: Schedule }> {
  expect((await api('POST', '/api/labs', lab)).status).toBe(201);
  const list = (await (await api('GET', '/api/challenges')).json()) as { challenges: Challenge[] };
  const challenge = list.challenges.find((c) => c.id === id)!;
  return { challenge, solution: searchSolution(challenge)! };
}

/** Types the schedule into the editor, row by row, as a student would. */
export async function buildSchedule(page: Page, s: Schedule): Promise<void> {
  let row = 0;
  const at = (i: number) => page.getByTestId(`fault-${i}`).locator('input[type="number"]').first();
  for (const l of s.links ?? []) {
    await page.getByTestId('add-link').click();
    await page.getByTestId(`fault-${row}-from`).selectOption(String(l.from));
    await page.getByTestId(`fault-${row}-to`).selectOption(String(l.to));
    await at(row).fill(String(l.at));
    row++;
  }
  for (const c of s.crash ?? []) {
    await page.getByTestId('add-crash').click();
    await page.getByTestId(`fault-${row}-id`).selectOption(String(c.id));
    await at(row).fill(String(c.at));
    row++;
  }
  for (const p of s.partition ?? []) {
    await page.getByTestId('add-partition').click();
    await page
      .getByTestId(`fault-${row}-groups`)
      .fill(p.groups?.map((g) => g.join(' ')).join(' | ') ?? '');
    await at(row).fill(String(p.at));
    row++;
  }
}
