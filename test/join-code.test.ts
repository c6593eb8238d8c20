// Join codes (issue 14): six letters of an unambiguous alphabet, unique per relay, in the lab's
// REST representation, and resolvable at GET /api/join/:code whatever the case or spacing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOIN_CODE_ALPHABET, JOIN_CODE_LENGTH, newJoinCode, normalizeJoinCode } from '@shared/protocol/join-code.ts';
import { startRelay, type Harness } from './helpers/relay-harness.ts';

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
    expect(newJoinCode((c) => c === first, () => seq[i++]!)).toBe('Z' + 'C'.repeat(5));
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
        expect((await h.api('POST', '/api/labs', { name, algorithm: 'bully', size: 3 })).status).toBe(201);
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
  });
});
