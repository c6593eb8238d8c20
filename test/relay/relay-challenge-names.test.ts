// Issue 28, item 6's board names: the relay vouches only for what it checked. A submission that
// carries her lab session (the process id and resume token her join gave her) is shown under the
// name she joined with, verified; any other name is what she typed, claimed. A session the lab
// does not hold is refused (SESSION_REFUSED), over REST and over the `submit` frame alike, and a
// malformed one is refused naming the field. Bounds: the `submit` frame's and the REST route's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Challenge, Schedule } from '@shared/challenges/challenge-schema.ts';
import { searchSolution } from '@shared/challenges/challenge-search.ts';
import { connect, startRelay, type FrameClient, type Harness } from '../helpers/relay-harness.ts';

let h: Harness;
let bully: Challenge;
let solved: Schedule;
let student: FrameClient;
let session: { id: number; resume: string };
const lab = 'names';

beforeAll(async () => {
  h = await startRelay();
  bully = (await h.api('GET', '/api/challenges')).body.challenges.find(
    (c: Challenge) => c.id === 'bully-split-brain',
  );
  solved = searchSolution(bully)!;
  expect((await h.api('POST', '/api/labs', { name: lab, size: 6 })).status).toBe(201);
  expect((await h.api('POST', `/api/labs/${lab}/challenge`, { challenge: bully.id })).status).toBe(
    200,
  );
  student = await connect(h, 'ws');
  student.send({ type: 'join', lab, name: 'Ines', kind: 'human' });
  const joined = await student.next((f) => f.type === 'joined');
  if (joined.type !== 'joined') throw new Error('not joined');
  session = { id: joined.id, resume: joined.resume };
});
afterAll(async () => {
  await student.close();
  await h.close();
});

const submission = { challenge: 'bully-split-brain', seed: 1 } as const;
const rest = (body: Record<string, unknown>) =>
  h.api(
    'POST',
    `/api/labs/${lab}/challenge/submissions`,
    { submission: { ...submission, setup: bully.setup, schedule: solved }, ...body },
    { token: null },
  );
const board = async () =>
  (await h.api('GET', `/api/labs/${lab}/challenge`)).body.board as {
    name: string;
    verified: boolean;
  }[];

describe('names on the challenge board', () => {
  it('a submission with her lab session is shown under the name she joined with, verified', async () => {
    const ok = await rest({ name: 'Queen of Bully', session });
    expect(ok.status).toBe(200);
    expect(await board()).toContainEqual(expect.objectContaining({ name: 'Ines', verified: true }));
    expect((await board()).map((e) => e.name)).not.toContain('Queen of Bully');
  });

  it('a typed name without a session is claimed, and never takes the verified entry', async () => {
    expect((await rest({ name: 'Ines' })).status).toBe(200);
    const names = (await board()).filter((e) => e.name === 'Ines');
    expect(names.map((e) => e.verified).sort()).toEqual([false, true]);
  });

  it("refuses a session the lab does not hold: a wrong token, or another id's", async () => {
    const wrong = await rest({ name: 'Eve', session: { id: session.id, resume: 'x'.repeat(24) } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe('SESSION_REFUSED');
    const other = await rest({ name: 'Eve', session: { ...session, id: (session.id + 1) % 6 } });
    expect(other.body.code).toBe('SESSION_REFUSED');
    expect((await board()).map((e) => e.name)).not.toContain('Eve');
    // Counted by reason, as every refused submission is.
    const view = (await h.api('GET', `/api/labs/${lab}/challenge`)).body;
    expect(view.refused['session']).toBe(2);
  });

  it('a malformed session is refused naming the field', async () => {
    const long = await rest({ name: 'Eve', session: { id: 0, resume: 'x'.repeat(65) } });
    expect(long.status).toBe(400);
    expect(long.body.details.join(' ')).toMatch(/session\.resume/);
    const extra = await rest({ name: 'Eve', session: { ...session, admin: true } });
    expect(extra.status).toBe(400);
  });

  it('the submit frame takes the same session: verified, or SESSION_REFUSED', async () => {
    const c = await connect(h, 'socketio');
    const sub = { ...submission, setup: bully.setup, schedule: solved };
    c.send({ type: 'submit', lab, name: 'Typed', submission: sub, session, ref: 's1' });
    expect(await c.next((f) => 'ref' in f && f.ref === 's1', 10_000)).toMatchObject({
      type: 'verdict',
      accepted: true,
    });
    const bad = { ...session, resume: 'y'.repeat(24) };
    c.send({ type: 'submit', lab, name: 'Typed', submission: sub, session: bad, ref: 's2' });
    expect(await c.next((f) => 'ref' in f && f.ref === 's2', 10_000)).toMatchObject({
      type: 'error',
      code: 'SESSION_REFUSED',
    });
    expect((await board()).map((e) => e.name)).not.toContain('Typed');
    await c.close();
  });
});
