// Seeded generators of hostile input for the relay's fuzz test: random JSON values, garbage
// text, and valid frames mutated (fields dropped, retyped, added, oversized, ids out of range).
import type { Random } from '@shared/sim/rng.ts';

const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

export function randomValue(r: Random, depth = 0): unknown {
  const k = Math.floor(r() * (depth > 3 ? 6 : 9));
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return pick(r, [0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, 1_000_001, 7]);
    case 3:
      return randomString(r, Math.floor(r() * 40));
    case 4:
      return pick(r, [
        'join',
        'send',
        'report',
        'leave',
        'observe',
        'ping',
        'answer',
        '__proto__',
        'constructor',
        '',
      ]);
    case 5:
      return Math.floor(r() * 10);
    case 6:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(r() * 5); i > 0; i--)
        o[
          pick(r, [
            'type',
            'lab',
            'id',
            'to',
            'message',
            'report',
            'ref',
            'resume',
            'step',
            'value',
            'x',
            '__proto__',
          ])
        ] = randomValue(r, depth + 1);
      return o;
    }
  }
}

export function randomString(r: Random, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++)
    s += String.fromCharCode(r() < 0.9 ? 32 + Math.floor(r() * 95) : Math.floor(r() * 0xd7ff));
  return s;
}

/** A valid frame of some type, for `labs` (which may or may not exist) and ids 0..9. */
export function validFrame(r: Random, labs: readonly string[]): Record<string, unknown> {
  const id = Math.floor(r() * 10);
  switch (Math.floor(r() * 9)) {
    case 0:
      return { type: 'join', lab: pick(r, labs), ...(r() < 0.5 ? { id } : {}), kind: 'external' };
    case 1:
      return {
        type: 'send',
        to: id,
        message: { type: pick(r, ['ELECTION', 'OK', 'COORDINATOR', 'HEARTBEAT', 'X']), n: r() },
      };
    case 2:
      return {
        type: 'report',
        report: { role: 'follower', coordinator: r() < 0.5 ? id : null, electing: r() < 0.5 },
      };
    case 3:
      return { type: 'leave' };
    case 4:
      return { type: 'observe', lab: pick(r, labs), ref: id };
    case 5:
      return { type: 'unobserve', lab: pick(r, labs) };
    case 6:
      // A lesson answer: the fuzzed lab runs a lesson with step 0 open (test/relay/relay-fuzz.test.ts).
      return {
        type: 'answer',
        step: pick(r, [0, 0, 1, 19]),
        value: pick(r, [id, 6, 2.5, 1e6, -3]),
      };
    case 7:
      // A "break it" submission: the fuzzed lab has bully-split-brain open (relay-fuzz.test.ts);
      // the set-up is the file's or one made easier, the schedule one random lost link.
      return {
        type: 'submit',
        lab: pick(r, labs),
        name: pick(r, ['Ada', 'Bo', '']),
        submission: {
          challenge: pick(r, ['bully-split-brain', 'ring-leaderless']),
          seed: id,
          setup: {
            algorithm: 'bully',
            ids: [0, 1, 2, 3, 4, 5],
            coordinator: 5,
            link: { delay: pick(r, [100, 100, 10]) },
            until: 8000,
          },
          schedule: { links: [{ at: 0, from: id % 6, to: (id + 1) % 6, loss: 1 }] },
        },
      };
    default:
      return { type: 'ping', ref: randomString(r, 5) };
  }
}

/** A valid frame with one mutation. */
export function mutatedFrame(r: Random, labs: readonly string[]): unknown {
  const f = validFrame(r, labs);
  const keys = Object.keys(f);
  switch (Math.floor(r() * 8)) {
    case 0:
      delete f[pick(r, keys)];
      return f;
    case 1:
      f[pick(r, keys)] = randomValue(r);
      return f;
    case 2:
      f[randomString(r, 6)] = randomValue(r);
      return f;
    case 3:
      f['type'] = randomString(r, 8);
      return f;
    case 4:
      return { ...f, id: pick(r, [-5, 1.5, 1e9, '3', null]), to: pick(r, [-1, 2.5, 1e12, 'x']) };
    case 5:
      return { ...f, message: { type: randomString(r, 100) } };
    case 6:
      return {
        ...f,
        lab: pick(r, ['../../etc/passwd', '', 'a'.repeat(200), 'no such lab', '__proto__']),
      };
    default:
      return [f];
  }
}

/** Text for a raw WebSocket message: mostly JSON of the above, sometimes broken JSON or garbage. */
export function fuzzText(r: Random, labs: readonly string[]): string {
  const k = r();
  if (k < 0.15) return randomString(r, Math.floor(r() * 60));
  if (k < 0.25) return JSON.stringify(validFrame(r, labs)).slice(0, -1 - Math.floor(r() * 5));
  if (k < 0.45) return JSON.stringify(randomValue(r));
  if (k < 0.6) return JSON.stringify(validFrame(r, labs));
  return JSON.stringify(mutatedFrame(r, labs));
}
