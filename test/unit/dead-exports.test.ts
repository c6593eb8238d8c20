// No dead exports in shared/ and server/: every name they export is imported somewhere else
// (the relay, the browser app, the scripts, the benches or the tests). An export nobody imports
// is either code nobody runs (delete it) or a name only its own module uses (drop `export`).
// Imports are read with TypeScript's parser: named, default, namespace and dynamic imports, and
// re-exports; a namespace or dynamic import counts as using every export of its module.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CHECKED = ['shared', 'server'];
const USERS = [
  'shared',
  'server',
  'client/src',
  'client/vite.config.ts',
  'scripts',
  'bench',
  'test',
  'vitest.config.ts',
];

function sources(path: string): string[] {
  if (!statSync(join(root, path)).isDirectory()) return [path];
  return readdirSync(join(root, path)).flatMap((name) => {
    const p = `${path}/${name}`;
    if (statSync(join(root, p)).isDirectory())
      return name === 'node_modules' || name === 'dist' ? [] : sources(p);
    return /\.(ts|vue)$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** A .vue file's script blocks; a .ts file whole. */
function code(path: string): string {
  const text = readFileSync(join(root, path), 'utf8');
  if (!path.endsWith('.vue')) return text;
  return [...text.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
}

function target(from: string, spec: string): string | null {
  if (spec.startsWith('@shared/')) return `shared/${spec.slice('@shared/'.length)}`;
  if (spec.startsWith('.')) return relative(root, resolve(root, dirname(from), spec));
  return null;
}

interface ModuleFacts {
  exports: Set<string>;
  /** Imported names per module path ('*': all of them). */
  uses: Map<string, Set<string>>;
}

function facts(path: string): ModuleFacts {
  const sf = ts.createSourceFile(path, code(path), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const exports = new Set<string>();
  const uses = new Map<string, Set<string>>();
  const use = (spec: string, name: string) => {
    const to = target(path, spec);
    if (!to) return;
    if (!uses.has(to)) uses.set(to, new Set());
    uses.get(to)!.add(name);
  };
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  const isDefault = (node: ts.Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const spec = st.moduleSpecifier.text;
      const clause = st.importClause;
      if (!clause) use(spec, '*');
      else {
        if (clause.name) use(spec, 'default');
        const b = clause.namedBindings;
        if (b && ts.isNamespaceImport(b)) use(spec, '*');
        else if (b) for (const el of b.elements) use(spec, (el.propertyName ?? el.name).text);
      }
    } else if (ts.isExportDeclaration(st)) {
      const spec =
        st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)
          ? st.moduleSpecifier.text
          : null;
      if (!st.exportClause) {
        if (spec) use(spec, '*');
      } else if (ts.isNamedExports(st.exportClause)) {
        for (const el of st.exportClause.elements) {
          exports.add(el.name.text);
          if (spec) use(spec, (el.propertyName ?? el.name).text);
        }
      }
    } else if (ts.isExportAssignment(st)) exports.add('default');
    else if (exported(st)) {
      if (isDefault(st)) exports.add('default');
      else if (ts.isVariableStatement(st))
        for (const d of st.declarationList.declarations) {
          if (ts.isIdentifier(d.name)) exports.add(d.name.text);
        }
      else if (
        (ts.isFunctionDeclaration(st) ||
          ts.isClassDeclaration(st) ||
          ts.isInterfaceDeclaration(st) ||
          ts.isTypeAliasDeclaration(st) ||
          ts.isEnumDeclaration(st)) &&
        st.name
      )
        exports.add(st.name.text);
    }
  }
  // import('...') anywhere, and vi.mock / vi.importActual of a module: all of it.
  const walk = (n: ts.Node): void => {
    if (
      ts.isCallExpression(n) &&
      n.expression.kind === ts.SyntaxKind.ImportKeyword &&
      n.arguments[0] &&
      ts.isStringLiteral(n.arguments[0])
    )
      use(n.arguments[0].text, '*');
    ts.forEachChild(n, walk);
  };
  walk(sf);
  return { exports, uses };
}

/** `file: name` for every export of the checked folders that no other file imports. */
function deadExports(): string[] {
  const all = new Map(USERS.flatMap(sources).map((p) => [p, facts(p)]));
  const used = new Map<string, Set<string>>();
  for (const [, f] of all)
    for (const [to, names] of f.uses)
      for (const n of names) (used.get(to) ?? used.set(to, new Set()).get(to)!).add(n);
  const dead: string[] = [];
  for (const [path, f] of all) {
    if (!CHECKED.some((d) => path.startsWith(`${d}/`))) continue;
    const u = used.get(path) ?? new Set<string>();
    if (u.has('*')) continue;
    for (const name of f.exports) if (!u.has(name)) dead.push(`${path}: ${name}`);
  }
  return dead.sort();
}

describe('exports', () => {
  it('of shared/ and server/ are all imported somewhere', () => {
    const dead = deadExports();
    expect(dead).toEqual([]);
  });
});
