// Trace files: JSON Lines, an optional header line (`{"kind":"header","version":1,...}`), then
// one TraceEvent per line. The simulator, the explorer and the experiment runner write them; the
// relay serves the same events. Reading checks every line against the schema and returns the
// problems as values, so a dashboard can show them instead of throwing.
import {
  TRACE_VERSION,
  TraceEventSchema,
  TraceHeaderSchema,
  type TraceEvent,
  type TraceHeader,
} from './trace.ts';

export interface ParsedTrace {
  /** Null when the file starts with an event (the relay's raw `.jsonl`). */
  header: TraceHeader | null;
  events: TraceEvent[];
}

export interface TraceProblem {
  /** 1-based line number in the file. */
  line: number;
  message: string;
}

type ParseResult = { ok: true; trace: ParsedTrace } | { ok: false; problems: TraceProblem[] };

/** At most this many problems are collected; a wrong file should not produce a million. */
const MAX_PROBLEMS = 20;

export function parseTraceFile(text: string): ParseResult {
  const problems: TraceProblem[] = [];
  const events: TraceEvent[] = [];
  let header: TraceHeader | null = null;
  let lastSeq = -1;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length && problems.length < MAX_PROBLEMS; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      problems.push({ line, message: 'not valid JSON' });
      continue;
    }
    if (isHeaderLike(value)) {
      if (events.length > 0 || header) {
        problems.push({ line, message: 'a header may only be the first line' });
        continue;
      }
      const h = TraceHeaderSchema.safeParse(value);
      if (!h.success) problems.push({ line, message: `header: ${describe(h.error)}` });
      else if (h.data.version !== TRACE_VERSION)
        problems.push({
          line,
          message: `trace version ${h.data.version} is not supported (this build reads ${TRACE_VERSION})`,
        });
      else header = h.data;
      continue;
    }
    const e = TraceEventSchema.safeParse(value);
    if (!e.success) {
      problems.push({ line, message: describe(e.error) });
      continue;
    }
    if (e.data.seq <= lastSeq)
      problems.push({ line, message: `seq ${e.data.seq} does not increase (previous ${lastSeq})` });
    lastSeq = e.data.seq;
    events.push(e.data as TraceEvent);
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, trace: { header, events } };
}

export function serializeTrace(
  header: Omit<TraceHeader, 'kind' | 'version'>,
  events: readonly TraceEvent[],
): string {
  const head = JSON.stringify({ kind: 'header', version: TRACE_VERSION, ...header });
  const out = [head];
  for (const e of events) out.push(JSON.stringify(e));
  return out.join('\n') + '\n';
}

function isHeaderLike(v: unknown): boolean {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'header';
}

function describe(error: {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}): string {
  return error.issues
    .slice(0, 3)
    .map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}
