// Integration: the bot runner's fleet (shared/lab-client/bot-fleet.ts) against the real relay, over both
// transports. Issue: "a small lab of bots elects the right coordinator after a crash, over both
// transports; reconnection after a relay restart". The rule checked is Bully's (000: "the
// process with the highest ID number will be the new coordinator").
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRelay, type Relay } from '../../server/relay.ts';
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { nodeChannel, type BotTransport } from '@shared/lab-client/node-channel.ts';
import { startRelay, TOKEN, waitFor, type Harness } from '../helpers/relay-harness.ts';

const TIMING = { transmission: 30, processing: 5, heartbeatInterval: 100, heartbeatTimeout: 350 };
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function makeLab(h: Harness, name: string, size: number): Promise<void> {
  const r = await h.api('POST', '/api/labs', {
    name,
    size,
    algorithm: 'bully',
    timing: TIMING,
    detector: 'heartbeat',
    fabric: { link: { delay: 5, jitter: 5 } },
  });
  expect(r.status).toBe(201);
}

function fleetOf(url: string, transport: BotTransport, lab: string, count: number): BotFleet {
  const fleet = new BotFleet({ lab, channel: () => nodeChannel(url, transport), count });
  cleanups.push(() => fleet.stop());
  return fleet;
}

const settledOn = (fleet: BotFleet, leader: number, up: number) => () => {
  const s = fleet.status();
  return s.agreed && s.coordinator === leader && s.up === up;
};

describe.each(['socketio', 'ws'] as const)('bot fleet over %s', (transport) => {
  it('bully bots elect the highest id, then the next highest after the coordinator crashes, then leave cleanly', async () => {
    const h = await startRelay();
    cleanups.push(() => h.close());
    const lab = `fleet-${transport}`;
    await makeLab(h, lab, 6);
    const fleet = fleetOf(h.url, transport, lab, 6);
    const started = await fleet.start();
    expect(started).toEqual({ joined: [0, 1, 2, 3, 4, 5], refused: [] });

    await waitFor(settledOn(fleet, 5, 6), 8000, 'agreement on 5');
    expect((await h.api('POST', `/api/labs/${lab}/processes/5/crash`)).status).toBe(200);
    await waitFor(settledOn(fleet, 4, 5), 8000, 'agreement on 4 after the crash');
    expect(fleet.status().crashed).toBe(1);

    // The relay sees what the bots report, as it would from browser tabs.
    await waitFor(
      async () => (await h.api('GET', `/api/labs/${lab}/stats`)).body.coordinators['4'] === 5,
      3000,
      'reports at the relay',
    );
    const snapshot = (await h.api('GET', `/api/labs/${lab}`)).body;
    expect(new Set(snapshot.processes.map((p: { kind: string }) => p.kind))).toEqual(
      new Set(['bot']),
    );
    expect(fleet.counters.episodes).toBeGreaterThanOrEqual(2);
    expect(fleet.counters.sentByType['ELECTION']).toBeGreaterThan(0);
    expect(fleet.counters.received).toBeGreaterThan(0);

    // Leaving frees the ids at once (no resume hold), as Ctrl-C in the CLI does.
    fleet.stop();
    await waitFor(
      async () =>
        (await h.api('GET', `/api/labs/${lab}`)).body.processes.every(
          (p: { status: string }) => p.status !== 'up',
        ),
      3000,
      'the bots to leave',
    );
    const again = fleetOf(h.url, transport, lab, 1);
    expect((await again.start()).joined).toEqual([0]);
    again.stop();
  });

  it('bots rejoin with their ids after the relay restarts, and elect again', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bots-restart-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const h = await startRelay({ dataDir });
    const port = Number(new URL(h.url).port);
    const lab = `restart-${transport}`;
    await makeLab(h, lab, 4);
    const fleet = fleetOf(h.url, transport, lab, 4);
    expect((await fleet.start()).joined).toEqual([0, 1, 2, 3]);
    await waitFor(settledOn(fleet, 3, 4), 8000, 'agreement on 3');

    await h.close({ keepData: true });
    await waitFor(
      () => fleet.status().connecting === 4,
      3000,
      'the bots to notice the relay is gone',
    );

    const relay2 = await relayOnPort(dataDir, port);
    cleanups.push(() => relay2.close());
    await waitFor(
      () => fleet.counters.rejoins >= 4 && settledOn(fleet, 3, 4)(),
      12_000,
      'rejoin and agreement on 3',
    );
    expect(fleet.processes.map((p) => p.id)).toEqual([0, 1, 2, 3]);
    const lab2 = relay2.labs.get(lab)!;
    await waitFor(
      () => lab2.processes.list().filter((e) => e.conn && e.report?.coordinator === 3).length === 4,
      3000,
      'reports at the new relay',
    );
    fleet.stop();
  }, 30_000);
});

/** A second relay on the first one's port and data folder (the lab comes back from disk). */
async function relayOnPort(dataDir: string, port: number): Promise<Relay> {
  const relay = await createRelay({ token: TOKEN, clientDir: null, traceFlushMs: 50, dataDir });
  await new Promise<void>((resolve, reject) => {
    relay.server.once('error', reject);
    relay.server.listen(port, '127.0.0.1', resolve);
  });
  expect((relay.server.address() as AddressInfo).port).toBe(port);
  return relay;
}
