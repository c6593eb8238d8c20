// A student's name at the relay (shared/protocol/display-name.ts): normalised to NFC, and refused
// with an error naming the problem when it holds a control, bidirectional-control or zero-width
// character, alike on both transports (the one frame schema) and on the join page (the same schema).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DisplayNameSchema, nameProblem } from '@shared/protocol/display-name.ts';
import { connect, startRelay, type Harness } from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
  expect((await h.api('POST', '/api/labs', { name: 'names', size: 12 })).status).toBe(201);
});
afterAll(async () => {
  await h.close();
});

const REFUSED: [string, string][] = [
  ['exe.tnemngissa\u202e', 'U+202E'],
  ['\u2066Ada', 'U+2066'],
  ['Ada\u200f', 'U+200F'],
  ['\u061cAda', 'U+061C'],
  ['\u200bAda', 'U+200B'],
  ['A\u200dda', 'U+200D'],
  ['Ada\u2060', 'U+2060'],
  ['\ufeffAda', 'U+FEFF'],
  ['Ada\u0000', 'U+0000'],
  ['Ada\nLovelace', 'U+000A'],
  ['Ada\u0085', 'U+0085'],
];

describe('names', () => {
  it('names the character that is refused, and normalises what is kept', () => {
    for (const [name, code] of REFUSED) expect(nameProblem(name)).toContain(code);
    expect(nameProblem('Ada Lovelace')).toBeNull();
    expect(nameProblem('Zoë, Ωμέγα, 李')).toBeNull();
    // "A" + combining acute: one character after NFC.
    expect(DisplayNameSchema.parse('A\u0301da')).toBe('\u00c1da');
    expect(DisplayNameSchema.safeParse('x'.repeat(41)).success).toBe(false);
  });

  for (const transport of ['ws', 'socketio'] as const) {
    it(`refuses each such name in a join frame with an error naming it, and keeps the NFC form (${transport})`, async () => {
      const c = await connect(h, transport);
      for (const [name, code] of REFUSED) {
        const from = c.received.length;
        c.send({ type: 'join', lab: 'names', name, ref: 'j' });
        const err = await c.next((f) => f.type === 'error' || f.type === 'joined', 3000, from);
        expect(err).toMatchObject({ type: 'error', code: 'BAD_FRAME', ref: 'j' });
        expect((err as { message: string }).message).toContain(code);
        expect((err as { message: string }).message.startsWith('name: the name contains')).toBe(
          true,
        );
      }
      c.send({ type: 'join', lab: 'names', name: 'Zo\u0065\u0308' });
      const joined = await c.next((f) => f.type === 'joined');
      const id = (joined as { id: number }).id;
      expect((await h.api('GET', `/api/labs/names/processes/${id}`)).body.name).toBe('Zo\u00eb');
      await c.close();
    });
  }
});
