// Issue 6 scenarios against the real relay: eight LabProcesses (shared/lab-client/lab-client.ts, real timers,
// both transports) on 127.0.0.1 port 0, cut into {0..3} and {4..7} over REST. The live checker
// runs in the relay: for Bully it flags the split brain (003, "Uniqueness") in the trace and in
// GET /stats; for Raft no term gets two leaders (Ongaro & Ousterhout, Figure 3) and the side
// without a majority elects none. Then a fabric delay raised above the timeouts makes spurious
// elections (003, "Spurious"), which the checker counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AlgorithmName, ProcessId } from '@shared/algorithms/algorithm.ts';
import type { CheckerSummary, Finding } from '@shared/analysis/checker.ts';
import { LabProcess, socketIoChannel, wsChannel } from '@shared/lab-client/lab-client.ts';
import type { LabStats } from '@shared/protocol/frames.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { SAFE_TIMING, startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

const TIMING = SAFE_TIMING;
const ids = [0, 1, 2, 3, 4, 5, 6, 7];
const low = [0, 1, 2, 3];
const high = [4, 5, 6, 7];

async function startLab(name: string, algorithm: AlgorithmName): Promise<LabProcess[]> {
  const r = await h.api('POST', '/api/labs', {
    name,
    algorithm,
    ids,
    timing: TIMING,
    detector: 'heartbeat',
    fabric: { link: { delay: 5, jitter: 5 } },
  });
  expect(r.status).toBe(201);
  const procs = ids.map(
    (id, i) =>
      new LabProcess({
        lab: name,
        id,
        kind: 'bot',
        channel: i % 2 === 0 ? wsChannel(h.wsUrl, WebSocket) : socketIoChannel(h.url),
      }),
  );
  expect(await Promise.all(procs.map((p) => p.start()))).toEqual(ids);
  return procs;
}

const stats = async (name: string): Promise<LabStats & { checker: CheckerSummary }> =>
  (await h.api('GET', `/api/labs/${name}/stats`)).body;
const coordinatorOf = (p: LabProcess) =>
  p.report && !p.report.electing ? p.report.coordinator : undefined;
const allFollow = (procs: LabProcess[], c: ProcessId) => procs.every((p) => coordinatorOf(p) === c);

async function findingsInTrace(name: string): Promise<Finding[]> {
  const text = (await h.api('GET', `/api/labs/${name}/trace`)).text;
  const events = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TraceEvent);
  return events.flatMap((e) => (e.kind === 'finding' ? [e.finding] : []));
}

describe('relay: partition of eight into {0..3} | {4..7}', () => {
  it('bully: each side ends with its own coordinator, and the relay flags the split brain in the trace and in /stats', async () => {
    const name = 'cut-bully';
    const procs = await startLab(name, 'bully');
    await waitFor(() => allFollow(procs, 7), 15_000, 'agreement on 7');
    expect((await stats(name)).checker.counts.safety).toBe(0);

    expect(
      (await h.api('POST', `/api/labs/${name}/partition`, { groups: [low, high] })).status,
    ).toBe(200);
    await waitFor(
      () => allFollow(procs.slice(0, 4), 3) && allFollow(procs.slice(4), 7),
      15_000,
      'a coordinator on each side',
    );
    await waitFor(
      async () => (await stats(name)).checker.counts.safety > 0,
      5000,
      'the split-brain finding',
    );
    const s = await stats(name);
    expect(s.checker.splitBrain).toEqual([expect.objectContaining({ processes: [3, 7] })]);
    expect(s.checker.recent.find((f) => f.kind === 'safety')?.processes).toEqual([3, 7]);
    await waitFor(
      async () => (await stats(name)).checker.counts.agreement > 0,
      8000,
      'the disagreement finding once quiet',
    );
    const traced = await findingsInTrace(name);
    expect(traced.find((f) => f.kind === 'safety')?.processes).toEqual([3, 7]);
    expect(traced.find((f) => f.kind === 'agreement')?.processes).toEqual(low);

    await h.api('DELETE', `/api/labs/${name}/partition`);
    await waitFor(() => allFollow(procs, 7), 15_000, 'agreement on 7 after healing');
    await waitFor(
      async () => (await stats(name)).checker.splitBrain.length === 0,
      5000,
      'the split brain to end',
    );
    for (const p of procs) p.stop();
  }, 60_000);

  it('raft: no term ever has two leaders, and the side cut off from the leader elects none', async () => {
    const name = 'cut-raft';
    const procs = await startLab(name, 'raft');
    await waitFor(
      () =>
        procs.some((p) => p.report?.role === 'leader') &&
        ids.every(
          (_, i) => coordinatorOf(procs[i]!) === procs.find((p) => p.report?.role === 'leader')?.id,
        ),
      20_000,
      'a raft leader all follow',
    );
    const leader = procs.find((p) => p.report?.role === 'leader')!.id!;
    const [withLeader, without] = low.includes(leader) ? [low, high] : [high, low];

    expect(
      (await h.api('POST', `/api/labs/${name}/partition`, { groups: [low, high] })).status,
    ).toBe(200);
    // Four of eight is no majority (5): the cut-off side campaigns, in ever higher terms, in vain.
    await waitFor(
      async () => (await stats(name)).checker.counts.liveness > 0,
      15_000,
      'the unfinished election to be flagged',
    );
    for (const id of without) expect(procs[id]!.report?.role, `process ${id}`).not.toBe('leader');
    expect(procs[leader]!.report?.role).toBe('leader');
    for (const id of withLeader) expect(procs[id]!.report?.coordinator).toBe(leader);
    const s = await stats(name);
    expect(s.checker.counts.safety).toBe(0);
    const late = s.checker.recent.filter((f) => f.kind === 'liveness');
    for (const f of late) expect(without).toEqual(expect.arrayContaining(f.processes));
    expect((await findingsInTrace(name)).filter((f) => f.kind === 'safety')).toEqual([]);
    for (const p of procs) p.stop();
  }, 60_000);
});

describe('relay: delay raised above the timeouts', () => {
  it('bully: raising the link delay past the heartbeat timeout makes the followers suspect a live coordinator; the checker counts it', async () => {
    const name = 'slow-bully';
    const procs = await startLab(name, 'bully');
    await waitFor(() => allFollow(procs, 7), 15_000, 'agreement on 7');
    const before = await stats(name);
    expect(before.checker.spuriousElections).toBe(0);
    // Heartbeats every 150 ms, silence after 900 ms: a 1200 ms delay leaves a gap nobody can bridge.
    expect((await h.api('PUT', `/api/labs/${name}/fabric`, { link: { delay: 1200 } })).status).toBe(
      200,
    );
    await waitFor(
      async () => (await stats(name)).checker.spuriousElections > 0,
      8000,
      'a spurious election',
    );
    const s = await stats(name);
    expect(s.checker.counts.spurious).toBeGreaterThan(0);
    expect(s.checker.recent.find((f) => f.kind === 'spurious')?.detail).toContain('7 was alive');
    for (const p of procs) p.stop();
  }, 60_000);
});
