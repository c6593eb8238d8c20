// The relay checks every frame before it touches state (server/lab/frame-check.ts). Its hot path, the
// `send` frame every message travels in, is checked by hand without zod's copy; the schema stays
// the source of truth: on valid, mutated and random frames, what checkFrame accepts and returns
// must be exactly what the frame schema's parse accepts and returns.
import { describe, expect, it } from 'vitest';
import { ClientFrameSchema } from '@shared/protocol/frames.ts';
import { createRng } from '@shared/sim/rng.ts';
import { checkFrame } from '../../server/lab/frame-check.ts';

const VALUES: unknown[] = [
  0,
  1,
  7,
  -1,
  1.5,
  1_000_000,
  1_000_001,
  2 ** 53,
  NaN,
  '',
  'x',
  'y'.repeat(64),
  'y'.repeat(65),
  'ELECTION',
  't'.repeat(32),
  't'.repeat(33),
  null,
  true,
  [],
  [1],
  {},
  { type: 'OK' },
  { type: '' },
  { type: 3 },
];

function mutate(rnd: () => number, frame: Record<string, unknown>): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]) => structuredClone(xs[Math.floor(rnd() * xs.length)]!);
  const out: Record<string, unknown> = { ...frame, message: { ...(frame['message'] as object) } };
  const n = 1 + Math.floor(rnd() * 3);
  for (let i = 0; i < n; i++) {
    const where = rnd();
    if (where < 0.25) out['to'] = pick(VALUES);
    else if (where < 0.4) out['ref'] = pick(VALUES);
    else if (where < 0.5) delete out[pick(['to', 'message', 'ref'])];
    else if (where < 0.6) out[pick(['extra', 'from', 'lab', '__proto__x'])] = pick(VALUES);
    else if (where < 0.75) out['message'] = pick(VALUES);
    else if (typeof out['message'] === 'object' && out['message'] !== null)
      (out['message'] as Record<string, unknown>)[pick(['type', 'election', 'term', 'list'])] =
        pick(VALUES);
  }
  return out;
}

describe('checkFrame', () => {
  it('accepts and returns exactly what the schema does for send frames: valid, mutated and random', () => {
    const rnd = createRng(16);
    const valid = [
      { type: 'send', to: 3, message: { type: 'ELECTION', election: 2, term: 1 } },
      { type: 'send', to: 0, message: { type: 'COORDINATOR' }, ref: 'r-1' },
      {
        type: 'send',
        to: 1_000_000,
        message: { type: 't'.repeat(32), list: [1, 2, { a: [] }] },
        ref: 42,
      },
    ];
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 5000; i++) {
      const base = valid[i % valid.length]!;
      const frame = i < valid.length ? base : mutate(rnd, base);
      // Both read the frame as it arrives: JSON (NaN becomes null on the way).
      const text = JSON.stringify(frame);
      const zod = ClientFrameSchema.safeParse(JSON.parse(text));
      const mine = checkFrame(JSON.parse(text));
      expect(mine.ok, text).toBe(zod.success);
      if (mine.ok && zod.success) {
        expect(mine.value).toEqual(zod.data);
        accepted++;
      } else refused++;
    }
    // Both sides of the rule were exercised.
    expect(accepted).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(500);
  });

  it('names what is wrong with a send frame it refuses (the schema says why)', () => {
    const r = checkFrame({ type: 'send', to: -1, message: { type: 'OK' }, ref: 'a' });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error).toMatchObject({
        code: 'BAD_FRAME',
        ref: 'a',
        details: [expect.stringMatching(/^to: /)],
      });
  });
});
