// Join codes (issue 14): six letters of an unambiguous alphabet, unique per relay, in the lab's
// REST representation, and resolvable at GET /api/join/:code whatever the case or spacing, at a
// rate per address that lets a class behind one NAT in and keeps a script from trying codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  JOIN_CODE_ALPHABET,
  JOIN_CODE_LENGTH,
  newJoinCode,
  normalizeJoinCode,
} from '@shared/protocol/join-code.ts';
import { AddressBuckets, JOIN_LOOKUP_LIMITS } from '../../server/lab/rate-limit.ts';
import { startRelay, type Harness } from '../helpers/relay-harness.ts';

describe('join codes', () => {
  it('are six letters with no look-alike or sound-alike letters', () => {
    for (const ch of 'ILOQ01BDPVEGMNUW') expect(JOIN_CODE_ALPHABET).not.toContain(ch);
    const code = newJoinCode(() => false);
    expect(code).toMatch(new RegExp(`^[${JOIN_CODE_ALPHABET}]{${JOIN_CODE_LENGTH}}$`));
  });

  it('skip codes already taken', () => {
    const seq = [0, 0, 0, 0, 0, 0, 0.99, 0, 0, 0, 0, 0];
    let i = 0;
    const first = 'C'.repeat(6);
    expect(
      newJoinCode(
        (c) => c === first,
        () => seq[i++]!,
      ),
    ).toBe('Z' + 'C'.repeat(5));
  });

  it('read what a student types: lower case, spaces and dashes', () => {
    expect(normalizeJoinCode('cfh-jkr')).toBe('CFHJKR');
    expect(normalizeJoinCode(' c f h j k r ')).toBe('CFHJKR');
    expect(normalizeJoinCode('CFHJK')).toBeNull();
    expect(normalizeJoinCode('CFHJKO')).toBeNull();
  });

  describe('on the relay', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startRelay();
    });
    afterAll(async () => {
      await h?.close();
    });

    it('every lab has its own code in GET /api/labs/:lab, and GET /api/join/:code finds the lab', async () => {
      const codes = new Set<string>();
      for (const name of ['a1', 'a2', 'a3']) {
        expect(
          (await h.api('POST', '/api/labs', { name, algorithm: 'bully', size: 3 })).status,
        ).toBe(201);
        const code = (await h.api('GET', `/api/labs/${name}`)).body.joinCode as string;
        expect(normalizeJoinCode(code)).toBe(code);
        codes.add(code);
        const found = await h.api('GET', `/api/join/${code.toLowerCase()}`);
        expect(found.body).toEqual({ lab: name, joinCode: code });
      }
      expect(codes.size).toBe(3);
      const missing = await h.api('GET', '/api/join/ZZZZZZ');
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('UNKNOWN_LAB');
    });

    it('lets a class of 30 behind one address join at once, then answers 429 with the error frame past the limit', async () => {
      // Its own relay: the lookups above spent some of this address's allowance.
      const fresh = await startRelay();
      try {
        expect((await fresh.api('POST', '/api/labs', { name: 'class', size: 3 })).status).toBe(201);
        const code = (await fresh.api('GET', '/api/labs/class')).body.joinCode as string;
        const lookup = () => fetch(`${fresh.url}/api/join/${code}`);
        const started = performance.now();
        const classOf30 = await Promise.all(Array.from({ length: 30 }, lookup));
        expect(classOf30.map((r) => r.status)).toEqual(Array(30).fill(200));
        const flood = await Promise.all(Array.from({ length: 200 }, lookup));
        const seconds = (performance.now() - started) / 1000;
        const passed = [...classOf30, ...flood].filter((r) => r.status === 200).length;
        expect(passed).toBeLessThanOrEqual(
          JOIN_LOOKUP_LIMITS.burst + Math.ceil(seconds * JOIN_LOOKUP_LIMITS.rate) + 1,
        );
        const refused = flood.find((r) => r.status === 429)!;
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(await refused.json()).toMatchObject({ type: 'error', code: 'RATE_LIMITED' });
      } finally {
        await fresh.close();
      }
    });
  });

  describe('the per-address limiter', () => {
    it('keeps one bucket per address, refills with time, and holds at most 10,000 addresses', () => {
      let t = 0;
      const limiter = new AddressBuckets({ rate: 10, burst: 3 }, () => t);
      expect([1, 2, 3, 4].map(() => limiter.take('a'))).toEqual([true, true, true, false]);
      expect(limiter.take('b')).toBe(true);
      t += 100;
      expect(limiter.take('a')).toBe(true);
      expect(limiter.take('a')).toBe(false);
      for (let i = 0; i < 10_050; i++) limiter.take(`10.0.${i >> 8}.${i & 255}`);
      expect(limiter.size).toBe(10_000);
    });
  });
});
