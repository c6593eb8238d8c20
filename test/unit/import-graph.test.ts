// The shape of shared/ (docs/ARCHITECTURE.md): its imports, type-only ones included, form no
// circle; nothing in it imports the relay (server/) or the browser app (client/); and only
// shared/lab-client/, the one room that does I/O, imports an I/O module (socket.io-client, ws,
// node:*). And the rooms of server/ (each room's README.md) import one way: transport/ never
// imports http/, lab/ never imports transport/ or http/, trace/ and clock/ import no other room of
// the relay, and no room imports the entry points at the top (main.ts, relay.ts). Read with
// TypeScript's own import scanner, so every import form counts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const IO_ROOM = 'shared/lab-client/';
const IO_MODULES = new Set([
  'socket.io-client',
  'socket.io',
  'ws',
  'express',
  'redis',
  ...builtinModules,
]);

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(root, path)).isDirectory()) return sources(path);
    return /\.(ts|vue)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** What a file imports: repository paths for its own modules, package names for the rest. */
function importsOf(path: string): { local: string[]; packages: string[] } {
  const info = ts.preProcessFile(readFileSync(join(root, path), 'utf8'), true, true);
  const local: string[] = [];
  const packages: string[] = [];
  for (const { fileName: spec } of info.importedFiles) {
    if (spec.startsWith('@shared/')) local.push(`shared/${spec.slice('@shared/'.length)}`);
    else if (spec.startsWith('.')) local.push(relative(root, resolve(root, dirname(path), spec)));
    else
      packages.push(
        spec.startsWith('node:')
          ? spec.slice(5)
          : spec
              .split('/')
              .slice(0, spec.startsWith('@') ? 2 : 1)
              .join('/'),
      );
  }
  return { local, packages };
}

/** Every circle of imports among `files`, each once, as the paths around it. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (!graph.has(g)) continue;
      if (state.get(g) === 'open') found.push([...stack.slice(stack.indexOf(g)), g]);
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f);
  return found;
}

describe('shared/ imports', () => {
  const files = sources('shared');
  const graph = new Map(files.map((f) => [f, importsOf(f).local]));

  it('form no circle', () => {
    expect(files.length).toBeGreaterThan(30);
    expect(circles(graph).map((c) => c.join(' -> '))).toEqual([]);
  });

  it('never reach into server/ or client/', () => {
    const outward = files.flatMap((f) =>
      graph
        .get(f)!
        .filter((to) => !to.startsWith('shared/'))
        .map((to) => `${f} -> ${to}`),
    );
    expect(outward).toEqual([]);
  });

  it('do I/O only in shared/lab-client/', () => {
    const io = files
      .filter((f) => !f.startsWith(IO_ROOM))
      .flatMap((f) =>
        importsOf(f)
          .packages.filter((p) => IO_MODULES.has(p))
          .map((p) => `${f} imports ${p}`),
      );
    expect(io).toEqual([]);
    // The rule has teeth: the I/O room does import them.
    expect(
      files.filter((f) => f.startsWith(IO_ROOM)).flatMap((f) => importsOf(f).packages),
    ).toContain('socket.io-client');
  });

  it('sim/ (the simulator and the network model) imports neither the explorer nor the analysis', () => {
    const across = files
      .filter((f) => f.startsWith('shared/sim/'))
      .flatMap((f) =>
        graph
          .get(f)!
          .filter((to) => to.startsWith('shared/explore/') || to.startsWith('shared/analysis/'))
          .map((to) => `${f} -> ${to}`),
      );
    expect(across).toEqual([]);
    // The rule has teeth: the explorer does import both.
    const explorer = files
      .filter((f) => f.startsWith('shared/explore/'))
      .flatMap((f) => graph.get(f)!);
    expect(explorer.some((to) => to.startsWith('shared/sim/'))).toBe(true);
    expect(explorer.some((to) => to.startsWith('shared/analysis/'))).toBe(true);
  });

  it('the circle finder finds circles', () => {
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c', 'a']]);
  });
});

/** The room of a path under server/ ('server/lab/lab.ts' -> 'lab'), or 'top' for a file directly in server/. */
function roomOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 2 ? parts[1]! : 'top';
}

/** Imports from server/ rooms that break a rule: `file -> import (rule)`. */
function wrongWays(graph: Map<string, string[]>): string[] {
  const FORBIDDEN: Record<string, string[]> = {
    transport: ['http', 'top'],
    lab: ['transport', 'http', 'top'],
    trace: ['clock', 'transport', 'http', 'lab', 'cluster', 'top'],
    clock: ['trace', 'transport', 'http', 'lab', 'cluster', 'top'],
    http: ['top'],
    cluster: ['transport', 'http', 'top'],
  };
  const wrong: string[] = [];
  for (const [from, tos] of graph) {
    const room = roomOf(from);
    if (room === 'top') continue;
    for (const to of tos) {
      if (!to.startsWith('server/')) continue;
      const into = roomOf(to);
      // trace/ may read the clock if it needs it; nothing under server/ reaches the entry points.
      if (room === 'trace' && into === 'clock') continue;
      const forbidden = FORBIDDEN[room] ?? ['top'];
      if (forbidden.includes(into))
        wrong.push(
          `${from} -> ${to} (${room}/ may not import ${into === 'top' ? to : `${into}/`})`,
        );
    }
  }
  return wrong;
}

describe('server/ rooms', () => {
  const files = sources('server');
  const graph = new Map(files.map((f) => [f, importsOf(f).local]));

  it('are the ones the READMEs describe, and each has its README', () => {
    const rooms = new Set(files.map(roomOf));
    expect([...rooms].sort()).toEqual([
      'clock',
      'cluster',
      'http',
      'lab',
      'top',
      'trace',
      'transport',
    ]);
    expect(files.filter((f) => roomOf(f) === 'top').sort()).toEqual([
      'server/demo-lab.ts',
      'server/last-line.ts',
      'server/main.ts',
      'server/relay.ts',
    ]);
    for (const room of rooms)
      if (room !== 'top')
        expect(statSync(join(root, 'server', room, 'README.md')).isFile(), room).toBe(true);
  });

  it('import one way: transport/ not http/, lab/ neither, trace/ and clock/ no other room, none the entry points', () => {
    expect(wrongWays(graph)).toEqual([]);
  });

  it('the direction check finds a wrong import', () => {
    const g = new Map([
      ['server/lab/lab.ts', ['server/transport/cork.ts', 'server/trace/trace-store.ts']],
      ['server/transport/transport-ws.ts', ['server/http/api.ts', 'server/lab/session.ts']],
      ['server/trace/trace-store.ts', ['server/clock/clock.ts']],
      ['server/clock/clock.ts', ['server/trace/trace-store.ts']],
      ['server/http/api.ts', ['server/relay.ts', 'server/lab/lab.ts']],
    ]);
    expect(wrongWays(g)).toEqual([
      'server/lab/lab.ts -> server/transport/cork.ts (lab/ may not import transport/)',
      'server/transport/transport-ws.ts -> server/http/api.ts (transport/ may not import http/)',
      'server/clock/clock.ts -> server/trace/trace-store.ts (clock/ may not import trace/)',
      'server/http/api.ts -> server/relay.ts (http/ may not import server/relay.ts)',
    ]);
  });
});

/** A file's value imports, static and dynamic (`import type` left out: it starts nothing). */
function valueImports(path: string): string[] {
  const sf = ts.createSourceFile(
    path,
    readFileSync(join(root, path), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const specs: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      !node.importClause?.isTypeOnly
    )
      specs.push(node.moduleSpecifier.text);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      specs.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return specs.map((s) =>
    s.startsWith('.') ? relative(root, resolve(root, dirname(path), s)) : s.replace(/^node:/, ''),
  );
}

// What a unit test may not start (CONTRIBUTING.md, "Tests"): a socket, a child process, a worker
// thread, Redis, a relay, a browser. `ws` stays allowed: frame-batch reads frames with its parser.
const STARTERS = new Set([
  'child_process',
  'net',
  'http',
  'https',
  'http2',
  'dgram',
  'worker_threads',
  'cluster',
  'socket.io-client',
  'redis',
  'playwright-core',
]);
const STARTER_FILES = [
  'server/relay.ts',
  'server/main.ts',
  ...[
    'relay-harness',
    'served-relay',
    'cluster-harness',
    'browser',
    'hand-lab',
    'flood',
    'sandbox-node-worker',
  ].map((h) => `test/helpers/${h}.ts`),
];

describe('test/ rooms', () => {
  it('every test file is in a room: unit/, grader/, relay/, cluster/ or e2e/', () => {
    const tests = sources('test').filter((f) => f.endsWith('.test.ts'));
    expect(tests.length).toBeGreaterThan(100);
    expect(
      tests.filter((f) => !/^test\/(unit|grader|relay|cluster|e2e)\/[^/]+\.test\.ts$/.test(f)),
    ).toEqual([]);
  });

  it('a unit or grader test starts no socket, child process, worker, Redis, relay or browser', () => {
    const started = [...sources('test/unit'), ...sources('test/grader')].flatMap((f) =>
      valueImports(f)
        .filter((s) => STARTERS.has(s) || STARTER_FILES.includes(s))
        .map((s) => `${f} imports ${s}`),
    );
    expect(started).toEqual([]);
    // The rule has teeth: the relay room does import them.
    expect(sources('test/relay').flatMap(valueImports)).toEqual(
      expect.arrayContaining(['child_process', 'test/helpers/relay-harness.ts']),
    );
  });
});
