// The hot path's message checks (shared/algorithms/message-check.ts) are made from the zod
// schemas and must answer as zod does: the schema is the one source of truth (issue 11, "the
// hand-written fast paths ... checked against the schemas"; issue 16, "algorithms are total").
// Every algorithm's messages: the ones it sends in random runs, mutations of them, random JSON
// under each type, and the edges a hand-written check gets wrong (-0, 2^53, holes, the length
// bounds, an optional field sent as undefined, `__proto__`).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AlgorithmName, Message } from '@shared/algorithms/algorithm.ts';
import { BULLY_SCHEMAS } from '@shared/algorithms/bully-messages.ts';
import { EMERGENT_SCHEMAS } from '@shared/algorithms/emergent-messages.ts';
import { compileCheck } from '@shared/algorithms/message-check.ts';
import { parseMessage, type MessageSchemas } from '@shared/algorithms/messages.ts';
import { RAFT_SCHEMAS } from '@shared/algorithms/raft-messages.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { ACTIVE_LIST_SCHEMAS } from '@shared/algorithms/ring-active-list-messages.ts';
import { RING_SCHEMAS } from '@shared/algorithms/ring-messages.ts';
import { createRng } from '@shared/sim/rng.ts';
import { mutate, randomJson, reachStates } from '../helpers/message-fuzz.ts';

const SCHEMAS: [AlgorithmName, MessageSchemas][] = [
  ['bully', BULLY_SCHEMAS],
  ['ring', RING_SCHEMAS],
  ['ring-active-list', ACTIVE_LIST_SCHEMAS],
  ['raft', RAFT_SCHEMAS],
  ['emergent', EMERGENT_SCHEMAS],
];

const SEED = 20261124;

/** [1, <hole>, 3]: an array with a hole, as `JSON.parse` never makes but a careless check meets. */
function holey(): unknown[] {
  const a = [1, 2, 3];
  delete a[1];
  return a;
}

/** Edge values for every field of every type: what a hand-written check is likely to get wrong. */
function edges(type: string): unknown[] {
  const values: unknown[] = [
    0,
    -0,
    1,
    -1,
    1.5,
    2 ** 53,
    2 ** 53 - 1,
    1_000_000,
    1_000_001,
    NaN,
    Infinity,
    '1',
    '',
    'x'.repeat(64),
    'x'.repeat(65),
    true,
    null,
    undefined,
    [],
    [1, 2],
    [1, -1],
    holey(),
    Array.from({ length: 5000 }, (_, i) => i),
    Array.from({ length: 5001 }, (_, i) => i),
    {},
    [2 ** 53],
  ];
  const keys = [
    'election',
    'term',
    'seq',
    'eid',
    'list',
    'coordinator',
    'origin',
    'id',
    'epoch',
    'granted',
    'master',
    'extra',
  ];
  const out: unknown[] = [
    { type },
    JSON.parse(`{"type":${JSON.stringify(type)},"__proto__":{"term":1}}`),
  ];
  for (const key of keys) for (const v of values) out.push({ type, [key]: v });
  return out;
}

/** Candidates for one algorithm: its own messages, their mutations, random JSON typed and not, edges. */
function candidates(name: AlgorithmName, schemas: MessageSchemas): unknown[] {
  const alg = getAlgorithm(name);
  const types = Object.keys(schemas);
  const r = createRng(SEED);
  // Every reached state lists the same messages sent (at most 400): each once.
  const sent = [...new Set(reachStates(alg, SEED).flatMap((x) => x.sent))];
  const out: unknown[] = [...sent];
  for (const m of sent) for (let k = 0; k < 6; k++) out.push(mutate(m, r, [...types, 'HELLO']));
  for (let k = 0; k < 400; k++) {
    const j = randomJson(r);
    out.push(
      j && typeof j === 'object' && !Array.isArray(j) ? { ...j, type: types[k % types.length] } : j,
    );
  }
  for (const type of types) out.push(...edges(type));
  // Its own messages with a field to strip and with an optional field present but undefined.
  for (const own of sent) out.push({ ...own, extra: 1 }, { ...own, term: undefined });
  return out;
}

describe.each(SCHEMAS)('%s: the fast message checks', (name, schemas) => {
  it('every message type gets a fast check (so the hot path never falls back to zod)', () => {
    for (const [type, schema] of Object.entries(schemas))
      expect(compileCheck(schema), type).not.toBeNull();
  });

  it('answer as the zod schema does: the same messages accepted, the same result, the same rejected', () => {
    let accepted = 0;
    let rejected = 0;
    for (const m of candidates(name, schemas)) {
      const type = m && typeof m === 'object' ? (m as { type?: unknown }).type : undefined;
      const schema =
        typeof type === 'string' && Object.hasOwn(schemas, type) ? schemas[type]! : null;
      const parsed = schema?.safeParse(m);
      const expected = parsed?.success ? parsed.data : null;
      const got = parseMessage<Message>(schemas, m);
      expect(got, JSON.stringify(m)?.slice(0, 200)).toStrictEqual(expected);
      if (expected) accepted++;
      else rejected++;
    }
    expect(accepted).toBeGreaterThan(50);
    expect(rejected).toBeGreaterThan(500);
  });
});

describe('a schema the fast check cannot read', () => {
  it('gets no fast check and is still parsed by zod (a pattern, a strict object, a union)', () => {
    const PATTERN = z.object({ type: z.literal('P'), s: z.string().regex(/^a+$/) });
    const STRICT = z.object({ type: z.literal('S'), n: z.int() }).strict();
    const UNION = z.object({ type: z.literal('U'), v: z.union([z.int(), z.string()]) });
    for (const s of [PATTERN, STRICT, UNION]) expect(compileCheck(s)).toBeNull();
    const schemas: MessageSchemas = { P: PATTERN, S: STRICT, U: UNION };
    expect(parseMessage(schemas, { type: 'P', s: 'aaa' })).toEqual({ type: 'P', s: 'aaa' });
    expect(parseMessage(schemas, { type: 'P', s: 'ab' })).toBeNull();
    expect(parseMessage(schemas, { type: 'S', n: 1, extra: 2 })).toBeNull();
    expect(parseMessage(schemas, { type: 'U', v: 'x' })).toEqual({ type: 'U', v: 'x' });
  });
});
