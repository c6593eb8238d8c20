// Issue 28, item 6: "The instructor can replay any submitted schedule in the live lab". An
// accepted entry's Run in live lab (POST .../challenge/board/:rank/live, token) puts the
// challenge's set-up on the lab with server bots, plays her faults at their times, and the board's
// `live` says whether the live run reached the target, by the relay's own live checker (003,
// "two machines decide they are coordinators": the checker's safety finding). Refused clearly:
// a bad rank, no token, a lesson step running, a replay running, a lab the set-up cannot take.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveReplay } from '@shared/challenges/challenge-api.ts';
import type { Challenge, Schedule } from '@shared/challenges/challenge-schema.ts';
import { searchSolution } from '@shared/challenges/challenge-search.ts';
import type { Lesson } from '@shared/lessons/lesson-schema.ts';
import { connect, labTrace, startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

let h: Harness;
let bully: Challenge;
let solved: Schedule;

beforeAll(async () => {
  h = await startRelay();
  const list = await h.api('GET', '/api/challenges');
  bully = list.body.challenges.find((c: Challenge) => c.id === 'bully-split-brain');
  solved = searchSolution(bully)!;
});
afterAll(async () => {
  await h.close();
});

const sub = (schedule: Schedule) => ({
  challenge: bully.id,
  seed: 1,
  setup: bully.setup,
  schedule,
});
const submit = (lab: string, body: unknown) =>
  h.api('POST', `/api/labs/${lab}/challenge/submissions`, body, { token: null });
const live = (lab: string, rank: number | string, token?: null) =>
  h.api('POST', `/api/labs/${lab}/challenge/board/${rank}/live`, undefined, { token });
const liveOf = async (lab: string): Promise<LiveReplay | null> =>
  (await h.api('GET', `/api/labs/${lab}/challenge`)).body.live;

/** A lab of `size` with the split-brain challenge open and one accepted (claimed) entry. */
async function labWithEntry(lab: string, size = 6): Promise<void> {
  expect((await h.api('POST', '/api/labs', { name: lab, size })).status).toBe(201);
  expect((await h.api('POST', `/api/labs/${lab}/challenge`, { challenge: bully.id })).status).toBe(
    200,
  );
  expect((await submit(lab, { name: 'Barbara', submission: sub(solved) })).status).toBe(200);
}

/** Set-up's horizon, the settle bound (15 s) and a loaded machine's slack. */
const RUN_MS = 8000 + 15_000 + 10_000;

describe('Run in live lab', () => {
  it(
    'replays an accepted entry live on server bots and the board says the live checker saw the split brain',
    async () => {
      const lab = 'replay-live';
      await labWithEntry(lab);
      const started = await live(lab, 1);
      expect(started.status).toBe(200);
      expect(started.body.live).toMatchObject({ rank: 1, name: 'Barbara', verified: false });
      expect(['settling', 'running']).toContain(started.body.live.phase);
      expect(started.body.live.endsInMs).toBeGreaterThan(0);
      // One replay at a time.
      const again = await live(lab, 1);
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ code: 'LIVE_RUN_BUSY' });
      expect(again.body.message).toMatch(/replay is already running/);
      await waitFor(
        async () => !['settling', 'running'].includes((await liveOf(lab))?.phase ?? ''),
        RUN_MS,
        'the live replay to end',
        250,
      );
      const done = (await liveOf(lab))!;
      expect(done).toMatchObject({ phase: 'reproduced', rank: 1, name: 'Barbara' });
      expect(done.findings['safety']).toBeGreaterThanOrEqual(1);
      expect(done.at).not.toBeNull();
      expect(done.endsInMs).toBeUndefined();
      // The lab ran her schedule itself: the note, then each of her faults in the lab's trace.
      const trace = await labTrace(h, lab);
      const from = trace.findIndex(
        (e) => e.kind === 'note' && /challenge: .* runs live/.test(e.text),
      );
      expect(from).toBeGreaterThan(-1);
      const after = trace.slice(from);
      for (const c of solved.crash ?? [])
        expect(after.some((e) => e.kind === 'crash' && e.node === c.id)).toBe(true);
      if (solved.partition?.length)
        expect(after.some((e) => e.kind === 'partition' && e.groups !== null)).toBe(true);
      expect(after.some((e) => e.kind === 'finding' && e.finding.kind === 'safety')).toBe(true);
    },
    RUN_MS + 10_000,
  );

  it('refuses without the token, a rank that is not a number or not on the board, and no challenge', async () => {
    const lab = 'replay-refusals';
    await labWithEntry(lab);
    expect((await live(lab, 1, null)).status).toBe(401);
    const bad = await live(lab, 'first');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST', details: ['rank'] });
    expect((await live(lab, 0)).body.code).toBe('BAD_REQUEST');
    const missing = await live(lab, 9);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toMatch(/ranked 9/);
    expect((await h.api('DELETE', `/api/labs/${lab}/challenge`)).status).toBe(204);
    expect((await live(lab, 1)).body.code).toBe('NO_CHALLENGE');
    expect((await live('no-such-lab', 1)).body.code).toBe('UNKNOWN_LAB');
  });

  it('refuses while a lesson step is running in the lab, and a lab the set-up cannot take', async () => {
    const lab = 'replay-lesson';
    await labWithEntry(lab);
    const lesson = JSON.parse(
      readFileSync(new URL('../../lessons/bully-figure-6-20.json', import.meta.url), 'utf8'),
    ) as Lesson;
    const step = { ...lesson.steps[0]!, setup: { ...lesson.steps[0]!.setup, until: 3000 } };
    const short = { ...lesson, id: 'short', steps: [step] };
    expect((await h.api('POST', `/api/labs/${lab}/lesson`, { lesson: short })).status).toBe(200);
    for (const a of ['start', 'lock', 'run'])
      expect((await h.api('POST', `/api/labs/${lab}/lesson/${a}`)).status).toBe(200);
    expect((await h.api('GET', `/api/labs/${lab}/lesson`)).body.running).toBeTruthy();
    const refused = await live(lab, 1);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'LIVE_RUN_BUSY' });
    expect(refused.body.message).toMatch(/lesson step is running/);
    expect(await liveOf(lab)).toBeNull();
    await h.api('DELETE', `/api/labs/${lab}/lesson`);

    // A person holds id 7, which the challenge's set-up (ids 0 to 5) would take from her.
    const crowded = 'replay-crowded';
    await labWithEntry(crowded, 8);
    const c = await connect(h, 'ws');
    c.send({ type: 'join', lab: crowded, id: 7, name: 'Ines', kind: 'human' });
    await c.next((f) => f.type === 'joined');
    const no = await live(crowded, 1);
    expect(no.status).toBe(409);
    expect(no.body).toMatchObject({ code: 'LIVE_RUN_REFUSED' });
    expect(no.body.message).toMatch(/process 7 is held by a person/);
    await c.close();
  }, 30_000);
});
