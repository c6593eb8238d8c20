// Issue 16, "Hosts contain what still throws": a bot whose algorithm throws is restarted from
// scratch (a crash and a recovery), its fault is in the trace, and the relay and its other labs
// carry on. Then the malformed-message matrix: the messages that used to kill the relay, sent to
// server-side bots of all five algorithms; the bots ignore them, and still elect.
import { EventEmitter } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ALGORITHM_NAMES,
  type AlgorithmName,
  type AnyAlgorithm,
} from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { Counters } from '../../server/lab/counters.ts';
import { installLastLine } from '../../server/last-line.ts';
import { connect, startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

const harnesses: Harness[] = [];
afterAll(async () => {
  for (const h of harnesses) await h.close();
});
const TIMING = { transmission: 20, processing: 2, heartbeatInterval: 60, heartbeatTimeout: 250 };

/** Bully that throws whenever it is sent a HEARTBEAT carrying `boom` (a bug a student might write). */
function brittle(name: AlgorithmName): AnyAlgorithm {
  const base = getAlgorithm(name);
  if (name !== 'bully') return base;
  return {
    ...base,
    step: (s, e, c) =>
      e.kind === 'message' && (e.message as { boom?: unknown }).boom
        ? (null as never as { x: number }).x
        : base.step(s, e, c),
  } as AnyAlgorithm;
}

const agreed = (h: Harness, lab: string, leader: number, n: number) => async () =>
  (await h.api('GET', `/api/labs/${lab}/stats`)).body.coordinators[String(leader)] === n;

describe('a throwing algorithm in a server-side bot', () => {
  it('is restarted from scratch, recorded in the trace, and leaves the relay and other labs running', async () => {
    const h = await startRelay({ botRegistry: brittle });
    harnesses.push(h);
    for (const lab of ['fragile', 'bystander']) {
      expect(
        (
          await h.api('POST', '/api/labs', {
            name: lab,
            size: 4,
            algorithm: 'bully',
            timing: TIMING,
          })
        ).status,
      ).toBe(201);
      expect(
        (await h.api('POST', `/api/labs/${lab}/bots`, { count: 3, ids: [0, 1, 2] })).status,
      ).toBe(201);
    }
    const c = await connect(h, 'ws');
    c.send({ type: 'join', lab: 'fragile', id: 3 });
    await c.next((f) => f.type === 'joined');
    // Id 3 (this raw client) never answers, so the bots settle on 2.
    await waitFor(agreed(h, 'fragile', 2, 3), 8000, 'fragile settled');
    // Each of these would have thrown inside the relay's process before.
    const boom = () => c.send({ type: 'send', to: 1, message: { type: 'HEARTBEAT', boom: true } });
    const faults = async () =>
      (await h.api('GET', '/api/labs/fragile/trace')).text
        .split('\n')
        .filter((l) => l.includes('"kind":"fault"'))
        .map((l) => JSON.parse(l));
    boom();
    await waitFor(async () => (await faults()).length === 1, 5000, 'fault in the trace');
    const [first] = await faults();
    expect(first).toMatchObject({ node: 1, event: 'message:HEARTBEAT', restarted: true });
    expect(first.error).toMatch(/Cannot read properties of null/);
    // The relay is up, the other lab is untouched, and the restarted bot is back in its ring.
    expect((await h.api('GET', '/api/health')).status).toBe(200);
    expect((await h.api('POST', '/api/labs/bystander/processes/2/crash')).status).toBe(200);
    await waitFor(agreed(h, 'bystander', 1, 2), 8000, 'bystander elects after its crash');
    await waitFor(agreed(h, 'fragile', 2, 3), 8000, 'fragile agrees again, 1 restarted');
    // A process that throws again and again at once is stopped rather than restarted forever.
    boom();
    await waitFor(async () => (await faults()).length === 2, 5000, 'second fault');
    boom();
    await waitFor(async () => (await faults()).length === 3, 5000, 'third fault');
    expect((await faults()).map((f) => f.restarted)).toEqual([true, true, false]);
    await waitFor(agreed(h, 'fragile', 2, 2), 8000, 'the others carry on without 1');
    await c.close();
  });

  it('logs and counts what nothing caught, and keeps the process alive', () => {
    const target = new EventEmitter();
    const counters = new Counters();
    const logged: unknown[][] = [];
    installLastLine(target, counters, (...a) => void logged.push(a));
    target.emit('uncaughtException', new Error('boom'));
    target.emit('unhandledRejection', new Error('later'));
    expect(counters.get('uncaught')).toBe(1);
    expect(counters.get('unhandled-rejection')).toBe(1);
    expect(String(logged[0]?.[0])).toMatch(/still serving/);
  });
});

const MALFORMED: unknown[] = [
  { type: 'HELLO' },
  { type: 'ELECT', j: 'x' },
  { type: '__proto__' },
  { type: 'constructor' },
  { type: 'ELECTION' },
  { type: 'ELECTION', list: 'x', election: 'y' },
  { type: 'ELECTION', seq: -1, eid: 5, list: [1e12] },
  { type: 'COORDINATOR', coordinator: 'x', term: -3 },
  { type: 'COORDINATOR', seq: 1, eid: 'e', coordinator: 999, origin: 999 },
  { type: 'OK', election: null },
  { type: 'ELECTED', seq: 1, coordinator: 424242, epoch: 1 },
  { type: 'ACK', seq: 'x' },
  { type: 'REQUEST_VOTE', term: 'x' },
  { type: 'VOTE', term: 1e300, granted: 'yes' },
  { type: 'ABORT', master: -1 },
  { type: 'CANDIDATE', extra: { deep: [1, 2, 3] } },
];

describe.each(ALGORITHM_NAMES)('malformed messages to %s server-side bots', (algorithm) => {
  it('are ignored and counted; the relay stays up and the bots still elect', async () => {
    const h = await startRelay();
    harnesses.push(h);
    const lab = `m-${algorithm}`;
    expect(
      (await h.api('POST', '/api/labs', { name: lab, size: 5, algorithm, timing: TIMING })).status,
    ).toBe(201);
    expect(
      (await h.api('POST', `/api/labs/${lab}/bots`, { count: 4, ids: [0, 1, 2, 3] })).status,
    ).toBe(201);
    const c = await connect(h, 'ws');
    c.send({ type: 'join', lab, id: 4 });
    await c.next((f) => f.type === 'joined');
    for (const message of MALFORMED)
      for (const to of [0, 1, 2, 3]) c.send({ type: 'send', to, message });
    // Every bot ignored what it got, and says how many.
    await waitFor(
      async () => {
        const snap = (await h.api('GET', `/api/labs/${lab}`)).body;
        return [0, 1, 2, 3].every(
          (id) =>
            (snap.processes.find((p: { id: number }) => p.id === id)?.report?.detail?.ignored ??
              0) > 0,
        );
      },
      5000,
      'ignored counts in the reports',
    );
    await c.close();
    // With 4 gone, the four bots must agree on one of themselves.
    const quiet = async () => {
      const s = (await h.api('GET', `/api/labs/${lab}/stats`)).body;
      const entries = Object.entries(s.coordinators as Record<string, number>);
      return (
        entries.length === 1 &&
        entries[0]![1] === 4 &&
        ['0', '1', '2', '3'].includes(entries[0]![0])
      );
    };
    await waitFor(quiet, 15_000, `${algorithm} bots agree`);
    expect((await h.api('GET', '/api/health')).body.ok).toBe(true);
  });
});
