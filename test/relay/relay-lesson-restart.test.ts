// Issue 28, a lesson on disk: the lesson's step, phase, measured value and the class's answers
// survive a relay restart (DATA_DIR/<lab>.lesson.json, written atomically, server/lab/lesson-store.ts).
// Two relays on one data folder, one after the other, read the same lesson state back.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { joinAs, startRelay, type Harness } from '../helpers/relay-harness.ts';

const lab = 'restart-class';
let dataDir = '';
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function answer(h: Harness, id: number, value: number): Promise<void> {
  const s = await joinAs(h, 'ws', lab, id);
  s.c.send({ type: 'answer', step: 1, value, ref: 'a' });
  const f = await s.c.next((f) => 'ref' in f && f.ref === 'a');
  expect(f).toMatchObject({ type: 'answered', value });
  await s.c.close();
}

describe('a lesson survives a relay restart', () => {
  it('the step, the phase and every answer read back the same from a second relay on the same data folder', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'relay-lesson-restart-'));
    const a = await startRelay({ dataDir, bots: false });
    expect((await a.api('POST', '/api/labs', { name: lab, size: 8 })).status).toBe(201);
    expect(
      (await a.api('POST', `/api/labs/${lab}/lesson`, { lesson: 'bully-figure-6-20', step: 1 }))
        .status,
    ).toBe(200);
    expect((await a.api('POST', `/api/labs/${lab}/lesson/start`)).body.phase).toBe('open');
    await answer(a, 0, 15);
    await answer(a, 1, 15);
    await answer(a, 2, 9);
    const before = (await a.api('GET', `/api/labs/${lab}/lesson`)).body;
    expect(before).toMatchObject({ step: 1, phase: 'open', answered: 3 });
    await a.close();

    const file = join(dataDir, `${lab}.lesson.json`);
    expect((await stat(file)).size).toBeGreaterThan(0);
    const b = await startRelay({ dataDir, bots: false });
    try {
      const after = (await b.api('GET', `/api/labs/${lab}/lesson`)).body;
      expect(after).toMatchObject({
        lesson: before.lesson,
        step: 1,
        phase: 'open',
        answered: 3,
        byStudent: { '0': 15, '1': 15, '2': 9 },
        answers: { '15': 2, '9': 1 },
      });
      // The class goes on where it was: lock, run, reveal on the new relay, and the scores count the old answers.
      for (const action of ['lock', 'run', 'reveal'])
        expect((await b.api('POST', `/api/labs/${lab}/lesson/${action}`)).status).toBe(200);
      const shown = (await b.api('GET', `/api/labs/${lab}/lesson`)).body;
      expect(shown).toMatchObject({ phase: 'revealed', measured: 15 });
      expect(shown.scores).toEqual({
        '0': { answered: 1, correct: 1 },
        '1': { answered: 1, correct: 1 },
        '2': { answered: 1, correct: 0 },
      });
    } finally {
      await b.close();
    }
    // The third relay sees the revealed phase the second one saved.
    const c = await startRelay({ dataDir, bots: false });
    try {
      expect((await c.api('GET', `/api/labs/${lab}/lesson`)).body).toMatchObject({
        phase: 'revealed',
        measured: 15,
      });
      // Ending the lesson removes its file: the next relay finds none.
      expect((await c.api('DELETE', `/api/labs/${lab}/lesson`)).status).toBe(204);
    } finally {
      await c.close();
    }
    await expect(stat(file)).rejects.toThrow();
  });

  it('a saved lesson file that is not a lesson state is reported and ignored, not loaded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relay-lesson-bad-'));
    const a = await startRelay({ dataDir: dir, bots: false });
    expect((await a.api('POST', '/api/labs', { name: lab, size: 4 })).status).toBe(201);
    await a.close();
    const file = join(dir, `${lab}.lesson.json`);
    await writeFile(file, JSON.stringify({ version: 1, lesson: { id: 'x' }, step: 0 }));
    const errors: unknown[] = [];
    const b = await startRelay({ dataDir: dir, bots: false, onError: (e) => errors.push(e) });
    try {
      expect((await b.api('GET', `/api/labs/${lab}/lesson`)).body).toBeNull();
      expect(String(errors[0])).toContain('not a lesson state file');
      expect(await readFile(file, 'utf8')).toContain('"x"');
    } finally {
      await b.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
