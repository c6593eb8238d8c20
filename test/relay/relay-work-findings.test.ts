// The live checker's work findings (issue 27; 003's work schedule; docs/WORK_SCHEDULE.md, "The
// live checker"): "result lost", "result counted twice" and "a stale coordinator's order
// accepted", derived by the relay from the work messages it relayed and the crashes it caused.
// Server bots run the job; the instructor's REST calls make the faults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '@shared/protocol/finding.ts';
import { joinAs, labTrace, startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

const TIMING = { transmission: 30, processing: 5, heartbeatInterval: 100, heartbeatTimeout: 350 };
const WORK_KINDS = ['result-lost', 'counted-twice', 'stale-order'] as const;
let h: Harness;

beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

interface Checker {
  counts: Record<string, number>;
  recent: Finding[];
}
const checker = async (lab: string) =>
  (await h.api('GET', `/api/labs/${lab}/stats`)).body.checker as Checker;
const byType = async (lab: string) =>
  (await h.api('GET', `/api/labs/${lab}/stats`)).body.messages.byType as Record<string, number>;

async function lab(name: string, size: number, workload: Record<string, unknown>): Promise<void> {
  const made = await h.api('POST', '/api/labs', {
    name,
    size,
    timing: TIMING,
    detector: 'heartbeat',
    fabric: { link: { delay: 5, jitter: 0 } },
    workload: { size: 100, slow: [], ...workload },
  });
  expect(made.status).toBe(201);
}

const startBots = async (name: string, count: number) =>
  expect((await h.api('POST', `/api/labs/${name}/bots`, { count })).body.started).toHaveLength(
    count,
  );

describe('the live checker on a lab with a workload', () => {
  it('static sharing, a worker crashed mid-share: "result lost" for its tasks (003: "a crashed machine means missing results")', async () => {
    const name = 'lost-static';
    // Tasks of 2 s: 0's share (three tasks) takes 6 s, so the crash below lands before it is done
    // even when a loaded machine answers the stats poll and the crash request slowly (with 400 ms
    // tasks, 1.2 s of margin, a loaded run once crashed 0 after its results were stored).
    await lab(name, 4, { tasks: 9, taskMs: 2000, sharing: 'static', fencing: true });
    await startBots(name, 4);
    // Coordinator 3 splits the nine tasks among 0, 1 and 2 up front; 0 goes down before its share is done.
    await waitFor(async () => ((await byType(name))['WORK_ASSIGN'] ?? 0) >= 9, 10_000, 'the split');
    expect((await h.api('POST', `/api/labs/${name}/processes/0/crash`)).status).toBe(200);
    await waitFor(
      async () => ((await checker(name)).counts['result-lost'] ?? 0) >= 1,
      10_000,
      'a result-lost finding',
    );
    const f = (await checker(name)).recent.find((x) => x.kind === 'result-lost')!;
    expect(f.processes).toEqual([0]);
    expect(f.detail).toMatch(/static sharing never hands them out again/);
    // It is in the lab's trace too, as a finding event.
    const trace = await labTrace(h, name);
    expect(trace.some((e) => e.kind === 'finding' && e.finding.kind === 'result-lost')).toBe(true);
  });

  it('Bully split in two with fencing off: "stale order" once the old coordinator\'s orders are obeyed after the heal (003: "two machines decide they are co-ordinators")', async () => {
    const name = 'stale-off';
    await lab(name, 6, { tasks: 60, taskMs: 150, sharing: 'dynamic', fencing: false });
    await startBots(name, 6);
    await waitFor(
      async () => ((await byType(name))['WORK_STORE'] ?? 0) >= 3,
      10_000,
      'the job under way',
    );
    const cut = await h.api('POST', `/api/labs/${name}/partition`, {
      groups: [
        [0, 1, 2],
        [3, 4, 5],
      ],
    });
    expect(cut.status).toBe(200);
    // 2 is elected on its side and takes office with a newer token: its "what do you hold?".
    await waitFor(
      async () =>
        (await labTrace(h, name)).some(
          (e) => e.kind === 'send' && e.from === 2 && e.type === 'WORK_HOLD',
        ),
      10_000,
      '2 taking office',
    );
    expect((await h.api('DELETE', `/api/labs/${name}/partition`)).status).toBe(200);
    await waitFor(
      async () => ((await checker(name)).counts['stale-order'] ?? 0) >= 1,
      15_000,
      'a stale-order finding',
    );
    const f = (await checker(name)).recent.find((x) => x.kind === 'stale-order')!;
    // Usually 5's orders (the minority's old coordinator); on a loaded machine a late timer can make
    // another process coordinator for a moment first, and its order is just as stale: the finding
    // must name whichever it was.
    const m = /(\d+) obeyed (\d+)'s order .* \(fencing off\)/.exec(f.detail);
    expect(m, f.detail).not.toBeNull();
    expect(f.processes).toEqual([Number(m![1]), Number(m![2])]);
  });

  it('a process whose answer to "what do you hold?" lists a task twice: "counted twice", named as its claim', async () => {
    const name = 'twice';
    await lab(name, 2, { tasks: 4, taskMs: 100, sharing: 'dynamic', fencing: true });
    const a = await joinAs(h, 'ws', name, 0);
    await joinAs(h, 'ws', name, 1);
    a.c.send({
      type: 'send',
      to: 1,
      message: {
        type: 'WORK_HELD',
        token: 1,
        task: -1,
        boot: 0,
        reused: false,
        held: [
          [2, 0],
          [2, 0],
        ],
        stored: [2, 2],
      },
    });
    await waitFor(
      async () => ((await checker(name)).counts['counted-twice'] ?? 0) === 1,
      5000,
      'a counted-twice finding',
    );
    const f = (await checker(name)).recent.find((x) => x.kind === 'counted-twice')!;
    expect(f.processes).toEqual([0]);
    expect(f.detail).toMatch(/task 2 twice \(its claim/);
  });

  it('dynamic sharing with fencing on through a worker crash and recovery: none of the three findings', async () => {
    const name = 'clean';
    await lab(name, 4, { tasks: 12, taskMs: 150, sharing: 'dynamic', fencing: true });
    await startBots(name, 4);
    await waitFor(
      async () => ((await byType(name))['WORK_STORE'] ?? 0) >= 2,
      10_000,
      'the job under way',
    );
    await h.api('POST', `/api/labs/${name}/processes/0/crash`);
    await waitFor(
      async () => ((await byType(name))['WORK_STORE'] ?? 0) >= 6,
      10_000,
      'more results kept',
    );
    await h.api('POST', `/api/labs/${name}/processes/0/recover`);
    // Every task kept by the analyser: the Work panel's fold of the relay's trace says 12 done.
    await waitFor(
      async () => {
        const stored = new Set(
          (await labTrace(h, name)).flatMap((e) =>
            e.kind === 'send' && e.type === 'WORK_STORE'
              ? [(e.message as unknown as { task: number }).task]
              : [],
          ),
        );
        return stored.size === 12;
      },
      15_000,
      'every task stored',
    );
    const c = await checker(name);
    for (const k of WORK_KINDS) expect(c.counts[k], k).toBe(0);
  });
});
