// Issue 28, item 6 over the wire: an instructor opens a "break it" challenge (REST, token);
// students submit { seed, set-up, schedule } as a `submit` frame over ws and socket.io (or REST);
// the relay re-runs each in its own simulator and accepts only a run that reproduces the target
// within the budget, refusing a tampered one with the reason; the board lists who broke it,
// fewest faults first; the instructor reads and replays any accepted schedule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Challenge, Schedule } from '@shared/challenges/challenge-schema.ts';
import type { ServerFrame } from '@shared/protocol/frames.ts';
import { VERIFY_LIMITS } from '../../server/lab/challenge-room.ts';
import { searchSolution } from '@shared/challenges/challenge-search.ts';
import {
  connect,
  parseTrace,
  startRelay,
  type FrameClient,
  type Harness,
} from '../helpers/relay-harness.ts';

let h: Harness;
let bully: Challenge;
let solved: Schedule;
const lab = 'break-it';

beforeAll(async () => {
  h = await startRelay();
  const list = await h.api('GET', '/api/challenges', undefined, { token: null });
  bully = list.body.challenges.find((c: Challenge) => c.id === 'bully-split-brain');
  solved = searchSolution(bully)!;
  expect((await h.api('POST', '/api/labs', { name: lab, size: 6 })).status).toBe(201);
});
afterAll(async () => {
  await h.close();
});

const submission = (schedule: Schedule, setup = bully.setup) => ({
  challenge: bully.id,
  seed: 1,
  setup,
  schedule,
});
async function submit(c: FrameClient, name: string, sub: unknown, ref: string) {
  const from = c.received.length;
  c.send({ type: 'submit', lab, name, submission: sub, ref });
  return c.next((f) => 'ref' in f && f.ref === ref, 10_000, from);
}
type Err = Extract<ServerFrame, { type: 'error' }>;

describe('opening a challenge', () => {
  it('lists the shipped challenges to anyone; opening one takes the token; none open reads null', async () => {
    const list = await h.api('GET', '/api/challenges', undefined, { token: null });
    expect(list.body.refused).toEqual([]);
    expect(list.body.challenges.map((c: Challenge) => c.id)).toEqual(
      expect.arrayContaining(['bully-split-brain', 'ring-leaderless']),
    );
    expect((await h.api('GET', `/api/labs/${lab}/challenge`)).body).toBeNull();
    const open = () =>
      h.api('POST', `/api/labs/${lab}/challenge`, { challenge: bully.id }, { token: null });
    expect((await open()).status).toBe(401);
    expect(
      (await h.api('POST', `/api/labs/${lab}/challenge`, { challenge: 'nope' })).body.code,
    ).toBe('UNKNOWN_CHALLENGE');
  });

  it('a submission to a lab with no challenge open is refused NO_CHALLENGE', async () => {
    const c = await connect(h, 'ws');
    expect(await submit(c, 'Early', submission(solved), 'early')).toMatchObject({
      type: 'error',
      code: 'NO_CHALLENGE',
    });
    await c.close();
  });
});

describe('students submit over ws and socket.io', () => {
  let ws: FrameClient;
  let sio: FrameClient;
  beforeAll(async () => {
    expect(
      (await h.api('POST', `/api/labs/${lab}/challenge`, { challenge: bully.id })).status,
    ).toBe(200);
    ws = await connect(h, 'ws');
    sio = await connect(h, 'socketio');
  });
  afterAll(async () => {
    await ws.close();
    await sio.close();
  });

  it('accepts a real solution over each transport and ranks fewest faults first', async () => {
    // A longer solution: the search's, plus a free election (within the budget of one).
    const longer = { ...solved, elect: [{ id: 0, at: 3000 }] };
    expect(await submit(ws, 'Ada', submission(longer), 'a1')).toMatchObject({
      type: 'verdict',
      accepted: true,
      faults: Object.keys(solved).length + 1,
      rank: 1,
    });
    const v = await submit(sio, 'Barbara', submission(solved), 'b1');
    expect(v).toMatchObject({ type: 'verdict', accepted: true, rank: 1 });
    const board = (await h.api('GET', `/api/labs/${lab}/challenge`, undefined, { token: null }))
      .body;
    expect(board.board.map((e: { name: string }) => e.name)).toEqual(['Barbara', 'Ada']);
    expect(board.board[0].faults).toBeLessThan(board.board[1].faults);
  });

  it('refuses a tampered success with the reason: over budget, set-up changed, not reproduced', async () => {
    const over = { ...solved, crash: [{ id: 5, at: 100 }] };
    const a = (await submit(ws, 'Mallory', submission(over), 't1')) as Err;
    expect(a).toMatchObject({ code: 'SUBMISSION_REFUSED', details: ['over-budget'] });
    expect(a.message).toMatch(/protects/);
    const easier = { ...bully.setup, timing: { heartbeatTimeout: 100 } };
    const b = (await submit(sio, 'Mallory', submission(solved, easier), 't2')) as Err;
    expect(b).toMatchObject({ code: 'SUBMISSION_REFUSED', details: ['setup-changed'] });
    const c = (await submit(sio, 'Mallory', submission({}), 't3')) as Err;
    expect(c).toMatchObject({ code: 'SUBMISSION_REFUSED', details: ['not-reproduced'] });
    const board = (await h.api('GET', `/api/labs/${lab}/challenge`)).body;
    expect(board.board.map((e: { name: string }) => e.name)).not.toContain('Mallory');
    expect(board.refused).toMatchObject({
      'over-budget': 1,
      'setup-changed': 1,
      'not-reproduced': 1,
    });
  });

  it('a malformed submit frame gets BAD_FRAME naming the field', async () => {
    const f = (await submit(ws, 'Eve', { ...submission(solved), seed: 'x' }, 'm1')) as Err;
    expect(f).toMatchObject({ code: 'BAD_FRAME' });
    expect(f.details?.join(' ')).toMatch(/submission\.seed/);
  });

  it('REST takes the same submission; a burst past the lab verification budget is refused 429', async () => {
    const path = `/api/labs/${lab}/challenge/submissions`;
    const ok = await h.api(
      'POST',
      path,
      { name: 'Grace', submission: submission(solved) },
      { token: null },
    );
    expect(ok.body).toMatchObject({ accepted: true, rank: 2 });
    // Each student's own cap (MAX_SUBMISSIONS_PER_STUDENT) is held in test/unit/challenge-room.test.ts.
    const burst = VERIFY_LIMITS.burst + 10;
    let last = ok;
    for (let i = 0; i < burst && last.status !== 429; i++)
      last = await h.api(
        'POST',
        path,
        { name: `Student ${i}`, submission: submission({}) },
        { token: null },
      );
    expect(last.status).toBe(429);
    expect(last.body.message).toMatch(/a few submissions a second/);
  });

  it('the instructor reads and replays an accepted schedule (token); the class cannot', async () => {
    const entry = await h.api('GET', `/api/labs/${lab}/challenge/board/1`);
    expect(entry.body).toEqual({ name: 'Barbara', verified: false, seed: 1, schedule: solved });
    expect(
      (await h.api('GET', `/api/labs/${lab}/challenge/board/1`, undefined, { token: null })).status,
    ).toBe(401);
    const trace = await h.api('GET', `/api/labs/${lab}/challenge/board/1/trace`);
    expect(trace.status).toBe(200);
    const events = parseTrace(trace.text);
    expect(events.some((e) => e.kind === 'send')).toBe(true);
    expect((await h.api('GET', `/api/labs/${lab}/challenge/board/9/trace`)).status).toBe(404);
  });
});
