// Observers of the lab list (server/lab/lab-list.ts): `observe-labs` over either transport, then a
// `labs-changed` frame whenever a lab is created or removed, so the home page need not poll.
import { afterAll, describe, expect, it } from 'vitest';
import { connect, startRelay, type Harness } from '../helpers/relay-harness.ts';

let h: Harness;
afterAll(async () => h?.close());

describe('lab list observers', () => {
  it('are told when a lab is created and when one is removed, over both transports', async () => {
    h = await startRelay();
    const ws = await connect(h, 'ws');
    const sio = await connect(h, 'socketio');
    ws.send({ type: 'observe-labs' });
    sio.send({ type: 'observe-labs' });
    await new Promise((r) => setTimeout(r, 100));
    const changed = (f: { type: string }) => f.type === 'labs-changed';

    const marks = [ws.received.length, sio.received.length];
    expect((await h.api('POST', '/api/labs', { name: 'listed', size: 3 })).status).toBe(201);
    await ws.next(changed, 2000, marks[0]);
    await sio.next(changed, 2000, marks[1]);

    const again = [ws.received.length, sio.received.length];
    expect((await h.api('DELETE', '/api/labs/listed')).status).toBe(204);
    await ws.next(changed, 2000, again[0]);
    await sio.next(changed, 2000, again[1]);

    // A client that did not ask is not told.
    const quiet = await connect(h, 'ws');
    const mark = ws.received.length;
    expect((await h.api('POST', '/api/labs', { name: 'unseen', size: 3 })).status).toBe(201);
    await ws.next(changed, 2000, mark);
    await new Promise((r) => setTimeout(r, 50));
    expect(quiet.received.some((r) => changed(r.frame))).toBe(false);
    await Promise.all([ws.close(), sio.close(), quiet.close()]);
  });
});
