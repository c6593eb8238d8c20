// `npm start`'s demo lab (server/demo-lab.ts, server/lab/demo-loop.ts; issue 28 item 7): it starts
// alive, with server bots and a coordinator within seconds; the loop crashes the coordinator and
// recovers it; and any instructor request on the lab hands it over to the person (the loop stops
// and recovers what it crashed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDemoLab } from '../../server/demo-lab.ts';
import { startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

const coordinators = async () =>
  (await h.api('GET', '/api/labs/demo/stats')).body.coordinators as Record<string, number>;
const demo = async () =>
  (await h.api('GET', '/api/labs/demo/demo', undefined, { token: null })).body as {
    running: boolean;
    crashed?: number | null;
  };

describe('the demo lab', () => {
  it('fills with server bots, elects within seconds, is crashed and recovered by the loop, and stops at an instructor action', async () => {
    // A short period, so the test sees a whole cycle; the default is half a minute.
    const started = performance.now();
    const opened = await openDemoLab(h.relay, { everyMs: 4000 });
    expect(opened).toEqual({ bots: [0, 1, 2, 3, 4, 5, 6, 7] });
    await waitFor(async () => (await coordinators())['7'] === 8, 10_000, 'all eight agreeing on 7');
    const firstElection = performance.now() - started;
    expect(firstElection).toBeLessThan(10_000);
    console.log(`demo lab: 8 bots agree on 7 after ${Math.round(firstElection)} ms`);

    // The loop crashes 7; the others elect 6; the loop then recovers 7, who wins again (000: the highest live id).
    await waitFor(async () => (await demo()).crashed === 7, 10_000, 'the loop crashing 7');
    await waitFor(
      async () => (await coordinators())['6'] === 7,
      10_000,
      'the seven left agreeing on 6',
    );
    await waitFor(async () => (await demo()).crashed === null, 10_000, 'the loop recovering 7');
    await waitFor(
      async () => (await coordinators())['7'] === 8,
      10_000,
      'all eight agreeing on 7 again',
    );

    // A stranger's request changes nothing; the instructor's first control takes the lab over.
    expect(
      (await h.api('POST', '/api/labs/demo/processes/3/elect', undefined, { token: 'nope' }))
        .status,
    ).toBe(401);
    expect((await demo()).running).toBe(true);
    await waitFor(async () => (await demo()).crashed === 7, 10_000, 'the loop crashing 7 again');
    expect((await h.api('POST', '/api/labs/demo/processes/3/elect')).status).toBe(200);
    expect(await demo()).toEqual({ running: false });
    // What the loop crashed is back up for the person who took over.
    const snap = (await h.api('GET', '/api/labs/demo')).body as {
      processes: { id: number; status: string }[];
    };
    expect(snap.processes.find((p) => p.id === 7)?.status).toBe('up');
    expect(h.relay.demo.status('demo')).toEqual({ running: false });
  }, 60_000);

  it('DELETE /api/labs/:lab/demo stops a running loop (instructor only) and GET answers an unknown lab with 404', async () => {
    h.relay.demo.start(h.relay.labs.get('demo')!, 60_000);
    expect((await h.api('DELETE', '/api/labs/demo/demo', undefined, { token: null })).status).toBe(
      401,
    );
    expect((await demo()).running).toBe(true);
    const del = await h.api('DELETE', '/api/labs/demo/demo');
    expect([del.status, del.body]).toEqual([200, { running: false }]);
    expect((await h.api('GET', '/api/labs/nope/demo')).status).toBe(404);
  });
});
