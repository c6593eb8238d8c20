// Issue 29: what a Maelstrom node's stdout line means to the lab (shared/protocol/maelstrom.ts)
// and how its output is cut into bounded, numbered lines (scripts/maelstrom/line-reader.ts).
// Maelstrom's doc/protocol.md: `{src, dest, body: {type, msg_id?, in_reply_to?}}`, init with
// node_id and node_ids, answered by init_ok with in_reply_to.
import { describe, expect, it } from 'vitest';
import { BULLY_SCHEMAS } from '@shared/algorithms/bully-messages.ts';
import { RING_SCHEMAS } from '@shared/algorithms/ring-messages.ts';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import { MAX_FRAME_BYTES } from '@shared/protocol/frames.ts';
import {
  electLine,
  initLine,
  messageLine,
  nodeId,
  readInboundLine,
  readNodeLine,
} from '@shared/protocol/maelstrom.ts';
import { LineReader, type LineEvent } from '../../scripts/maelstrom/line-reader.ts';
import { parseHostArgs } from '../../scripts/maelstrom/cli-args.ts';

const ctx = { self: 3, ids: new Set([0, 3, 5, 7]), schemas: BULLY_SCHEMAS };
const line = (dest: string, body: object, src = 'n3') => JSON.stringify({ src, dest, body });

describe('node names', () => {
  it('reads "n<k>" as process k and nothing else', () => {
    expect(['n0', 'n7', 'n1000000'].map(nodeId)).toEqual([0, 7, 1_000_000]);
    expect(['n07', 'n-1', 'c1', 'lab', 'n', 'n1000001', 'N7', ' n7'].map(nodeId)).toEqual(
      Array(8).fill(null),
    );
    expect(nodeId(7)).toBeNull();
  });
});

describe('readNodeLine: a node stdout line', () => {
  it('a message to n<k> becomes a send of the body, without msg_id, in_reply_to or fields the algorithm does not have', () => {
    expect(
      readNodeLine(
        line('n7', {
          type: 'ELECTION',
          election: 2,
          term: 4,
          msg_id: 9,
          in_reply_to: 1,
          extra: 'x',
        }),
        ctx,
      ),
    ).toEqual({
      kind: 'send',
      to: 7,
      message: { type: 'ELECTION', election: 2, term: 4 },
    });
  });

  it.each([
    ['not JSON', '{"src":', /not JSON/],
    ['no body', JSON.stringify({ src: 'n3', dest: 'n7' }), /not a Maelstrom message: body/],
    ['a body without type', line('n7', { election: 1 }), /body.type/],
    ['a non-integer msg_id', line('n7', { type: 'OK', election: 1, msg_id: 1.5 }), /body.msg_id/],
    [
      "another node's src",
      line('n7', { type: 'OK', election: 1 }, 'n5'),
      /src is "n5", not this node's id "n3"/,
    ],
    [
      'a node not in the lab',
      line('n4', { type: 'OK', election: 1 }),
      /dest "n4" is no node of this lab/,
    ],
    ['a client', line('c1', { type: 'OK', election: 1 }), /dest "c1"/],
    ['itself', line('n3', { type: 'OK', election: 1 }), /cannot send to itself/],
    [
      'a type the algorithm does not have',
      line('n7', { type: 'broadcast' }),
      /does not fit the lab algorithm's "broadcast" message \(types: ELECTION, OK, COORDINATOR, HEARTBEAT, PING, PONG\)/,
    ],
    ['a field of the wrong type', line('n7', { type: 'OK', election: -1 }), /"OK" message/],
    ['anything but a report to lab', line('lab', { type: 'log', text: 'hi' }), /"lab" takes only/],
  ])('refuses %s', (_what, text, reason) => {
    const r = readNodeLine(text, ctx);
    expect(r.kind).toBe('refused');
    expect(r.kind === 'refused' && r.reason).toMatch(reason);
  });

  it("refuses a message whose frame would pass the relay's limit", () => {
    const ids = Array.from({ length: 3000 }, (_, i) => 100_000 + i);
    const ring = { self: 3, ids: new Set([3, 7, ...ids]), schemas: RING_SCHEMAS };
    const election = (list: number[]) => ({ type: 'ELECTION', seq: 1, eid: '3:1', list });
    const r = readNodeLine(line('n7', election(ids)), ring);
    expect(r.kind === 'refused' && r.reason).toMatch(
      new RegExp(`takes \\d+ bytes as a frame; the relay takes ${MAX_FRAME_BYTES} at most`),
    );
    expect(readNodeLine(line('n7', election(ids.slice(0, 10))), ring).kind).toBe('send');
  });

  it('a report to lab is the report frame\'s report; ids may be written "n<k>"', () => {
    expect(
      readNodeLine(
        line('lab', {
          type: 'report',
          role: 'follower',
          coordinator: 'n7',
          electing: false,
          activeList: ['n0', 3],
          msg_id: 4,
        }),
        ctx,
      ),
    ).toEqual({
      kind: 'report',
      report: { role: 'follower', coordinator: 7, electing: false, activeList: [0, 3] },
    });
    expect(
      readNodeLine(
        line('lab', {
          type: 'report',
          role: 'coordinator',
          coordinator: 3,
          electing: false,
          detail: { term: 2 },
        }),
        ctx,
      ),
    ).toMatchObject({ kind: 'report', report: { coordinator: 3, detail: { term: 2 } } });
    for (const bad of [
      { role: '', coordinator: 7, electing: false },
      { role: 'x', coordinator: 'c7', electing: false },
      { role: 'x', coordinator: 7 },
      { role: 'x', coordinator: 7, electing: false, mood: 'good' },
    ]) {
      const r = readNodeLine(line('lab', { type: 'report', ...bad }), ctx);
      expect(r.kind === 'refused' && r.reason).toMatch(/report does not fit the report frame/);
    }
  });

  it('init_ok is read with its in_reply_to, whatever its dest', () => {
    expect(readNodeLine(line('lab', { type: 'init_ok', in_reply_to: 1 }), ctx)).toEqual({
      kind: 'init_ok',
      inReplyTo: 1,
    });
    expect(readNodeLine(line('c0', { type: 'init_ok' }), ctx)).toEqual({
      kind: 'init_ok',
      inReplyTo: undefined,
    });
  });
});

describe('the lines the host writes', () => {
  it("init has Maelstrom's fields, node ids sorted, and the lab's settings under lab", () => {
    const config = {
      algorithm: 'bully' as const,
      ids: [7, 0, 3],
      timing: DEFAULT_TIMING,
      detector: 'heartbeat' as const,
      options: {},
    };
    expect(initLine(3, config, 1)).toEqual({
      src: 'lab',
      dest: 'n3',
      body: {
        type: 'init',
        msg_id: 1,
        node_id: 'n3',
        node_ids: ['n0', 'n3', 'n7'],
        lab: { algorithm: 'bully', timing: DEFAULT_TIMING, detector: 'heartbeat', options: {} },
      },
    });
  });

  it('a lab message is its body verbatim; elect comes from lab; readInboundLine takes the envelope keys off again', () => {
    const m = messageLine(5, 3, { type: 'OK', election: 1 });
    expect(m).toEqual({ src: 'n5', dest: 'n3', body: { type: 'OK', election: 1 } });
    expect(electLine(3)).toEqual({ src: 'lab', dest: 'n3', body: { type: 'elect' } });
    expect(
      readInboundLine(JSON.stringify({ ...m, body: { ...m.body, msg_id: 8, in_reply_to: 2 } })),
    ).toEqual({ src: 'n5', dest: 'n3', body: { type: 'OK', election: 1 }, msgId: 8 });
    expect(readInboundLine('[]')).toBeNull();
    expect(readInboundLine('nope')).toBeNull();
  });
});

describe('LineReader: bounded, numbered lines', () => {
  const read = (max: number, chunks: (string | Buffer)[], end = true) => {
    const got: LineEvent[] = [];
    const r = new LineReader(max, (e) => got.push(e));
    for (const c of chunks) r.push(typeof c === 'string' ? Buffer.from(c) : c);
    if (end) r.end();
    return got;
  };

  it('joins a line written in pieces, a character split between chunks included, and drops a CR before the newline', () => {
    const euro = Buffer.from('€');
    expect(
      read(100, [
        'ab',
        Buffer.concat([Buffer.from('c'), euro.subarray(0, 1)]),
        Buffer.concat([euro.subarray(1), Buffer.from('\r\nnext\n')]),
      ]),
    ).toEqual([
      { kind: 'line', n: 1, text: 'abc€' },
      { kind: 'line', n: 2, text: 'next' },
    ]);
  });

  it('reports an overlong line by number and length, keeps none of it, and reads the next line', () => {
    expect(read(10, ['0123456789', '0123456789', '01\nshort\n', 'x'.repeat(11)])).toEqual([
      { kind: 'overlong', n: 1, bytes: 22 },
      { kind: 'line', n: 2, text: 'short' },
      { kind: 'overlong', n: 3, bytes: 11 },
    ]);
    expect(read(10, ['0123456789\n'])).toEqual([{ kind: 'line', n: 1, text: '0123456789' }]);
  });

  it('counts an empty line, and a last line without newline only at the end', () => {
    expect(read(10, ['\nlast'], false)).toEqual([{ kind: 'line', n: 1, text: '' }]);
    expect(read(10, ['\nlast'])).toEqual([
      { kind: 'line', n: 1, text: '' },
      { kind: 'line', n: 2, text: 'last' },
    ]);
  });
});

describe('npm run maelstrom arguments', () => {
  it('takes everything after -- as the node and its arguments, and names the process after its file', () => {
    const r = parseHostArgs([
      '--lab',
      'demo',
      '--id',
      '3',
      '--',
      'python3',
      'examples/maelstrom-python/bully_node.py',
      '--id',
      '9',
    ]);
    expect(r).toEqual({
      ok: true,
      args: {
        url: 'http://127.0.0.1:3000',
        lab: 'demo',
        id: 3,
        name: 'bully_node.py',
        transport: 'ws',
        initTimeoutMs: 10_000,
        command: 'python3',
        args: ['examples/maelstrom-python/bully_node.py', '--id', '9'],
      },
    });
    expect(parseHostArgs(['--lab', 'demo', '--', './my-node'])).toMatchObject({
      args: { name: 'my-node' },
    });
    expect(
      parseHostArgs(['--lab', 'demo', '--name', 'ada', '--', 'npm', 'run', 'x']),
    ).toMatchObject({ args: { name: 'ada' } });
  });

  it.each([
    [['--lab', 'demo', '--id', '3.5', '--', 'x'], /--id must be a whole number/],
    [['--lab', 'demo', '--transport', 'tcp', '--', 'x'], /--transport must be ws or socketio/],
    [['--lab', 'demo', '--init-timeout', '0', '--', 'x'], /--init-timeout/],
    [['--lab', 'demo', '--name', 'x'.repeat(41), '--', 'x'], /--name takes at most 40/],
  ])('refuses %j', (argv, error) => {
    const r = parseHostArgs(argv);
    expect(r.ok === false && r.error).toMatch(error);
  });
});
