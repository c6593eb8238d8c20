// The relay's outgoing WebSocket frames (server/transport/frame-batch.ts): encoded at once into one shared
// buffer, written once per tick per connection, read back by ws's own frame parser (the client
// side of RFC 6455: unmasked text frames, 7-, 16- and 64-bit lengths, UTF-8).
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
// ws's own frame parser, as a client uses it (exported by ws, not declared in its typings).
import * as wsModule from 'ws';
import {
  ARENA_BYTES,
  FrameArena,
  FrameBatch,
  textFrame,
} from '../../server/transport/frame-batch.ts';

interface FrameParser {
  on(event: 'message', fn: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'error', fn: (err: unknown) => void): void;
  write(chunk: Buffer): void;
}
const Receiver = (
  wsModule as unknown as { Receiver: new (opts: { isServer: boolean }) => FrameParser }
).Receiver;

/** A socket that keeps what is written to it, and the frames ws's parser reads from that. */
function fakeSocket() {
  const writes: Buffer[] = [];
  const messages: string[] = [];
  const errors: unknown[] = [];
  const receiver = new Receiver({ isServer: false });
  receiver.on('message', (data: Buffer, isBinary: boolean) =>
    messages.push(isBinary ? '<binary>' : data.toString('utf8')),
  );
  receiver.on('error', (err: unknown) => errors.push(err));
  const socket = {
    destroyed: false,
    write(chunk: Buffer): boolean {
      // Kept as handed over, not copied: `reread` finds out if the relay wrote into it again.
      writes.push(chunk);
      receiver.write(chunk);
      return true;
    },
  };
  return { socket: socket as unknown as Socket, writes, messages, errors };
}

/** The frames in what a socket was handed, parsed again now. */
function reread(writes: Buffer[]): string[] {
  const out: string[] = [];
  const again = new Receiver({ isServer: false });
  again.on('message', (data: Buffer) => out.push(data.toString('utf8')));
  again.on('error', (err: unknown) => out.push(`error: ${String(err)}`));
  for (const w of writes) again.write(w);
  return out;
}

const tick = () => new Promise<void>((r) => process.nextTick(r));

describe('frame batch', () => {
  it('writes each connection one buffer per tick, its frames in send order, whatever the interleaving', async () => {
    const arena = new FrameArena();
    const peers = Array.from({ length: 5 }, () => fakeSocket());
    const batches = peers.map((p) => new FrameBatch(() => p.socket));
    for (let i = 0; i < 300; i++)
      arena.send(batches[(i * 7) % 5]!, JSON.stringify({ type: 'deliver', i }));
    expect(peers.every((p) => p.writes.length === 0)).toBe(true);
    await tick();
    for (const [k, p] of peers.entries()) {
      expect(p.writes).toHaveLength(1);
      const expected = Array.from({ length: 300 }, (_, i) => i).filter((i) => (i * 7) % 5 === k);
      expect(p.messages.map((m) => (JSON.parse(m) as { i: number }).i)).toEqual(expected);
      expect(p.errors).toEqual([]);
    }
  });

  it('encodes every length form and UTF-8 as ws reads it: empty, 125, 126, 65,535 and 70,000 bytes, accents and emoji', async () => {
    const arena = new FrameArena();
    const p = fakeSocket();
    const batch = new FrameBatch(() => p.socket);
    const texts = [
      '',
      'a'.repeat(125),
      'b'.repeat(126),
      'c'.repeat(65_535),
      'd'.repeat(70_000),
      'é'.repeat(100),
      '🗳️ élection',
      'x'.repeat(200),
    ];
    for (const t of texts) arena.send(batch, t);
    await tick();
    expect(p.messages).toEqual(texts);
    expect(p.errors).toEqual([]);
    // The frame built on its own is the same bytes the arena writes.
    expect(
      textFrame('élection').equals(
        Buffer.concat([Buffer.from([0x81, 9]), Buffer.from('élection')]),
      ),
    ).toBe(true);
  });

  it('writes early when a tick sends more than the shared buffer holds, keeping each connection in order', async () => {
    const arena = new FrameArena();
    const a = fakeSocket();
    const b = fakeSocket();
    const ba = new FrameBatch(() => a.socket);
    const bb = new FrameBatch(() => b.socket);
    const text = (i: number) => `${String(i).padStart(6, '0')}${'z'.repeat(4000)}`;
    const n = Math.ceil((3 * ARENA_BYTES) / 4000);
    for (let i = 0; i < n; i++) arena.send(i % 2 ? bb : ba, text(i));
    // Written during the tick, more than once each: the buffer filled.
    expect(a.writes.length).toBeGreaterThan(1);
    await tick();
    const order = (msgs: string[]) => msgs.map((m) => Number(m.slice(0, 6)));
    expect(order(a.messages)).toEqual(
      Array.from({ length: n }, (_, i) => i).filter((i) => i % 2 === 0),
    );
    expect(order(b.messages)).toEqual(
      Array.from({ length: n }, (_, i) => i).filter((i) => i % 2 === 1),
    );
    // The shared buffer was filled again after each early write: what the sockets hold is unchanged.
    expect(reread(a.writes)).toEqual(a.messages);
    expect(reread(b.writes)).toEqual(b.messages);
  });

  it("hands each write its own bytes: one peer sent three buffers' worth in a tick reads them all, in order, afterwards", async () => {
    const arena = new FrameArena();
    const p = fakeSocket();
    const batch = new FrameBatch(() => p.socket);
    const n = Math.ceil((3 * ARENA_BYTES) / 5000);
    for (let i = 0; i < n; i++)
      arena.send(batch, `${String(i).padStart(6, '0')}${'y'.repeat(5000)}`);
    await tick();
    expect(p.writes.length).toBeGreaterThan(2);
    const expected = Array.from({ length: n }, (_, i) => i);
    expect(p.messages.map((m) => Number(m.slice(0, 6)))).toEqual(expected);
    expect(reread(p.writes).map((m) => Number(m.slice(0, 6)))).toEqual(expected);
  });

  it('writes a connection at once on demand (before a close), and drops the frames of one that has gone, counted', async () => {
    let gone = 0;
    const arena = new FrameArena((n) => (gone += n));
    const p = fakeSocket();
    let open = true;
    const batch = new FrameBatch(() => (open ? p.socket : null));
    arena.send(batch, 'before close');
    arena.write(batch);
    expect(p.messages).toEqual(['before close']);
    expect(batch.pending).toBe(0);
    open = false;
    arena.send(batch, 'after it went');
    arena.send(batch, 'and another');
    expect(batch.pending).toBeGreaterThan(0);
    await tick();
    expect(p.messages).toEqual(['before close']);
    expect(batch.pending).toBe(0);
    expect(gone).toBe(2);
    // A large frame written on its own to a connection that has gone: one more.
    arena.send(batch, 'x'.repeat(100_000));
    expect(gone).toBe(3);
  });
});
