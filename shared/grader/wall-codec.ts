// What crosses the wall around a student's module (student-wall.ts) and how it is read: JSON with
// four values JSON has no words for carried as tagged strings (the same tags wall-prelude.ts
// writes and reads), her source with its throw statements marked so a thrown non-Error is located,
// and what the engine says she threw or returned, as faults.
import { parse } from 'acorn';
import { locateInModule, walk } from './module-check.ts';
import { WallFault, type FaultInfo } from './module-fault.ts';

/** What stack traces call her module. */
export const MODULE_URL = 'student.js';

/** What the prelude tells of a thrown value. */
export interface Thrown {
  name?: string;
  message?: string;
  stack?: string;
  odd?: string;
  line?: number;
  column?: number;
}

/** A result that is not plain data, named by where in it (`result.state.x`, `report`). */
export function refusal(where: string): WallFault {
  const message = `${where} (only plain data crosses to the host: objects, arrays, strings, numbers, booleans, null)`;
  return new WallFault({
    kind: /^state\b/.test(where) ? 'state' : /^report\b/.test(where) ? 'report' : 'effects',
    message,
  });
}

export const memoryMessage = (mb: number) =>
  `the module used more memory than the sandbox allows (${mb} MB; an endless allocation?)`;

/** What the prelude said she threw, as a fault (its process and event are added by student.ts). */
export function thrownInfo(d: Thrown, memoryMb: number): FaultInfo {
  if (d.name === 'InternalError' && d.message === 'out of memory')
    return { kind: 'memory', message: memoryMessage(memoryMb) };
  const at =
    locateInModule(d.stack, MODULE_URL) ??
    (d.line !== undefined ? { line: d.line, column: d.column ?? 1 } : null);
  const overflow = d.message === 'stack overflow' ? ' (endless recursion?)' : '';
  const message = d.odd ?? `${d.name ?? 'Error'}: ${d.message ?? ''}${overflow}`;
  return { kind: 'throw', message, ...(at ? { line: at.line, column: at.column } : {}) };
}

/** Her source with every `throw X` made `throw __wallThrow(X, line, column)`, so a thrown non-Error is located too. */
export function markThrows(source: string): string {
  let program;
  try {
    program = parse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
  } catch {
    return source; // QuickJS reports the syntax error itself
  }
  const edits: { at: number; text: string }[] = [];
  walk(program, (n) => {
    if (n.type !== 'ThrowStatement') return;
    const arg = (n as unknown as { argument: { start: number; end: number } }).argument;
    const loc = (n as unknown as { loc: { start: { line: number; column: number } } }).loc.start;
    edits.push(
      { at: arg.start, text: '__wallThrow(' },
      { at: arg.end, text: `, ${loc.line}, ${loc.column + 1})` },
    );
  });
  edits.sort((a, b) => b.at - a.at);
  let out = source;
  for (const e of edits) out = out.slice(0, e.at) + e.text + out.slice(e.at);
  return out;
}

/** JSON with undefined, NaN and the infinities carried as tagged strings (wall-prelude.ts reads them). */
export function encodeTagged(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === 'number')
      return Number.isFinite(x) ? x : Number.isNaN(x) ? '\u0000n' : x > 0 ? '\u0000+' : '\u0000-';
    if (x === undefined) return '\u0000u';
    if (typeof x === 'string' && x.charCodeAt(0) === 0) return `\u0000s${x}`;
    return x;
  });
}

export function decodeTagged(text: string): unknown {
  if (!text.includes('\\u0000')) return JSON.parse(text);
  return JSON.parse(text, (_k, x: unknown) => {
    if (typeof x !== 'string' || x.charCodeAt(0) !== 0) return x;
    switch (x[1]) {
      case 'u':
        return undefined;
      case 'n':
        return NaN;
      case '+':
        return Infinity;
      case '-':
        return -Infinity;
      default:
        return x.slice(2);
    }
  });
}
