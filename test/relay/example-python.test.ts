// Issue 14: "an example process in another language under examples/, written against the docs
// only, run in a test beside the project's bots: it joins, takes part in a Bully election
// through a crash of the coordinator and agrees". examples/python speaks raw WebSocket with a
// hand-written RFC 6455 client (standard library only). Two Python processes (ids 3 and 6) run
// beside six bots; one reaches the relay through a front that answers `moved` (PROTOCOL.md, "A
// cluster of relays"). The relay pings every second here, so a Python process that did not
// answer WebSocket pings would be cut off while it sits silent as a follower. A dropped
// connection is resumed with the token.
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo, Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { nodeChannel } from '@shared/lab-client/node-channel.ts';
import { startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

const SCRIPT = fileURLToPath(new URL('../../examples/python/process.py', import.meta.url));
// Generous bounds: a busy test machine must not break UB = 2T + M, which is not what this checks.
const TIMING = { transmission: 100, processing: 10, heartbeatInterval: 150, heartbeatTimeout: 700 };
const SETTLE_MS = 15_000;
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface PyProc {
  child: ChildProcess;
  out: string[];
}

function python(relay: string, lab: string, id: number): PyProc {
  const child = spawn(
    'python3',
    [SCRIPT, '--relay', relay, '--lab', lab, '--id', String(id), '--name', `py${id}`],
    {
      env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const out: string[] = [];
  // Whole lines: unbuffered, Python writes a print's words in separate chunks, which may arrive apart.
  const keep = (line: string) => void (line && out.length < 2000 && out.push(line));
  createInterface({ input: child.stdout! }).on('line', keep);
  createInterface({ input: child.stderr! }).on('line', keep);
  cleanups.push(() => child.kill('SIGKILL'));
  return { child, out };
}

/**
 * A front that owns no lab: every `join` is answered `moved` to the real relay, in three
 * fragments with a ping between them (RFC 6455, 5.4: control frames may come amid a fragmented
 * message), which the Python client must reassemble and answer, and then closes: all of it in
 * one write, so the client reads `moved` and the close frame together and must act on `moved`.
 */
async function movedFront(target: string): Promise<{ url: string; joins: number; pongs: number }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  const front = {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`,
    joins: 0,
    pongs: 0,
  };
  wss.on('connection', (ws) => {
    ws.on('pong', (data) => String(data) === 'amid' && front.pongs++);
    ws.on('message', (data) => {
      const f = JSON.parse(String(data)) as { type: string; lab: string; ref?: string | number };
      if (f.type !== 'join') return;
      front.joins++;
      const text = JSON.stringify({
        type: 'moved',
        lab: f.lab,
        url: target,
        ...(f.ref !== undefined ? { ref: f.ref } : {}),
      });
      const third = Math.ceil(text.length / 3);
      // `_socket` is ws's own net.Socket (not in its typings).
      const socket = (ws as unknown as { _socket: Socket })._socket;
      socket.cork();
      ws.send(text.slice(0, third), { fin: false });
      ws.ping('amid');
      ws.send(text.slice(third, 2 * third), { fin: false });
      ws.send(text.slice(2 * third), { fin: true });
      ws.close(1000, 'moved');
      process.nextTick(() => socket.uncork());
    });
  });
  cleanups.push(() => new Promise((r) => wss.close(r)));
  return front;
}

interface Proc {
  id: number;
  status: string;
  kind: string | null;
  transport: string | null;
  report: { coordinator: number | null; electing: boolean } | null;
}

/** Every up process, as the relay sees it, reports `leader` and is not electing; `live` of them. */
async function agreed(h: Harness, lab: string, leader: number, live: number): Promise<boolean> {
  const procs = (await h.api('GET', `/api/labs/${lab}`)).body.processes as Proc[];
  const up = procs.filter((p) => p.status === 'up');
  return (
    up.length === live && up.every((p) => p.report?.coordinator === leader && !p.report.electing)
  );
}

describe('the Python example process (examples/python)', () => {
  it('follows moved, elects beside the bots, agrees on the next coordinator after each crash, and resumes a dropped connection', async () => {
    // Every second: a process that never answers is cut off within two, and a Python process held
    // up for a few hundred ms on a busy machine is not (250 ms cut one off mid-run in CI once).
    const h = await startRelay({ heartbeatMs: 1000 });
    cleanups.push(() => h.close());
    const lab = 'py';
    const created = await h.api('POST', '/api/labs', {
      name: lab,
      algorithm: 'bully',
      ids: [0, 1, 2, 3, 4, 5, 6, 7],
      timing: TIMING,
      detector: 'heartbeat',
      fabric: { link: { delay: 5, jitter: 5 } },
    });
    expect(created.status).toBe(201);

    const front = await movedFront(h.url);
    const py6 = python(front.url, lab, 6);
    const py3 = python(h.url, lab, 3);
    const fleet = new BotFleet({
      lab,
      channel: () => nodeChannel(h.url, 'ws'),
      count: 6,
      ids: [0, 1, 2, 4, 5, 7],
    });
    cleanups.push(() => fleet.stop());
    expect((await fleet.start()).joined).toEqual([0, 1, 2, 4, 5, 7]);

    // Everyone, the Python processes included, agrees on the highest id (000: "the process with
    // the highest id becomes coordinator").
    await waitFor(() => agreed(h, lab, 7, 8), SETTLE_MS, 'agreement on 7');
    const procs = (await h.api('GET', `/api/labs/${lab}`)).body.processes as Proc[];
    for (const id of [3, 6]) expect(procs[id]).toMatchObject({ kind: 'external', transport: 'ws' });
    expect(front).toMatchObject({ joins: 1, pongs: 1 });
    expect(py6.out).toContain(`moved to ${h.url}`);

    // The coordinator (a bot) crashes: the heartbeats stop, and Python's 6 must win and be believed.
    expect((await h.api('POST', `/api/labs/${lab}/processes/7/crash`)).status).toBe(200);
    await waitFor(() => agreed(h, lab, 6, 7), SETTLE_MS, 'agreement on 6 (Python) after 7 crashed');
    const stats = (await h.api('GET', `/api/labs/${lab}/stats`)).body;
    expect(stats.election.duration).toBeGreaterThan(0);
    // A figure, not asserted (the machine may be busy): detection (heartbeatTimeout) plus the election.
    console.log(
      `example-python: failover to Python's 6 took ${Math.round(stats.election.duration)} ms of election after detection; messages ${JSON.stringify(stats.election.byType)}`,
    );

    // The Python coordinator crashes: a bot (5) wins, and Python's 3 follows it.
    expect((await h.api('POST', `/api/labs/${lab}/processes/6/crash`)).status).toBe(200);
    await waitFor(() => agreed(h, lab, 5, 6), SETTLE_MS, 'agreement on 5 after 6 crashed');
    expect(py6.out).toContain('crashed');

    // Recovered, Python's 6 starts from scratch, holds an election and bullies 5.
    expect((await h.api('POST', `/api/labs/${lab}/processes/6/recover`)).status).toBe(200);
    await waitFor(() => agreed(h, lab, 6, 7), SETTLE_MS, 'agreement on 6 after it recovered');

    // Nothing went wrong on the wire so far: no error frames, no dropped connection (pings answered).
    for (const p of [py3, py6])
      expect(p.out.filter((l) => /^(error|disconnected|Traceback)/.test(l))).toEqual([]);
    const leaves = async () =>
      (await h.api('GET', `/api/labs/${lab}/trace`)).text
        .split('\n')
        .filter((l) => l.includes('"kind":"leave"'));
    expect(await leaves()).toEqual([]);

    // The relay drops Python 3's connection: it joins again with its resume token within the
    // grace (PROTOCOL.md, "Resume, exactly"), gets id 3 back, carries on and reports again.
    h.relay.labs.get(lab)!.processes.get(3)!.conn!.close();
    await waitFor(
      () => py3.out.filter((l) => l.startsWith('joined py as 3')).length === 2,
      10_000,
      'Python 3 to rejoin',
    ).catch((err: Error) => {
      throw new Error(`${err.message}; its output:\n${py3.out.slice(-15).join('\n')}`);
    });
    expect(py3.out.some((l) => l.startsWith('disconnected'))).toBe(true);
    expect((await leaves()).length).toBe(1);
    await waitFor(() => agreed(h, lab, 6, 7), SETTLE_MS, 'agreement on 6 after the rejoin');
    for (const p of [py3, py6]) {
      expect(p.out.filter((l) => /^(error|Traceback)/.test(l))).toEqual([]);
      expect(p.child.exitCode).toBeNull();
    }
  }, 60_000);
});
