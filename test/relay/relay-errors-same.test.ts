// One error per input whatever the transport (issue 14): the same bad input gets the same code,
// message and `ref` echo over raw WebSocket and over socket.io, and REST errors never say "frame".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as ioClient } from 'socket.io-client';
import WebSocket from 'ws';
import { MAX_FRAME_BYTES } from '@shared/protocol/frames.ts';
import { connect, startRelay, TOKEN, type Harness } from '../helpers/relay-harness.ts';

type Err = { type: string; code: string; message: string; ref?: unknown };

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h?.close();
});

/** The first error answer to one input, on each transport. */
async function answers(input: unknown): Promise<{ ws: Err; socketio: Err }> {
  const out: Record<string, Err> = {};
  for (const transport of ['ws', 'socketio'] as const) {
    const c = await connect(h, transport);
    c.send(input);
    out[transport] = (await c.next((f) => f.type === 'error')) as Err;
    await c.close();
  }
  return out as { ws: Err; socketio: Err };
}

/** Binary data: a binary WebSocket message, and a Buffer as socket.io's frame argument. */
async function binaryAnswers(): Promise<{ ws: Err; socketio: Err }> {
  const ws = new WebSocket(h.wsUrl);
  await new Promise((r) => ws.once('open', r));
  const wsErr = new Promise<Err>((r) => ws.once('message', (d) => r(JSON.parse(String(d)))));
  ws.send(Buffer.from('{"type":"ping"}'), { binary: true });
  const socket = ioClient(h.url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
  });
  await new Promise<void>((r) => socket.once('connect', () => r()));
  const ioErr = new Promise<Err>((r) => socket.once('frame', r));
  socket.emit('frame', Buffer.from('{"type":"ping"}'));
  const result = { ws: await wsErr, socketio: await ioErr };
  ws.close();
  socket.disconnect();
  return result;
}

const same = (a: { ws: Err; socketio: Err }) => expect(a.socketio).toEqual(a.ws);

describe('one error per input on both transports', () => {
  it('a frame without `type` is BAD_FRAME, echoing its ref, on both', async () => {
    const a = await answers({ lab: 'x', ref: 'r1' });
    same(a);
    expect(a.ws).toMatchObject({ code: 'BAD_FRAME', ref: 'r1' });
  });

  it('an unknown `type` is UNKNOWN_TYPE on both', async () => {
    const a = await answers({ type: 'dance', ref: 2 });
    same(a);
    expect(a.ws).toMatchObject({ code: 'UNKNOWN_TYPE', ref: 2 });
  });

  it('a frame over the size limit is FRAME_TOO_LARGE with the same text and no ref on both (it is not read)', async () => {
    const a = await answers({ type: 'ping', ref: 'big', pad: 'x'.repeat(MAX_FRAME_BYTES + 100) });
    same(a);
    expect(a.ws.code).toBe('FRAME_TOO_LARGE');
    expect(a.ws.ref).toBeUndefined();
    expect(a.ws.message).toContain(String(MAX_FRAME_BYTES));
  });

  it('a JSON string instead of an object is BAD_FRAME on both', async () => {
    const a = await answers('{"type":"ping"}');
    same(a);
    expect(a.ws.code).toBe('BAD_FRAME');
  });

  it('binary data is BAD_FRAME on both', async () => {
    const a = await binaryAnswers();
    same(a);
    expect(a.ws).toMatchObject({ code: 'BAD_FRAME', message: 'Frames are JSON text, not binary' });
  });

  it('REST errors speak of the request body, not of a frame', async () => {
    const bad = await fetch(`${h.url}/api/labs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` },
      body: '{oops',
    });
    const body = (await bad.json()) as Err;
    expect(body.code).toBe('BAD_JSON');
    expect(body.message).not.toMatch(/frame/i);
  });
});
