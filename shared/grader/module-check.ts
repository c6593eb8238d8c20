// A student module's text, read before anything runs it: a syntax error with its line, and the
// few things a module may not do that can be seen in the text (import anything, statically or
// with `import()`). The editor's linter, the browser sandbox and the command-line grader all
// start here, so a student sees the same problem with the same line everywhere.
import { parse, type Node } from 'acorn';

interface SourceProblem {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  /** Offsets into the text, for an editor's underline. */
  from: number;
  to: number;
  message: string;
}

interface Located {
  start: number;
  end: number;
  loc?: { start: { line: number; column: number } } | null;
}

/** Everything wrong with the text that can be told without running it (empty: it may be loaded). */
export function checkSource(text: string): SourceProblem[] {
  let program: Node;
  try {
    program = parse(text, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
  } catch (err) {
    const e = err as SyntaxError & { pos?: number; loc?: { line: number; column: number } };
    const pos = typeof e.pos === 'number' ? e.pos : 0;
    // acorn's message ends with "(line:column)"; the position is given separately.
    const message = String(e.message).replace(/\s*\(\d+:\d+\)$/, '');
    return [
      {
        line: e.loc?.line ?? 1,
        column: (e.loc?.column ?? 0) + 1,
        from: pos,
        to: Math.min(text.length, pos + 1),
        message: `Syntax error: ${message}`,
      },
    ];
  }
  const problems: SourceProblem[] = [];
  let hasDefault = false;
  const at = (n: Located, message: string): SourceProblem => ({
    line: n.loc?.start.line ?? 1,
    column: (n.loc?.start.column ?? 0) + 1,
    from: n.start,
    to: n.end,
    message,
  });
  walk(program, (n) => {
    switch (n.type) {
      case 'ImportDeclaration':
        problems.push(
          at(
            n,
            'A module may not import anything: the host gives it all it needs (config, events, ctx)',
          ),
        );
        break;
      case 'ImportExpression':
        problems.push(
          at(n, 'A module may not load code with import(): the host gives it all it needs'),
        );
        break;
      case 'ExportAllDeclaration':
        problems.push(at(n, 'A module may not re-export another module'));
        break;
      case 'ExportNamedDeclaration':
        if ((n as { source?: unknown }).source)
          problems.push(at(n, 'A module may not re-export another module'));
        break;
      case 'ExportDefaultDeclaration':
        hasDefault = true;
        break;
    }
  });
  if (!hasDefault && problems.length === 0) {
    const end = text.length;
    problems.push({
      line: text.split('\n').length,
      column: 1,
      from: Math.max(0, end - 1),
      to: end,
      message:
        'No `export default`: the module must end with export default { name, messageTypes, init, step, report }',
    });
  }
  return problems;
}

/** Visits every node (acorn has no walker of its own; acorn-walk is a separate package). */
export function walk(node: unknown, visit: (n: Node) => void): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const x of node) walk(x, visit);
    return;
  }
  const n = node as Node & Record<string, unknown>;
  if (typeof n.type !== 'string') return;
  visit(n);
  for (const key in n) {
    if (key === 'loc' || key === 'start' || key === 'end' || key === 'type') continue;
    const v = n[key];
    if (v && typeof v === 'object') walk(v, visit);
  }
}

/**
 * The line and column in the module of the first stack frame that points into it (`url` is how
 * the host loaded it: a data:, blob: or file: URL). Null when the error did not come from there.
 */
export function locateInModule(
  stack: string | undefined,
  url: string | undefined,
): { line: number; column: number } | null {
  if (!stack || !url) return null;
  for (const raw of stack.split('\n')) {
    const i = raw.indexOf(url);
    if (i < 0) continue;
    const m = /:(\d+):(\d+)\)?\s*$/.exec(raw.slice(i + url.length));
    if (m) return { line: Number(m[1]), column: Number(m[2]) };
  }
  return null;
}
