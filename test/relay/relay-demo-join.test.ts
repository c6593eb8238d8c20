// Issue 28, a first look that moves: students join the demo lab while server bots hold every id.
// A person who asks for a bot's id takes it over (the bot is told `left` and stops); one who asks
// for none gets a free id, or, when none is free, the lowest id a live bot holds. A person's id is
// never taken over, and a bot cannot take a person's id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDemoLab } from '../../server/demo-lab.ts';
import { connect, joinAs, startRelay, waitFor, type Harness } from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

const processes = async () =>
  (await h.api('GET', '/api/labs/demo')).body.processes as {
    id: number;
    status: string;
    transport: string | null;
  }[];
const bots = async () => (await h.api('GET', '/api/labs/demo/bots')).body.ids as number[];

describe('joining the demo lab while server bots hold its ids', () => {
  it('a person takes a bot id (asked for, or the lowest when none is free); the bot yields; a person keeps hers', async () => {
    expect(await openDemoLab(h.relay, { everyMs: 600_000 })).toEqual({
      bots: [0, 1, 2, 3, 4, 5, 6, 7],
    });
    // Asked for: 5, a bot's.
    const ann = await joinAs(h, 'ws', 'demo', 5);
    expect(ann.id).toBe(5);
    // No id asked, none free: the lowest a live bot holds.
    const ben = await joinAs(h, 'socketio', 'demo');
    expect(ben.id).toBe(0);
    await waitFor(
      async () => !(await bots()).includes(5) && !(await bots()).includes(0),
      5000,
      'the bots of 0 and 5 leaving',
    );
    expect(await bots()).toEqual([1, 2, 3, 4, 6, 7]);
    const table = await processes();
    expect(table.find((p) => p.id === 5)).toMatchObject({ status: 'up', transport: 'ws' });
    expect(table.find((p) => p.id === 0)).toMatchObject({ status: 'up', transport: 'socketio' });

    // A person's id is hers: another person asking for it is refused, and nobody is displaced.
    const cat = await connect(h, 'ws');
    cat.send({ type: 'join', lab: 'demo', id: 5, kind: 'external' });
    expect(await cat.next((f) => f.type === 'joined' || f.type === 'error')).toMatchObject({
      type: 'error',
      code: 'ID_TAKEN',
    });
    expect(ann.c.received.some((r) => r.frame.type === 'left')).toBe(false);

    // The trace says the bot left and the person joined, in that order.
    const trace = (await h.api('GET', '/api/labs/demo/trace')).text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; node?: number });
    const at5 = trace.filter((e) => e.node === 5 && (e.kind === 'leave' || e.kind === 'join'));
    expect(at5.slice(-2).map((e) => e.kind)).toEqual(['leave', 'join']);

    // Every id taken by people: the next person is told the lab is full.
    const more = [];
    for (let i = 0; i < 6; i++) more.push(await joinAs(h, 'ws', 'demo'));
    expect(more.map((m) => m.id).sort()).toEqual([1, 2, 3, 4, 6, 7]);
    await waitFor(async () => (await bots()).length === 0, 5000, 'every bot yielding');
    const from = cat.received.length;
    cat.send({ type: 'join', lab: 'demo', kind: 'external' });
    expect(
      await cat.next((f) => f.type === 'joined' || f.type === 'error', 5000, from),
    ).toMatchObject({
      type: 'error',
      code: 'LAB_FULL',
    });
    for (const p of [ann, ben, ...more]) await p.c.close();
    await cat.close();
  });
});
