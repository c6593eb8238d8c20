// Issue 28 over the wire: a class answers a lesson's question over both transports (the
// `answer` frame, docs/PROTOCOL.md), the histogram is exact, individual answers stay hidden until
// the reveal (only the instructor sees them by name), bad answers are refused with a clear error
// frame, and nothing a student sends moves the lesson.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerFrame } from '@shared/protocol/frames.ts';
import { MAX_ANSWER_CHANGES } from '../../server/lab/lesson-room.ts';
import {
  connect,
  joinAs,
  startRelay,
  type FrameClient,
  type Harness,
  waitFor,
} from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

type Err = Extract<ServerFrame, { type: 'error' }>;
/** Sends an answer and waits for its outcome (matched by ref). */
async function answer(
  c: FrameClient,
  step: number,
  value: unknown,
  ref: string,
): Promise<ServerFrame> {
  const from = c.received.length;
  c.send({ type: 'answer', step, value, ref });
  return c.next((f) => 'ref' in f && f.ref === ref, 10_000, from);
}
const lesson = (lab: string, token?: string | null) =>
  h.api('GET', `/api/labs/${lab}/lesson`, undefined, { token: token === undefined ? null : token });
const move = (lab: string, action: string) => h.api('POST', `/api/labs/${lab}/lesson/${action}`);

describe('GET /api/lessons', () => {
  it('lists the shipped lessons and no refused file; the answer key (reveals, set-ups) only to the instructor', async () => {
    const r = await h.api('GET', '/api/lessons', undefined, { token: null });
    expect(r.status).toBe(200);
    expect(r.body.refused).toEqual([]);
    expect(r.body.lessons.map((l: { id: string }) => l.id)).toContain('bully-figure-6-20');
    expect(r.body.lessons.length).toBeGreaterThanOrEqual(8);
    expect(r.text).not.toContain('"expected"');
    expect(r.body.lessons[0].steps[0]).toEqual({
      title: expect.any(String),
      question: expect.any(Object),
    });
    const full = await h.api('GET', '/api/lessons');
    expect(full.body.lessons[0].steps[0].reveal.expected).toEqual(expect.any(Number));
  });
});

describe('a class of 20 answers Figure 6-20 over ws and socket.io', () => {
  const lab = 'lesson-class';
  const students: { c: FrameClient; id: number }[] = [];
  /** Each student's final answer (a process id of the step's 0..7); some change their minds first. */
  const finalOf = (i: number) => [6, 7, 4, 6, 5][i % 5]!;

  beforeAll(async () => {
    expect(
      (await h.api('POST', '/api/labs', { name: lab, size: 20, detector: 'none' })).status,
    ).toBe(201);
    for (let i = 0; i < 20; i++) students.push(await joinAs(h, i % 2 ? 'socketio' : 'ws', lab));
    expect(
      (await h.api('POST', `/api/labs/${lab}/lesson`, { lesson: 'bully-figure-6-20' })).status,
    ).toBe(200);
  });
  afterAll(async () => {
    for (const s of students) await s.c.close();
  });

  it('refuses answers before the question is open', async () => {
    const f = (await answer(students[0]!.c, 0, 6, 'early')) as Err;
    expect(f).toMatchObject({ type: 'error', code: 'LESSON_CLOSED' });
  });

  it('takes one answer per student (the last), hides them from the class, shows them to the instructor by id', async () => {
    expect((await move(lab, 'start')).body.phase).toBe('open');
    await Promise.all(
      students.map(async ({ c }, i) => {
        if (i % 3 === 0)
          expect(await answer(c, 0, 0, `first-${i}`)).toMatchObject({
            type: 'answered',
            step: 0,
            value: 0,
          });
        expect(await answer(c, 0, finalOf(i), `final-${i}`)).toMatchObject({
          type: 'answered',
          step: 0,
          value: finalOf(i),
        });
      }),
    );
    const open = await lesson(lab);
    expect(open.body).toMatchObject({
      phase: 'open',
      step: 0,
      answered: 20,
      answers: {},
      question: { seconds: 60 },
    });
    // How long the question has been open, by the relay's clock: the projector's countdown grows from it.
    const first = open.body.openForMs as number;
    expect(first).toBeGreaterThanOrEqual(0);
    await waitFor(
      async () => ((await lesson(lab)).body.openForMs as number) > first,
      5000,
      'openForMs growing',
    );
    expect(open.body.byStudent).toBeUndefined();
    expect(open.body.measured).toBeUndefined();
    const mine = await lesson(lab, 'test-token-0123');
    expect(Object.keys(mine.body.byStudent)).toHaveLength(20);
    students.forEach(({ id }, i) => expect(mine.body.byStudent[String(id)]).toBe(finalOf(i)));
  });

  it('refuses bad answers with a clear error frame, and none of them moves the lesson', async () => {
    const c = students[1]!.c;
    expect(await answer(c, 0, 9, 'not-an-id')).toMatchObject({
      code: 'BAD_ANSWER',
      message: expect.stringContaining('0, 1, 2, 3, 4, 5, 6, 7'),
    });
    expect(await answer(c, 0, 'six', 'text')).toMatchObject({
      code: 'BAD_FRAME',
      details: [expect.stringMatching(/^value: /)],
    });
    expect(await answer(c, 1, 6, 'wrong-step')).toMatchObject({
      code: 'LESSON_CLOSED',
      message: expect.stringContaining('step 0 is'),
    });
    c.send({ type: 'answer', step: 0, value: 6, ref: 'extra', phase: 'revealed' });
    expect(await c.next((f) => 'ref' in f && f.ref === 'extra')).toMatchObject({
      code: 'BAD_FRAME',
    });
    const stranger = await connect(h, 'ws');
    expect(await answer(stranger, 0, 6, 'stranger')).toMatchObject({ code: 'NOT_JOINED' });
    await stranger.close();
    const view = await lesson(lab, 'test-token-0123');
    expect(view.body).toMatchObject({ phase: 'open', step: 0, answered: 20 });
    expect(view.body.byStudent[String(students[1]!.id)]).toBe(finalOf(1));
  });

  it('bounds how often a student may change her mind on one step', async () => {
    const c = students[2]!.c;
    // Her earlier answers on this step count: she has given one; the bound is per step.
    const outcomes: ServerFrame[] = [];
    for (let i = 0; i < MAX_ANSWER_CHANGES; i++)
      outcomes.push(await answer(c, 0, finalOf(2), `again-${i}`));
    expect(outcomes.filter((f) => f.type === 'answered')).toHaveLength(MAX_ANSWER_CHANGES - 1);
    expect(outcomes.at(-1)).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('the instructor locks, runs and reveals: the histogram is exact and the measured winner is 6', async () => {
    expect((await move(lab, 'reveal')).body).toMatchObject({ code: 'LESSON_PHASE' });
    expect(
      (await h.api('POST', `/api/labs/${lab}/lesson/lock`, undefined, { token: null })).status,
    ).toBe(401);
    const locked = (await move(lab, 'lock')).body;
    expect(locked.phase).toBe('locked');
    expect(locked.openForMs).toBeUndefined();
    expect(await answer(students[3]!.c, 0, 7, 'late')).toMatchObject({ code: 'LESSON_CLOSED' });
    expect((await move(lab, 'run')).body).toMatchObject({ phase: 'ran', measured: 6 });
    // The run's trace: the instructor's once it ran, the class's only after the reveal.
    expect(
      (await h.api('GET', `/api/labs/${lab}/lesson/trace`, undefined, { token: null })).status,
    ).toBe(404);
    const trace = await h.api('GET', `/api/labs/${lab}/lesson/trace`);
    expect(trace.status).toBe(200);
    const lines = trace.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      kind: 'header',
      source: 'simulator',
      algorithm: 'bully',
      ids: [0, 1, 2, 3, 4, 5, 6, 7],
    });
    expect(
      lines.filter((e) => e.kind === 'send' && e.type === 'COORDINATOR' && e.from === 6),
    ).toHaveLength(6);
    const ran = await lesson(lab);
    expect(ran.body.measured).toBeUndefined();
    expect(ran.body.answers).toEqual({});
    await move(lab, 'reveal');
    const shown = await lesson(lab);
    const histogram: Record<string, number> = {};
    for (let i = 0; i < 20; i++)
      histogram[String(finalOf(i))] = (histogram[String(finalOf(i))] ?? 0) + 1;
    expect(shown.body).toMatchObject({
      phase: 'revealed',
      answered: 20,
      measured: 6,
      expected: 6,
      answers: histogram,
      cites: { document: '000' },
    });
    expect(shown.body.answers).toEqual({ '4': 4, '5': 4, '6': 8, '7': 4 });
    expect(shown.body.byStudent).toBeUndefined();
    expect(shown.body.scores).toBeUndefined();
    // The class board's figures: per student, one answer so far, correct when it was the measured 6.
    const scores = (await lesson(lab, 'test-token-0123')).body.scores as Record<
      string,
      { answered: number; correct: number }
    >;
    expect(Object.keys(scores)).toHaveLength(20);
    students.forEach(({ id }, i) =>
      expect(scores[String(id)]).toEqual({ answered: 1, correct: finalOf(i) === 6 ? 1 : 0 }),
    );
    expect(
      (await h.api('GET', `/api/labs/${lab}/lesson/trace`, undefined, { token: null })).status,
    ).toBe(200);
  });

  it('next opens step 1 with no answers; its question takes a count', async () => {
    expect((await move(lab, 'next')).body).toMatchObject({ step: 1, phase: 'ready', answered: 0 });
    await move(lab, 'start');
    expect(await answer(students[0]!.c, 0, 6, 'old-step')).toMatchObject({ code: 'LESSON_CLOSED' });
    expect(await answer(students[0]!.c, 1, 15, 'count')).toMatchObject({
      type: 'answered',
      step: 1,
      value: 15,
    });
    expect(await answer(students[0]!.c, 1, 2.5, 'half')).toMatchObject({ code: 'BAD_ANSWER' });
  });
});

describe("the run's trace is bounded", () => {
  it('a run over 2 MiB is measured but not kept for replay, and the drop is counted', async () => {
    await h.api('POST', '/api/labs', { name: 'lesson-big', size: 3 });
    const ids = Array.from({ length: 64 }, (_, i) => i);
    const big = {
      id: 'big',
      title: 'A chatty coordinator',
      summary: 'Heartbeats every 10 ms to 63 followers for 3 s.',
      steps: [
        {
          title: 'beats',
          setup: {
            algorithm: 'bully',
            ids,
            link: { delay: 1 },
            timing: { heartbeatInterval: 10 },
            until: 3000,
          },
          run: {},
          reveal: {
            measure: { kind: 'findings', finding: 'safety' },
            expected: 0,
            cites: { document: '000', rule: 'UB = 2 * T + M' },
            explain: 'Nothing happens but heartbeats.',
          },
        },
      ],
    };
    expect((await h.api('POST', '/api/labs/lesson-big/lesson', { lesson: big })).status).toBe(200);
    await h.api('POST', '/api/labs/lesson-big/lesson/start');
    const before = (await h.api('GET', '/api/health')).body.counters['lesson-trace-too-large'] ?? 0;
    expect((await h.api('POST', '/api/labs/lesson-big/lesson/run')).body).toMatchObject({
      phase: 'ran',
      measured: 0,
    });
    const trace = await h.api('GET', '/api/labs/lesson-big/lesson/trace');
    expect(trace.status).toBe(404);
    expect(trace.body.message).toMatch(/was over \d+ characters and was not kept/);
    expect((await h.api('GET', '/api/health')).body.counters['lesson-trace-too-large']).toBe(
      before + 1,
    );
  });
});

describe('POST /api/labs/:lab/lesson', () => {
  it('refuses a lesson of her own that fails its schema, with the field named', async () => {
    await h.api('POST', '/api/labs', { name: 'lesson-own', size: 3 });
    const all = (await h.api('GET', '/api/lessons')).body.lessons; // with the token: whole lessons
    const own = structuredClone(all[0]);
    own.steps[0].reveal.expected = 'fifteen';
    const r = await h.api('POST', '/api/labs/lesson-own/lesson', { lesson: own });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([
      expect.stringMatching(/^lesson\.steps\.0\.reveal\.expected: /),
    ]);
    own.steps[0].reveal.expected = all[0].steps[0].reveal.expected;
    own.id = 'my-own';
    expect(
      (await h.api('POST', '/api/labs/lesson-own/lesson', { lesson: own, step: 0 })).body.lesson.id,
    ).toBe('my-own');
    expect(
      (await h.api('POST', '/api/labs/lesson-own/lesson', { lesson: 'no-such-lesson' })).body.code,
    ).toBe('UNKNOWN_LESSON');
    expect(
      (await h.api('POST', '/api/labs/lesson-own/lesson', { lesson: 'bully-figure-6-20', step: 9 }))
        .status,
    ).toBe(400);
    expect((await h.api('POST', '/api/labs/lesson-own/lesson/dance')).status).toBe(404);
    expect((await h.api('DELETE', '/api/labs/lesson-own/lesson')).status).toBe(204);
    const gone = await lesson('lesson-own');
    expect([gone.status, gone.body]).toEqual([200, null]);
    expect((await h.api('POST', '/api/labs/lesson-own/lesson/start')).body.code).toBe('NO_LESSON');
  });
});
