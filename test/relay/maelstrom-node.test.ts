// Issue 29, "the other direction": `npm run maelstrom-node -- --algorithm bully` is our reference
// Bully as a Maelstrom node on stdin/stdout, with real timers. Lines are piped into the child as
// Maelstrom would: it answers init with init_ok (in_reply_to the init's msg_id), speaks Bully to
// n<k>, answers a client's request it does not serve with Maelstrom's error 10, suspects a silent
// coordinator on its own clock, and sends its beliefs to "lab" only when the lab's host sent init.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BULLY_SCHEMAS } from '@shared/algorithms/bully-messages.ts';
import { readNodeLine } from '@shared/protocol/maelstrom.ts';
import { waitFor } from '../helpers/relay-harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const kills: (() => void)[] = [];
afterAll(() => kills.forEach((k) => k()));

interface Line {
  src: string;
  dest: string;
  body: { type: string; msg_id?: number; in_reply_to?: number; [k: string]: unknown };
}

function node(args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/maelstrom-node.ts', '--algorithm', 'bully', ...args],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  kills.push(() => child.kill('SIGKILL'));
  const out: Line[] = [];
  const err: string[] = [];
  createInterface({ input: child.stdout! }).on(
    'line',
    (l) => void (out.length < 5000 && out.push(JSON.parse(l) as Line)),
  );
  createInterface({ input: child.stderr! }).on(
    'line',
    (l) => void (err.length < 5000 && err.push(l)),
  );
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const send = (line: unknown) =>
    child.stdin!.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
  /** The first line from index `from` on that fits `pred`, waiting for it. */
  // Generous: a cold tsx start took 15 s on a loaded machine.
  const next = async (pred: (l: Line) => boolean, what: string, from = 0): Promise<Line> => {
    await waitFor(
      () => out.slice(from).some(pred),
      120_000,
      `${what}; stdout so far: ${JSON.stringify(out.slice(-5))}; stderr: ${err.slice(-5).join(' | ')}`,
    );
    return out.slice(from).find(pred)!;
  };
  return { child, out, err, exited, send, next };
}

/** Every line to a node is one our host would take: from this node, to a lab id, fitting Bully's schemas. */
function allValid(lines: Line[], self: number, ids: number[]): void {
  for (const l of lines.filter((x) => x.dest.startsWith('n'))) {
    expect(
      readNodeLine(JSON.stringify(l), { self, ids: new Set(ids), schemas: BULLY_SCHEMAS }).kind,
    ).toBe('send');
  }
}

describe('npm run maelstrom-node -- --algorithm bully', () => {
  it("answers Maelstrom's init, holds an election, follows the coordinator, answers a client with error 10, and suspects the coordinator on its own timers", async () => {
    const n = node(['--heartbeat-interval', '100', '--heartbeat-timeout', '400']);
    n.send({
      src: 'c0',
      dest: 'n1',
      body: { type: 'init', msg_id: 1, node_id: 'n1', node_ids: ['n0', 'n1', 'n2'] },
    });
    const ok = await n.next((l) => l.body.type === 'init_ok', 'init_ok');
    expect(ok).toMatchObject({ src: 'n1', dest: 'c0', body: { type: 'init_ok', in_reply_to: 1 } });
    expect(n.out[0]).toBe(ok);
    // 000: a process that starts holds an election: ELECTION to every higher id.
    const election = await n.next((l) => l.body.type === 'ELECTION', 'ELECTION');
    expect(election).toMatchObject({
      src: 'n1',
      dest: 'n2',
      body: { type: 'ELECTION', election: 1 },
    });
    expect(typeof election.body.msg_id).toBe('number');

    n.send({ src: 'n2', dest: 'n1', body: { type: 'OK', election: 1, term: 1, msg_id: 1 } });
    n.send({ src: 'n2', dest: 'n1', body: { type: 'COORDINATOR', term: 1, msg_id: 2 } });
    await waitFor(
      () =>
        n.err.some(
          (l) =>
            l.startsWith('report ') &&
            l.includes('"coordinator":2') &&
            l.includes('"electing":false'),
        ),
      60_000,
      'belief in n2',
    );
    const mark = n.out.length;

    n.send({ src: 'c1', dest: 'n1', body: { type: 'read', msg_id: 7 } });
    expect(await n.next((l) => l.body.type === 'error', 'error 10', mark)).toMatchObject({
      dest: 'c1',
      body: { code: 10, in_reply_to: 7 },
    });
    n.send('not a message');
    await waitFor(
      () => n.err.some((l) => /^stdin line 5: not a Maelstrom message/.test(l)),
      60_000,
      'the garbage line reported',
    );

    // n2 sends no heartbeat: after the timeout n1 suspects it and holds a second election.
    const again = await n.next(
      (l) => l.body.type === 'ELECTION' && l.body['election'] === 2,
      'a second ELECTION',
      mark,
    );
    expect(again.dest).toBe('n2');
    // Maelstrom knows no "lab": nothing went there, since init came from a client.
    expect(n.out.filter((l) => l.dest === 'lab')).toEqual([]);
    allValid(n.out, 1, [0, 1, 2]);

    n.child.stdin!.end();
    expect(await n.exited).toBe(0);
  }, 300_000);

  it("takes the lab's timing from init's lab field, reports to lab when the lab's host sent init, leads with heartbeats, and obeys elect", async () => {
    const n = node([]);
    const lab = {
      algorithm: 'bully',
      timing: { transmission: 50, processing: 5, heartbeatInterval: 100, heartbeatTimeout: 300 },
      detector: 'heartbeat',
      options: {},
    };
    n.send({
      src: 'lab',
      dest: 'n2',
      body: { type: 'init', msg_id: 4, node_id: 'n2', node_ids: ['n0', 'n1', 'n2'], lab },
    });
    expect(await n.next((l) => l.body.type === 'init_ok', 'init_ok')).toMatchObject({
      dest: 'lab',
      body: { in_reply_to: 4 },
    });
    // The highest id declares itself at once (000) and reports it.
    await n.next((l) => l.body.type === 'COORDINATOR' && l.dest === 'n0', 'COORDINATOR to n0');
    await n.next((l) => l.body.type === 'COORDINATOR' && l.dest === 'n1', 'COORDINATOR to n1');
    const report = await n.next(
      (l) => l.dest === 'lab' && l.body.type === 'report' && l.body['coordinator'] === 2,
      'a report to lab',
    );
    expect(
      readNodeLine(JSON.stringify(report), {
        self: 2,
        ids: new Set([0, 1, 2]),
        schemas: BULLY_SCHEMAS,
      }),
    ).toMatchObject({
      kind: 'report',
      report: { coordinator: 2, role: 'coordinator', electing: false },
    });
    expect(n.err.some((l) => l.includes('"heartbeatInterval":100'))).toBe(true);
    // Heartbeats every heartbeatInterval (100 ms, from init's lab field): several within a second or so.
    await waitFor(
      () => n.out.filter((l) => l.body.type === 'HEARTBEAT' && l.dest === 'n0').length >= 3,
      60_000,
      'heartbeats',
    );

    // The instructor's elect arrives from "lab": a new election, declared again.
    const mark = n.out.length;
    n.send({ src: 'lab', dest: 'n2', body: { type: 'elect' } });
    await n.next(
      (l) => l.body.type === 'COORDINATOR' && l.dest === 'n0',
      'COORDINATOR after elect',
      mark,
    );
    allValid(n.out, 2, [0, 1, 2]);
    n.child.stdin!.end();
    expect(await n.exited).toBe(0);
  }, 300_000);

  it('drops its lines, and says so, while nobody reads its stdout, instead of holding them without bound', async () => {
    const n = node(['--heartbeat-interval', '1']);
    // The highest of 1,000 nodes: it declares itself and beats to 999 others every millisecond.
    const ids = Array.from({ length: 1000 }, (_, i) => `n${i}`);
    n.child.stdout!.pause();
    n.send({
      src: 'c0',
      dest: 'n999',
      body: { type: 'init', msg_id: 1, node_id: 'n999', node_ids: ids },
    });
    await waitFor(
      () =>
        n.err.some(
          (l) => l === 'stdout holds 1048576 bytes unread: dropping lines until it drains',
        ),
      120_000,
      'the stdout bound',
    );
    n.child.stdout!.resume();
    await waitFor(
      () => n.err.some((l) => /^stdout drained: \d+ lines were dropped$/.test(l)),
      60_000,
      'the drain',
    );
    expect(n.child.exitCode).toBeNull();
  }, 300_000);
});
