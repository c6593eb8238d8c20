// The ring hop layer (002: every hop acknowledged; no ACK within UB = 2T + M and the successor is
// skipped, "instead of sending to process j, send to j + 1") is one text in the two ring examples
// a student reads (shared/grader/examples/ring.js, ring-active-list.js); the templates are held to
// the examples by grader-templates.test.ts, so all four copies agree. (The TypeScript references
// share it as one module: shared/algorithms/ring-forwarding.ts.)
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { declarations } from '../helpers/js-declarations.ts';

const examples = resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/grader/examples');
const HOP_LAYER = ['liveSuccessor', 'forward', 'noAck', 'revive', 'acked'];

describe('the ring hop layer is written once for both ring examples', () => {
  const ring = declarations(readFileSync(`${examples}/ring.js`, 'utf8'));
  const active = declarations(readFileSync(`${examples}/ring-active-list.js`, 'utf8'));

  for (const name of HOP_LAYER)
    it(`${name} is the same code in ring.js and ring-active-list.js`, () => {
      expect(ring.get(name)?.text).toBeDefined();
      expect(active.get(name)?.text).toBe(ring.get(name)!.text);
    });

  it('each example handles an ACK and a missing ACK only through the hop layer', () => {
    for (const d of [ring, active]) {
      const step = d.get('step')!.text;
      expect(step).toContain('noAck (');
      expect(step).toContain('acked (');
      expect(step).not.toContain('unacked');
    }
  });
});
