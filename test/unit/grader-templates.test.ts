// The starter templates give part of each algorithm (the ring's hop layer, the emergent pool,
// helpers) and leave the election to the student with TODOs; the complete examples finish them.
// What a template gives must be exactly what its example runs, or a fix to one would leave the
// other broken: every top-level declaration of a template without a TODO in it must appear, the
// same text, in the example.
import { readFileSync } from 'node:fs';
import { parse } from 'acorn';
import { describe, expect, it } from 'vitest';
import { ALGORITHM_NAMES } from '@shared/algorithms/algorithm.ts';

interface Node {
  type: string;
  start: number;
  end: number;
  id?: { name: string } | null;
  declarations?: { id: { name?: string } }[];
  declaration?: Node | null;
}

/** Top-level declarations by name, with their source text. */
function declarations(source: string): Map<string, string> {
  const program = parse(source, { ecmaVersion: 'latest', sourceType: 'module' }) as unknown as {
    body: Node[];
  };
  const out = new Map<string, string>();
  for (const node of program.body) {
    const d = node.type === 'ExportNamedDeclaration' && node.declaration ? node.declaration : node;
    const name = d.id?.name ?? d.declarations?.[0]?.id.name;
    if (name) out.set(name, source.slice(d.start, d.end));
  }
  return out;
}

const read = (kind: string, a: string) =>
  readFileSync(new URL(`../../shared/grader/${kind}/${a}.js`, import.meta.url), 'utf8');

describe.each(ALGORITHM_NAMES)('%s: the template and the example', (algorithm) => {
  it('share every part the template gives, word for word', () => {
    const template = declarations(read('templates', algorithm));
    const example = declarations(read('examples', algorithm));
    const given = [...template].filter(([, text]) => !text.includes('TODO'));
    expect(given.length).toBeGreaterThan(0);
    for (const [name, text] of given)
      expect(example.get(name), `${name} in examples/${algorithm}.js`).toBe(text);
  });

  it('leave something to the student', () => {
    expect(
      [...declarations(read('templates', algorithm)).values()].some((text) =>
        text.includes('TODO'),
      ),
    ).toBe(true);
  });
});
