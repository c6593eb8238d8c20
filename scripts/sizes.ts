// The house's size rule, measured: modules of a few hundred lines (at most MAX_MODULE_LINES in
// shared/ and server/) and functions under MAX_FUNCTION_LINES (in shared/, server/ and
// client/src/, the script blocks of .vue files included). `npx tsx scripts/sizes.ts` lists what
// is over; test/unit/module-size.test.ts holds both bounds, each with a named allow-list.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export const MAX_MODULE_LINES = 450;
export const MAX_FUNCTION_LINES = 80;
/** The folders whose functions the bound holds. */
export const FUNCTION_ROOTS = ['shared', 'server', 'client/src'] as const;

export interface Sized {
  file: string;
  lines: number;
}

/** A function over the bound: where it starts (1-based line), its name, how long it is. */
export interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
  /** The reason written beside it: a `// long: ...` line in the comments just above it. */
  reason?: string;
}

const LONG_REASON = /^\s*\/\/\s*long:\s*(.*\S)\s*$/;

/** Files under the roots whose names end in one of `exts` (node_modules and dist skipped), relative to `base`. */
export function sourceFiles(base: string, roots: readonly string[], exts: readonly string[]) {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 20) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory() && e.name !== 'node_modules' && e.name !== 'dist') walk(p, depth + 1);
      else if (e.isFile() && exts.some((x) => e.name.endsWith(x))) out.push(relative(base, p));
    }
  };
  for (const r of roots) walk(join(base, r), 0);
  return out;
}

/** Every .ts file under the roots, with its line count, longest first. */
export function moduleSizes(base: string, roots: readonly string[]): Sized[] {
  return sourceFiles(base, roots, ['.ts'])
    .map((file) => ({ file, lines: lineCount(readFileSync(join(base, file), 'utf8')) }))
    .sort((a, b) => b.lines - a.lines);
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/**
 * Functions, methods and arrow functions in `text` longer than `max` lines. An arrow or function
 * expression is named by the variable or property it is assigned to; `lineOffset` places a .vue
 * file's script block in the file.
 */
export function longFunctions(file: string, text: string, max: number, lineOffset = 0) {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = text.split('\n');
  const out: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = src.getLineAndCharacterOfPosition(node.getStart(src)).line;
      const end = src.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > max) {
        const reason = reasonAbove(lines, start);
        const line = start + 1 + lineOffset;
        const found = { file, line, name: nameOf(node), lines: end - start + 1 };
        out.push(reason ? { ...found, reason } : found);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

/** A `// long:` reason in the comment lines directly above line `start` (0-based), if any. */
function reasonAbove(lines: readonly string[], start: number): string | undefined {
  for (let i = start - 1; i >= 0 && i >= start - 40; i--) {
    const l = lines[i]!.trim();
    if (!(l.startsWith('//') || l.startsWith('*') || l.startsWith('/*'))) return undefined;
    const m = LONG_REASON.exec(l);
    if (m) return m[1];
  }
  return undefined;
}

function nameOf(node: ts.Node): string {
  const own = (node as { name?: ts.Node }).name;
  if (own && ts.isIdentifier(own)) return own.text;
  const p = node.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p)) && ts.isIdentifier(p.name))
    return p.name.text;
  return '(anonymous)';
}

/** A .vue file's <script> blocks, each with the line it starts on (0-based). */
export function vueScripts(text: string): { code: string; line: number }[] {
  const out: { code: string; line: number }[] = [];
  for (const m of text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)) {
    const before = text.slice(0, m.index + m[0].indexOf('>') + 1);
    out.push({ code: m[1]!, line: before.split('\n').length - 1 });
  }
  return out;
}

/** Every function over `max` lines under the roots (.ts files and .vue script blocks). */
export function functionsOver(base: string, roots: readonly string[], max: number) {
  const out: LongFunction[] = [];
  for (const file of sourceFiles(base, roots, ['.ts', '.vue'])) {
    const text = readFileSync(join(base, file), 'utf8');
    if (file.endsWith('.ts')) out.push(...longFunctions(file, text, max));
    else for (const s of vueScripts(text)) out.push(...longFunctions(file, s.code, max, s.line));
  }
  return out.sort((a, b) => b.lines - a.lines);
}

function main(): void {
  const base = process.cwd();
  const sizes = moduleSizes(base, ['shared', 'server', 'client/src']);
  console.log(`modules over ${MAX_MODULE_LINES} lines:`);
  for (const s of sizes.filter((m) => m.lines > MAX_MODULE_LINES))
    console.log(`  ${s.lines}  ${s.file}`);
  console.log(`functions over ${MAX_FUNCTION_LINES} lines:`);
  for (const f of functionsOver(base, FUNCTION_ROOTS, MAX_FUNCTION_LINES))
    console.log(
      `  ${f.lines}  ${f.file}:${f.line} ${f.name}${f.reason ? ` (long: ${f.reason})` : ''}`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) main();
