// What went wrong in a student's module, as plain data that crosses worker boundaries, and the
// one line the tab, the grader's report and the command line all print for it.
import type { AlgorithmEvent, ProcessId } from '../algorithms/algorithm.ts';
import { locateInModule } from './module-check.ts';

/** What went wrong in a student's module: plain data, so it crosses worker boundaries as it is. */
export interface FaultInfo {
  kind: 'load' | 'shape' | 'throw' | 'effects' | 'report' | 'state' | 'slow' | 'runaway' | 'memory';
  message: string;
  /** The process whose call failed, the virtual (or lab) time and the event it was handling. */
  process?: ProcessId;
  t?: number;
  event?: string;
  /** In her module, where known (1-based). */
  line?: number;
  column?: number;
}

export class ModuleFault extends Error {
  constructor(readonly info: FaultInfo) {
    super(info.message);
  }
}

/** A fault seen at the wall (student-wall.ts), before the caller adds the process, time and event it knows. */
export class WallFault extends Error {
  constructor(readonly info: FaultInfo) {
    super(info.message);
  }
}

/** One line: what, where and on which event. */
export function describeFault(f: FaultInfo): string {
  const where =
    f.line !== undefined ? ` (line ${f.line}${f.column !== undefined ? `:${f.column}` : ''})` : '';
  const who = f.process !== undefined ? `process ${f.process}` : '';
  const when = f.t !== undefined ? `t=${Math.round(f.t)}` : '';
  const on = f.event ? `on ${f.event}` : '';
  const ctx = [who, when, on].filter(Boolean).join(', ');
  return `${f.message}${where}${ctx ? ` [${ctx}]` : ''}`;
}

/** An event as a line of the report: `message ELECTION from 3`, `timer ok`, `elect`. */
export function describeAlgorithmEvent(e: AlgorithmEvent | 'init'): string {
  if (e === 'init') return 'init';
  switch (e.kind) {
    case 'message':
      return `message ${String((e.message as { type?: unknown })?.type)} from ${e.from}`;
    case 'timer':
      return `timer ${e.name}`;
    default:
      return 'elect';
  }
}

/** An exception out of her code, located in her module by its stack. */
export function thrown(
  err: unknown,
  self: ProcessId,
  t: number,
  event: string,
  url: string | undefined,
): FaultInfo {
  if (err instanceof WallFault) return { ...err.info, process: self, t, event };
  const e = err as { name?: unknown; message?: unknown; stack?: unknown } | null;
  const text =
    e && typeof e === 'object'
      ? `${typeof e.name === 'string' ? e.name : 'Error'}: ${String(e.message)}`
      : `threw ${String(err)}`;
  const where = locateInModule(typeof e?.stack === 'string' ? e.stack : undefined, url);
  const stackOverflow = e instanceof RangeError && /call stack/i.test(String(e.message));
  return {
    kind: 'throw',
    message: stackOverflow ? `${text} (endless recursion?)` : text,
    process: self,
    t,
    event,
    ...(where ? { line: where.line, column: where.column } : {}),
  };
}
