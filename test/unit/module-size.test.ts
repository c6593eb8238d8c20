// The house's rules "modules small (a few hundred lines)" and "functions under about 80 lines"
// (CONTRIBUTING.md, Size; issue 25: "No function is over about 80 lines without a reason written
// beside it"). A module in shared/ or server/ over MAX_MODULE_LINES, or a function in shared/,
// server/ or client/src/ over MAX_FUNCTION_LINES, fails here unless a `// long: <reason>` line
// stands just above the function or the allow-list below names it with its reason.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  FUNCTION_ROOTS,
  functionsOver,
  longFunctions,
  MAX_FUNCTION_LINES,
  MAX_MODULE_LINES,
  moduleSizes,
  vueScripts,
} from '../../scripts/sizes.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The modules allowed over the bound, each with its reason; an entry back under it must go. */
const ALLOWED: Record<string, string> = {};

/**
 * Functions allowed over the bound, by "file name", each with its reason; an entry back under it
 * (or carrying its own `// long:` line) must go. A function that stays long for good says why
 * beside it instead.
 */
const FUNCTIONS_ALLOWED: Record<string, string> = {};

describe('module size (house rule: modules of a few hundred lines)', () => {
  const sizes = moduleSizes(ROOT, ['shared', 'server']);

  it('measures the repository (the walk finds the modules it bounds)', () => {
    expect(sizes.length).toBeGreaterThan(100);
    expect(sizes.some((s) => s.file === join('shared', 'coach', 'coach.ts'))).toBe(true);
  });

  it(`no module in shared/ or server/ is over ${MAX_MODULE_LINES} lines unless allow-listed`, () => {
    const over = sizes.filter((s) => s.lines > MAX_MODULE_LINES && !(s.file in ALLOWED));
    expect(over).toEqual([]);
  });

  it('every allow-listed module is still over the bound (the list does not outlive its reason)', () => {
    const byFile = new Map(sizes.map((s) => [s.file, s.lines]));
    for (const file of Object.keys(ALLOWED))
      expect({ file, over: (byFile.get(file) ?? 0) > MAX_MODULE_LINES }).toEqual({
        file,
        over: true,
      });
  });
});

describe('function size (house rule: functions under about 80 lines, or a reason beside them)', () => {
  const over = functionsOver(ROOT, FUNCTION_ROOTS, MAX_FUNCTION_LINES);
  const key = (f: { file: string; name: string }) => `${f.file} ${f.name}`;

  it('measures the repository (the walk reaches .ts and .vue files in every root)', () => {
    const all = functionsOver(ROOT, FUNCTION_ROOTS, 0);
    for (const root of FUNCTION_ROOTS)
      expect({ root, found: all.some((f) => f.file.startsWith(`${root}/`)) }).toEqual({
        root,
        found: true,
      });
    expect(all.some((f) => f.file.endsWith('.vue'))).toBe(true);
  });

  it(`no function in ${FUNCTION_ROOTS.join(', ')} is over ${MAX_FUNCTION_LINES} lines without a reason`, () => {
    const unexplained = over
      .filter((f) => !f.reason && !(key(f) in FUNCTIONS_ALLOWED))
      .map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
    expect(unexplained).toEqual([]);
  });

  it('every allow-listed function is still over the bound and has no reason of its own', () => {
    const stale = Object.keys(FUNCTIONS_ALLOWED).filter(
      (k) => !over.some((f) => key(f) === k && !f.reason),
    );
    expect(stale).toEqual([]);
  });

  it('a reason beside a long function says something (not an empty `// long:`)', () => {
    const empty = over.filter((f) => f.reason !== undefined && f.reason.length < 10).map(key);
    expect(empty).toEqual([]);
  });
});

describe('the measure (scripts/sizes.ts)', () => {
  const body = (n: number) =>
    Array.from({ length: n }, (_, i) => `  const a${i} = ${i};`).join('\n');

  it('counts a function by its lines, named, and only past the bound', () => {
    const text = `function long() {\n${body(5)}\n}\nconst short = () => 1;\n`;
    expect(longFunctions('x.ts', text, 6)).toEqual([
      { file: 'x.ts', line: 1, name: 'long', lines: 7 },
    ]);
    expect(longFunctions('x.ts', text, 7)).toEqual([]);
  });

  it('names an arrow function by the variable or property it is assigned to', () => {
    const text = `const go = () => {\n${body(3)}\n};\nconst o = { run: function () {\n${body(3)}\n} };\n`;
    expect(longFunctions('x.ts', text, 4).map((f) => f.name)).toEqual(['go', 'run']);
  });

  it('reads a `// long:` reason in the comments just above, and only there', () => {
    const text = [
      '// long: one switch over every frame kind reads best whole',
      '/** The handler. */',
      `function held() {\n${body(5)}\n}`,
      '// long: too far away',
      '',
      `function bare() {\n${body(5)}\n}`,
    ].join('\n');
    expect(longFunctions('x.ts', text, 6).map((f) => [f.name, f.reason])).toEqual([
      ['held', 'one switch over every frame kind reads best whole'],
      ['bare', undefined],
    ]);
  });

  it("places a .vue file's script functions at their line in the file", () => {
    const vue = `<template>\n  <p>hi</p>\n</template>\n<script setup lang="ts">\nfunction draw() {\n${body(5)}\n}\n</script>\n`;
    const [script] = vueScripts(vue);
    expect(longFunctions('X.vue', script!.code, 6, script!.line)).toEqual([
      { file: 'X.vue', line: 5, name: 'draw', lines: 7 },
    ]);
  });

  it('reads a real module (its own source) without error', () => {
    const text = readFileSync(join(ROOT, 'scripts', 'sizes.ts'), 'utf8');
    expect(longFunctions('sizes.ts', text, 1000)).toEqual([]);
  });
});
