// Issue 28, lessons as data: every shipped lesson validates, runs in the simulator and reveals
// the value its own file expects, citing the documents; a lesson whose reveal disagrees with its
// expected value fails; a file that fails its schema is refused with the field named.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseLesson, type Lesson } from '@shared/lessons/lesson-schema.ts';
import { MAX_LESSON_EVENTS, runStep } from '@shared/lessons/lesson-runner.ts';
import { loadLessons } from '../../server/lab/lesson-catalog.ts';

const dir = new URL('../../lessons/', import.meta.url).pathname;
const catalog = loadLessons(dir);
const byId = (id: string): Lesson => structuredClone(catalog.lessons.find((l) => l.id === id)!);

describe('the shipped lessons', () => {
  it('all load: none is refused, all eight, every seed document cited', () => {
    expect(catalog.refused).toEqual([]);
    expect(catalog.lessons.length).toBeGreaterThanOrEqual(8);
    const cited = new Set(
      catalog.lessons.flatMap((l) => l.steps.map((s) => s.reveal.cites.document)),
    );
    expect([...cited].sort()).toEqual(['000', '001', '002', '003', '004']);
  });

  const steps = catalog.lessons.flatMap((l) =>
    l.steps.map((s, i) => ({ name: `${l.id} step ${i}: ${s.title}`, step: s })),
  );
  it.each(steps)('$name reveals the value its file expects', ({ step }) => {
    const outcome = runStep(step);
    expect(outcome.measured).toBe(step.reveal.expected);
    expect(outcome.agrees).toBe(true);
  });

  it('every question can be answered with the revealed value (the right answer is among the choices, ids or range)', () => {
    for (const l of catalog.lessons) {
      for (const s of l.steps) {
        const q = s.question;
        if (!q) continue;
        const v = s.reveal.expected;
        if (q.kind === 'choice')
          expect(
            q.choices.map((c) => c.value),
            `${l.id}: ${s.title}`,
          ).toContain(v);
        if (q.kind === 'process') expect(s.setup.ids, `${l.id}: ${s.title}`).toContain(v);
        if (q.kind === 'number')
          expect(v >= (q.min ?? 0) && v <= (q.max ?? Infinity), `${l.id}: ${s.title}`).toBe(true);
      }
    }
  });
});

describe('the runner measures the run, not the file', () => {
  it('000 Figure 6-20 with the wrong expected count disagrees (15 messages are sent, not 16)', () => {
    const step = byId('bully-figure-6-20').steps[1]!;
    step.reveal.expected = 16;
    const outcome = runStep(step);
    expect(outcome.measured).toBe(15);
    expect(outcome.agrees).toBe(false);
  });

  it('002 best case: when 0 detects instead of 6 the COORDINATOR count stays N-2 but ELECTIONs grow to N(N-1)/2', () => {
    const step = byId('bully-best-worst').steps[2]!;
    step.run.elect = [{ id: 0, at: 0 }];
    expect(runStep(step).measured).toBe(6);
    step.reveal.measure = { kind: 'messages', types: ['ELECTION'] };
    expect(runStep(step).measured).toBe(28);
  });

  it('the coordinator is no value when the live processes disagree (Bully split by a partition)', () => {
    const step = byId('partition-bully-raft').steps[0]!;
    step.reveal.measure = { kind: 'coordinator' };
    expect(runStep(step).measured).toBeNull();
  });

  it('link rules hold from their time on, and a later one keeps the earlier ones (000: 6 hears of the election late)', () => {
    const step = byId('bully-figure-6-20').steps[2]!;
    // ELECTION reaches 6 at 300 instead of 100: it times out at 300 + UB (210) and everyone hears T later.
    step.run.links = [
      { at: 0, from: 4, to: 6, delay: 300 },
      { at: 0, from: 5, to: 6, delay: 300 },
    ];
    expect(runStep(step).measured).toBe(610);
    // From 50 ms on 6 -> 0 is slow too; the two earlier rules still hold (else 6 would hear at 200: 910).
    step.run.links.push({ at: 50, from: 6, to: 0, delay: 500 });
    expect(runStep(step).measured).toBe(510 + 500);
  });
});

describe('the run is bounded', () => {
  it('a step whose run would exceed the event bound stops there and measures no value', () => {
    const step = byId('timeout-below-ub').steps[1]!;
    // 64 processes beating every millisecond over a minute: millions of events unbounded.
    step.setup = {
      ...step.setup,
      ids: Array.from({ length: 64 }, (_, i) => i),
      coordinator: 63,
      link: { delay: 1, jitter: 1 },
      timing: { heartbeatInterval: 1, heartbeatTimeout: 1 },
      until: 60_000,
    };
    const outcome = runStep(step);
    expect(outcome.run.events).toBe(MAX_LESSON_EVENTS);
    expect(outcome.run.truncated).toBe(true);
    expect(outcome.measured).toBeNull();
    expect(outcome.agrees).toBe(false);
  });

  it('every shipped step runs far inside the bound', () => {
    for (const l of catalog.lessons)
      for (const s of l.steps)
        expect(runStep(s).run.events, `${l.id}: ${s.title}`).toBeLessThan(MAX_LESSON_EVENTS / 4);
  });
});

describe('a lesson that fails its schema is refused with the field named', () => {
  const good = () => byId('bully-figure-6-20') as unknown as Record<string, any>;

  it('a reveal whose expected value is text', () => {
    const l = good();
    l['steps'][1].reveal.expected = 'fifteen';
    const r = parseLesson(l);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.join('\n')).toMatch(/^steps\.1\.reveal\.expected: /m);
  });

  it('an unknown algorithm, an unknown field, a crash of an id the set-up lacks', () => {
    const l = good();
    l['steps'][0].setup.algorithm = 'paxos';
    l['steps'][2].reveal.colour = 'red';
    const r = parseLesson(l);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors.some((e) => e.startsWith('steps.0.setup.algorithm: '))).toBe(true);
      expect(r.errors.some((e) => e.startsWith('steps.2.reveal: ') && e.includes('colour'))).toBe(
        true,
      );
    }
    const m = good();
    m['steps'][0].run.crash = [{ id: 9, at: 0 }];
    const r2 = parseLesson(m);
    expect(r2).toEqual({ ok: false, errors: ['steps.0.run.crash.0.id: 9 is not among setup.ids'] });
  });

  it('the relay loads the good files of a folder and names the bad one with its field', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'lessons-'));
    afterAll(() => rmSync(tmp, { recursive: true, force: true }));
    const bad = good();
    bad['steps'][0].question = {
      kind: 'choice',
      text: 'which?',
      choices: [{ label: 'one', value: 1 }],
    };
    writeFileSync(join(tmp, 'a-good.json'), JSON.stringify(good()));
    writeFileSync(join(tmp, 'b-bad.json'), JSON.stringify({ ...bad, id: 'other' }));
    writeFileSync(join(tmp, 'c-twin.json'), JSON.stringify(good()));
    writeFileSync(join(tmp, 'd-broken.json'), '{ "id": ');
    const c = loadLessons(tmp);
    expect(c.lessons.map((l) => l.id)).toEqual(['bully-figure-6-20']);
    expect(c.refused.map((r) => r.file)).toEqual(['b-bad.json', 'c-twin.json', 'd-broken.json']);
    expect(c.refused[0]!.errors[0]).toMatch(/^steps\.0\.question\.choices: /);
    expect(c.refused[1]!.errors[0]).toMatch(/^id: /);
    expect(c.refused[2]!.errors[0]).toMatch(/^\(file\): not readable JSON/);
  });
});

describe('npm run lesson', () => {
  it('names a refused field and a step that disagrees, and exits 1; the shipped lessons exit 0', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'lesson-cli-'));
    afterAll(() => rmSync(tmp, { recursive: true, force: true }));
    const wrong = byId('bully-figure-6-20');
    wrong.steps[1]!.reveal.expected = 16;
    const broken = byId('ring-002') as unknown as Record<string, any>;
    broken['steps'][0].setup.ids = [];
    writeFileSync(join(tmp, 'wrong.json'), JSON.stringify(wrong));
    writeFileSync(join(tmp, 'broken.json'), JSON.stringify(broken));
    const root = new URL('../..', import.meta.url).pathname;
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'scripts/lesson.ts', ...args], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
      });
    const bad = run([join(tmp, 'wrong.json'), join(tmp, 'broken.json')]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/step 1 DISAGREES measured 15, expected 16/);
    expect(bad.stdout).toMatch(/broken\.json: refused\n {2}steps\.0\.setup\.ids: /);
    const good = run([]);
    expect(good.status).toBe(0);
    expect(good.stdout).not.toContain('DISAGREES');
  });
});
