// Issue 16, "Algorithms are total": every algorithm checks each incoming message against its own
// schemas and ignores (and counts) what does not fit, so `step` never throws on any JSON a peer
// can send and no such message corrupts its state. Fuzzed over the states each algorithm reaches
// in random runs, with random JSON and mutations of its own messages; seeded.
import { describe, expect, it } from 'vitest';
import { ALGORITHM_NAMES, type Message } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { parseMessage } from '@shared/algorithms/messages.ts';
import { BULLY_SCHEMAS } from '@shared/algorithms/bully-messages.ts';
import { createRng } from '@shared/sim/rng.ts';
import { mutate, randomJson, reachStates } from '../helpers/message-fuzz.ts';

const SEED = 20261123;
const ctx = { now: 0, random: () => 0.5 };

describe.each(ALGORITHM_NAMES)('%s is total', (name) => {
  it('never throws on random or mutated messages, and ignores (and counts) what does not fit', () => {
    const alg = getAlgorithm(name);
    const reached = reachStates(alg, SEED);
    const r = createRng(SEED ^ 0x5eed);
    let tried = 0;
    let ignored = 0;
    const types = [...alg.messageTypes, 'HELLO', ''];
    for (const { state, sent } of reached) {
      for (let k = 0; k < 40; k++) {
        const own = sent.length
          ? sent[Math.floor(r() * sent.length)]!
          : { type: alg.messageTypes[0]! };
        const message = k % 3 === 0 ? randomJson(r) : mutate(own, r, types);
        const from = k % 7 === 0 ? [-1, 1.5, 2 ** 40, 3][k % 4]! : 1;
        tried++;
        let out;
        try {
          out = alg.step(state, { kind: 'message', from, message: message as Message }, ctx);
        } catch (err) {
          throw new Error(
            `${name} threw on ${JSON.stringify(message)} from ${from} (seed ${SEED}): ${String(err)}`,
          );
        }
        const report = alg.report(out.state);
        expect(typeof report.role).toBe('string');
        // What does not fit leaves the state as it was but for the count.
        if (
          (out.state as { ignored?: number }).ignored !== (state as { ignored?: number }).ignored
        ) {
          ignored++;
          const { ignored: _a, ...after } = out.state as Record<string, unknown>;
          const { ignored: _b, ...before } = state as Record<string, unknown>;
          expect(after).toEqual(before);
          expect(out.effects.every((e) => e.kind === 'report')).toBe(true);
        }
      }
      // Unknown timers and strange events are ignored too.
      expect(() => alg.step(state, { kind: 'timer', name: 'no-such-timer' }, ctx)).not.toThrow();
      expect(() => alg.step(state, { kind: 'nonsense' } as never, ctx)).not.toThrow();
    }
    expect(tried).toBeGreaterThan(1000);
    expect(ignored).toBeGreaterThan(tried / 3);
  });

  it('still elects after a storm of bad messages (the fuzz corrupted nothing it kept)', () => {
    const alg = getAlgorithm(name);
    const [first] = reachStates(alg, SEED + 1, 1, 5, 50);
    let state = first!.state;
    const r = createRng(7);
    for (let i = 0; i < 200; i++)
      state = alg.step(
        state,
        { kind: 'message', from: 2, message: randomJson(r) as Message },
        ctx,
      ).state;
    expect(alg.report(state).detail?.['ignored']).toBeGreaterThan(0);
    const elected = alg.step(state, { kind: 'elect' }, ctx);
    expect(() => alg.report(elected.state)).not.toThrow();
  });
});

describe('the message gate', () => {
  it('reads own message types only: __proto__, constructor and toString are not types', () => {
    for (const type of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
      expect(parseMessage(BULLY_SCHEMAS, { type })).toBeNull();
    expect(
      parseMessage(BULLY_SCHEMAS, JSON.parse('{"type":"COORDINATOR","__proto__":{"x":1}}')),
    ).toEqual({ type: 'COORDINATOR' });
  });

  it("drops unknown fields and refuses wrong ones (000: ELECTION carries the sender's election number)", () => {
    expect(parseMessage(BULLY_SCHEMAS, { type: 'ELECTION', election: 3, extra: 'x' })).toEqual({
      type: 'ELECTION',
      election: 3,
    });
    expect(parseMessage(BULLY_SCHEMAS, { type: 'ELECTION', election: 'x' })).toBeNull();
    expect(parseMessage(BULLY_SCHEMAS, { type: 'ELECTION', election: -1 })).toBeNull();
    expect(parseMessage(BULLY_SCHEMAS, { type: 'OK' })).toBeNull();
    expect(parseMessage(BULLY_SCHEMAS, [{ type: 'OK', election: 1 }])).toBeNull();
  });
});
