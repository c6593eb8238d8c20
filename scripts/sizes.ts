// The house's size rule, measured: modules of a few hundred lines (at most MAX_MODULE_LINES in
// shared/ and server/) and functions under MAX_FUNCTION_LINES. `npx tsx scripts/sizes.ts` lists
// what is over; test/unit/module-size.test.ts holds the module bound with a named allow-list.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export const MAX_MODULE_LINES = 450;
export const MAX_FUNCTION_LINES = 80;

export interface Sized {
  file: string;
  lines: number;
}

/** Every .ts file under the roots (node_modules and dist skipped), with its line count. */
export function moduleSizes(base: string, roots: readonly string[]): Sized[] {
  const out: Sized[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 20) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory() && e.name !== 'node_modules' && e.name !== 'dist') walk(p, depth + 1);
      else if (e.isFile() && e.name.endsWith('.ts'))
        out.push({ file: relative(base, p), lines: lineCount(readFileSync(p, 'utf8')) });
    }
  };
  for (const r of roots) walk(join(base, r), 0);
  return out.sort((a, b) => b.lines - a.lines);
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Functions, methods and arrow functions in `text` longer than `max` lines, named where they have a name. */
export function longFunctions(file: string, text: string, max: number): Sized[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Sized[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = src.getLineAndCharacterOfPosition(node.getStart(src)).line;
      const end = src.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
      if (end - start + 1 > max)
        out.push({ file: `${file}:${start + 1} ${name}`, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

function main(): void {
  const base = process.cwd();
  const roots = ['shared', 'server', 'client/src'];
  const sizes = moduleSizes(base, roots);
  console.log(`modules over ${MAX_MODULE_LINES} lines:`);
  for (const s of sizes.filter((m) => m.lines > MAX_MODULE_LINES))
    console.log(`  ${s.lines}  ${s.file}`);
  console.log(`functions over ${MAX_FUNCTION_LINES} lines:`);
  for (const s of sizes)
    for (const f of longFunctions(
      s.file,
      readFileSync(join(base, s.file), 'utf8'),
      MAX_FUNCTION_LINES,
    ))
      console.log(`  ${f.lines}  ${f.file}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
