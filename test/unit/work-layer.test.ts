// The work layer's rules checked one step at a time (issue 27; 003's work schedule): fencing by
// token, results keyed by task, and every input a peer can send handled without a throw, counted,
// and never growing the state.
import { describe, expect, it } from 'vitest';
import {
  ALGORITHM_NAMES,
  DEFAULT_TIMING,
  type AlgorithmConfig,
  type Effect,
  type Message,
  type StepContext,
} from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { createRng } from '@shared/sim/rng.ts';
import { answerKey, DEFAULT_JOB, makeToken, type WorkJob } from '@shared/work/work-job.ts';
import { compileCheck } from '@shared/algorithms/message-check.ts';
import { parseMessage } from '@shared/algorithms/messages.ts';
import { WORK_SCHEMAS, WORK_TYPES } from '@shared/work/work-messages.ts';
import type { WorkState } from '@shared/work/work-state.ts';
import { withWork } from '@shared/work/with-work.ts';
import { mutate, randomJson, reachStates } from '../helpers/message-fuzz.ts';

const JOB: WorkJob = { ...DEFAULT_JOB, tasks: 8, size: 100 };
const KEY = answerKey(JOB);
const solve = (_job: WorkJob, t: number) => KEY[t]!;
const ids = [0, 1, 2, 3];
const ctx: StepContext = { now: 0, random: createRng(1) };

/** Process `self` of a 4-process Bully lab agreeing on 3, doing JOB. */
function start(self: number, job: WorkJob = JOB) {
  const alg = withWork(getAlgorithm('bully'), job);
  const config: AlgorithmConfig = {
    self,
    ids,
    ring: ids,
    timing: DEFAULT_TIMING,
    detector: 'heartbeat',
    initialCoordinator: 3,
  };
  return { alg, ...alg.init(config, ctx) };
}

const sends = (effects: Effect[]) =>
  effects
    .filter((e): e is Extract<Effect, { kind: 'send' }> => e.kind === 'send')
    .map((e) => ({ to: e.to, ...e.message }));

function deliver(
  alg: ReturnType<typeof start>['alg'],
  s: WorkState,
  from: number,
  message: unknown,
  now = 0,
) {
  return alg.step(s, { kind: 'message', from, message: message as Message }, { ...ctx, now });
}

/** Coordinator 3 after the gathering: everyone answered holding nothing; tasks handed out. */
function runningCoordinator() {
  const { alg, state } = start(3);
  let s = state;
  for (const w of [0, 1, 2])
    s = deliver(alg, s, w, {
      type: 'WORK_HELD',
      token: s.newest,
      task: -1,
      boot: 0,
      reused: false,
      held: [],
      stored: [],
    }).state;
  const out = alg.step(s, { kind: 'timer', name: 'work:gather' }, { ...ctx, now: 300 });
  return { alg, state: out.state, effects: out.effects };
}

describe('work layer: the job', () => {
  it('task i counts the primes in [i*size, (i+1)*size): 25 below 100, 21 in the next hundred, 16 in the one after', () => {
    expect(KEY.slice(0, 3)).toEqual([25, 21, 16]);
    expect(answerKey({ ...JOB, tasks: 1, size: 10_000 })).toEqual([1229]);
  });
});

describe('work layer: the coordinator (003 dynamic sharing)', () => {
  it('hands one task to each empty machine and appoints the highest other id as analyser', () => {
    const { state, effects } = runningCoordinator();
    expect(sends(effects)).toEqual(
      [0, 1, 2].map((w, i) => ({
        to: w,
        type: 'WORK_ASSIGN',
        token: state.newest,
        task: i,
        reportTo: 3,
      })),
    );
    expect(state.office?.analyser).toBe(2);
  });

  it('a result for a task never given to its sender is ignored and counted as wrong', () => {
    const { alg, state } = runningCoordinator();
    const out = deliver(alg, state, 0, {
      type: 'WORK_RESULT',
      token: state.newest,
      task: 5,
      value: solve(JOB, 5),
    });
    expect(out.state.c.wrong).toBe(1);
    expect(out.state.office?.doneCount).toBe(0);
    expect(sends(out.effects)).toEqual([]);
  });

  it('a wrong value is counted as wrong, kept nowhere, and the task is handed out again', () => {
    const { alg, state } = runningCoordinator();
    const out = deliver(alg, state, 0, {
      type: 'WORK_RESULT',
      token: state.newest,
      task: 0,
      value: solve(JOB, 0) + 1,
    });
    expect(out.state.c.wrong).toBe(1);
    expect(out.state.office?.doneCount).toBe(0);
    expect(out.state.c.reassigned).toBe(1);
  });

  it('a right result is kept under its task id and sent to the analyser; the same result again is duplicate work, not a second result', () => {
    const { alg, state } = runningCoordinator();
    const r = { type: 'WORK_RESULT', token: state.newest, task: 0, value: solve(JOB, 0) };
    const once = deliver(alg, state, 0, r);
    expect(sends(once.effects)).toContainEqual({
      to: 2,
      type: 'WORK_STORE',
      token: state.newest,
      task: 0,
      value: solve(JOB, 0),
    });
    const twice = deliver(alg, once.state, 0, r);
    expect(twice.state.office?.doneCount).toBe(1);
    expect(twice.state.c.duplicates).toBe(1);
    expect(sends(twice.effects).filter((m) => m.type === 'WORK_STORE')).toEqual([]);
  });

  it('an order or an answer naming a task outside the job is counted as wrong; nothing is computed or adopted', () => {
    const worker = start(0);
    const w = deliver(worker.alg, worker.state, 3, {
      type: 'WORK_ASSIGN',
      token: 1,
      task: 99,
      reportTo: 3,
    });
    expect([
      w.state.running,
      w.state.c.wrong,
      w.effects.filter((e) => e.kind === 'set-timer'),
    ]).toEqual([null, 1, []]);
    const { alg, state } = runningCoordinator();
    const c = deliver(alg, state, 1, {
      type: 'WORK_HELD',
      token: state.newest,
      task: 99,
      boot: 0,
      reused: false,
      held: [],
      stored: [],
    });
    expect(c.state.office?.running[1]).toBe(1); // still the task it was given
    expect(c.state.c.wrong).toBe(1);
  });

  it('unknown task ids and ids outside the lab are ignored and counted, never kept', () => {
    const { alg, state } = runningCoordinator();
    let s = deliver(alg, state, 0, {
      type: 'WORK_RESULT',
      token: state.newest,
      task: 99,
      value: 0,
    }).state; // in the schema's range, not in the job
    expect(s.c.wrong).toBe(1);
    s = deliver(alg, s, 0, { type: 'WORK_RESULT', token: state.newest, task: -1, value: 0 }).state; // outside the schema
    s = deliver(alg, s, 42, {
      type: 'WORK_RESULT',
      token: state.newest,
      task: 0,
      value: solve(JOB, 0),
    }).state; // not a lab id
    expect(s.c.ignored).toBe(2);
    expect(s.office?.doneCount).toBe(0);
  });
});

describe('work layer: fencing (Chubby sequencers, Raft terms; 003 "timestamp communications")', () => {
  const older = makeToken(1, 3);
  const newer = makeToken(2, 2);
  const hold = (token: number, boot = 0) => ({ type: 'WORK_HOLD', token, boot });

  it('fencing on: a worker refuses an order older than the newest token it saw, counts it and tells the sender', () => {
    const { alg, state } = start(0);
    const s = deliver(alg, state, 2, hold(newer)).state;
    const out = deliver(alg, s, 3, { type: 'WORK_ASSIGN', token: older, task: 1, reportTo: 3 });
    expect(out.state.c.staleRefused).toBe(1);
    expect(out.state.running).toBeNull();
    expect(sends(out.effects)).toEqual([
      { to: 3, type: 'WORK_REFUSED', token: older, newest: newer },
    ]);
  });

  it('fencing off: the same stale order is obeyed and counted as accepted', () => {
    const { alg, state } = start(0, { ...JOB, fencing: false });
    const s = deliver(alg, state, 2, hold(newer)).state;
    const out = deliver(alg, s, 3, { type: 'WORK_ASSIGN', token: older, task: 1, reportTo: 3 });
    expect(out.state.c.staleAccepted).toBe(1);
    expect(out.state.running?.task).toBe(1);
  });

  it("fencing on: the analyser refuses a stale coordinator's result to keep", () => {
    const { alg, state } = start(1);
    const s = deliver(alg, state, 2, hold(newer)).state;
    const out = deliver(alg, s, 3, {
      type: 'WORK_STORE',
      token: older,
      task: 0,
      value: solve(JOB, 0),
    });
    expect(out.state.storeSize).toBe(0);
    expect(out.state.c.staleRefused).toBe(1);
  });

  it('a coordinator told its token is stale takes office again with a newer one and asks anew', () => {
    const { alg, state } = runningCoordinator();
    const out = deliver(alg, state, 0, {
      type: 'WORK_REFUSED',
      token: state.newest,
      newest: newer,
    });
    expect(out.state.office?.token).toBeGreaterThan(newer);
    expect(
      sends(out.effects)
        .filter((m) => m.type === 'WORK_HOLD')
        .map((m) => m.to),
    ).toEqual([0, 1, 2]);
  });
});

describe('work layer: bad input (issue 27, 8)', () => {
  it('a flood of 20,000 forged results and stores leaves the state no larger than one', () => {
    const { alg, state } = runningCoordinator();
    const size = (s: WorkState) => JSON.stringify({ ...s, election: null }).length;
    let s = deliver(alg, state, 0, {
      type: 'WORK_RESULT',
      token: state.newest,
      task: 7,
      value: 1,
    }).state;
    const one = size(s);
    const r = createRng(5);
    for (let i = 0; i < 20_000; i++) {
      const task = Math.floor(r() * 200);
      const msg =
        i % 2
          ? { type: 'WORK_RESULT', token: state.newest, task, value: i }
          : { type: 'WORK_STORE', token: state.newest, task, value: i };
      s = deliver(alg, s, i % 3, msg).state;
    }
    expect(size(s)).toBeLessThanOrEqual(one + 40); // counters' digits only
    expect(s.c.wrong + s.c.ignored).toBeGreaterThan(19_000);
  });

  for (const name of ALGORITHM_NAMES) {
    it(`${name} with work: step never throws on random JSON or mutated work messages, and every work message it sends fits its schema`, () => {
      const alg = withWork(getAlgorithm(name), JOB);
      const reached = reachStates(alg, 11, 4, 4, 250);
      const own = reached[0]!.sent.filter((m) => WORK_TYPES.includes(m.type));
      expect(own.length).toBeGreaterThan(0);
      const r = createRng(3);
      for (let k = 0; k < 1500; k++) {
        const { state } = reached[k % reached.length]!;
        const message = k % 3 === 0 ? randomJson(r) : mutate(own[k % own.length]!, r, WORK_TYPES);
        const out = alg.step(
          state,
          { kind: 'message', from: k % 5, message: message as Message },
          ctx,
        );
        for (const e of out.effects) {
          if (e.kind !== 'send') continue;
          expect(alg.messageTypes).toContain(e.message.type);
          // What the layer sends fits its own schemas (a result with no value would not).
          if (WORK_TYPES.includes(e.message.type))
            expect(parseMessage(WORK_SCHEMAS, e.message), JSON.stringify(e.message)).not.toBeNull();
        }
      }
    });
  }

  it("the hot path's fast checks of the work messages answer as their zod schemas do (test/unit/message-check.test.ts's rule)", () => {
    const r = createRng(9);
    const sent = [
      ...new Set(
        reachStates(withWork(getAlgorithm('bully'), JOB), 4, 2, 4, 200).flatMap((x) => x.sent),
      ),
    ].filter((m) => WORK_TYPES.includes(m.type));
    const edges = [
      0,
      -0,
      -1,
      1.5,
      2 ** 53,
      null,
      true,
      '1',
      [],
      [[1, 2]],
      [[1]],
      [[1, 2, 3]],
      [[1, -1]],
      Array.from({ length: 20_001 }, () => 1),
    ];
    const keys = [
      'token',
      'task',
      'value',
      'boot',
      'held',
      'stored',
      'reused',
      'reportTo',
      'newest',
    ];
    const candidates: unknown[] = [...sent];
    for (const m of sent) for (let k = 0; k < 6; k++) candidates.push(mutate(m, r, WORK_TYPES));
    for (const m of sent)
      for (const key of keys) for (const v of edges) candidates.push({ ...m, [key]: v });
    // WORK_HELD (one per process per office, rare) carries [task, value] pairs, a tuple the fast
    // check does not read: zod parses it. Every frequent message has a fast check.
    for (const type of WORK_TYPES.filter((t) => t !== 'WORK_HELD'))
      expect(compileCheck(WORK_SCHEMAS[type as keyof typeof WORK_SCHEMAS]), type).not.toBeNull();
    for (const c of candidates) {
      const type = (c as { type?: string } | null)?.type;
      const schema =
        typeof type === 'string' && Object.hasOwn(WORK_SCHEMAS, type)
          ? WORK_SCHEMAS[type as keyof typeof WORK_SCHEMAS]
          : null;
      const z = schema?.safeParse(c);
      expect(parseMessage(WORK_SCHEMAS, c), JSON.stringify(c)?.slice(0, 200)).toEqual(
        z?.success ? z.data : null,
      );
    }
  });
});
