// The starter templates (shared/grader/templates/*.js) are the complete examples
// (shared/grader/examples/*.js) with holes: every top-level function or constant of a template
// that has no TODO in it must be the example's, word for word (comments and layout aside), so the
// code a student is given (the ring's hop layer, the emergent pool's bookkeeping, the timers) is
// the code the grader's examples pass with, and the two cannot drift apart
// (docs/STUDENT_MODULES.md). A declaration with a TODO is a hole: only its name must exist in the
// example.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALGORITHM_NAMES } from '@shared/algorithms/algorithm.ts';
import { declarations } from '../helpers/js-declarations.ts';

const grader = resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/grader');

const read = (room: string, name: string) => readFileSync(join(grader, room, `${name}.js`), 'utf8');

describe('grader templates are the examples with holes', () => {
  for (const name of ALGORITHM_NAMES) {
    it(`${name}: every declaration without a TODO is the example's, word for word`, () => {
      const template = declarations(read('templates', name));
      const example = declarations(read('examples', name));
      const holes = [...template].filter(([, d]) => d.hole).map(([n]) => n);
      const differing = [...template]
        .filter(([n, d]) => !d.hole && example.get(n)?.text !== d.text)
        .map(([n]) => n);
      expect(differing).toEqual([]);
      // Each hole is a declaration the example fills in.
      expect(holes.filter((n) => !example.has(n))).toEqual([]);
      // The template shares real code with the example, not only holes.
      expect(template.size - holes.length).toBeGreaterThan(0);
      console.log(
        `${name}: ${template.size - holes.length} declarations shared, ${holes.length} holes`,
      );
    });
  }

  it('tells a changed declaration apart from a re-laid-out one', () => {
    const base = 'function f(a) {\n  return a + 1; // one\n}\n';
    const laidOut = '// the same\nfunction f(a) { return a + 1; }\n';
    const changed = 'function f(a) {\n  return a + 2;\n}\n';
    const text = (src: string) => declarations(src).get('f')!.text;
    expect(text(laidOut)).toBe(text(base));
    expect(text(changed)).not.toBe(text(base));
    expect(declarations('function g() {\n  // TODO: yours\n}\n').get('g')!.hole).toBe(true);
  });
});
