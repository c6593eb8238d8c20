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
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ALGORITHM_NAMES } from '@shared/algorithms/algorithm.ts';

const grader = resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/grader');

interface Declaration {
  text: string;
  hole: boolean;
}

/** A module's top-level declarations by name: their code without comments or layout. */
function declarations(source: string): Map<string, Declaration> {
  const file = ts.createSourceFile('m.js', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const out = new Map<string, Declaration>();
  const add = (name: string, node: ts.Node) => {
    const raw = node.getFullText(file);
    out.set(name, { text: codeOf(node, file), hole: /\bTODO\b/.test(raw) });
  };
  for (const st of file.statements) {
    if (ts.isFunctionDeclaration(st) && st.name) add(st.name.text, st);
    else if (ts.isVariableStatement(st))
      for (const d of st.declarationList.declarations)
        if (ts.isIdentifier(d.name)) add(d.name.text, st);
  }
  return out;
}

/** The node's tokens joined by single spaces: comments and layout do not count. */
function codeOf(node: ts.Node, file: ts.SourceFile): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard);
  scanner.setText(file.text, node.getStart(file), node.getEnd() - node.getStart(file));
  const tokens: string[] = [];
  for (let k = scanner.scan(); k !== ts.SyntaxKind.EndOfFileToken; k = scanner.scan())
    tokens.push(scanner.getTokenText());
  // Prettier may add or drop a trailing comma; that is layout too.
  return tokens.join(' ').replace(/ , (?=[)\]}])/g, ' ');
}

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
