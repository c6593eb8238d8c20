// A folder of JSON files, each checked by its schema when the relay starts (lessons/, challenges/).
// A file that fails is left out and named, with the fields that failed, so an instructor who
// wrote it can mend it; the others still load. Ids are unique across the folder.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A file larger than this is refused unread (a lesson or a challenge is a few kilobytes). */
const MAX_FILE_BYTES = 256 * 1024;
const MAX_FILES = 200;

interface JsonFolder<T> {
  items: T[];
  /** Files left out, each with why (`steps.0.reveal.expected: ...`). */
  refused: { file: string; errors: string[] }[];
}

type Parsed<T> = { ok: true; value: T } | { ok: false; errors: string[] };

export function loadJsonFolder<T extends { id: string }>(
  dir: string,
  parse: (raw: unknown) => Parsed<T>,
  what: string,
): JsonFolder<T> {
  const out: JsonFolder<T> = { items: [], refused: [] };
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .slice(0, MAX_FILES);
  } catch {
    return out; // no folder: a relay without them
  }
  const seen = new Set<string>();
  for (const file of files) {
    const parsed = readOne(join(dir, file), parse);
    const errors = !parsed.ok
      ? parsed.errors
      : seen.has(parsed.value.id)
        ? [`id: "${parsed.value.id}" is already the id of another ${what} file`]
        : null;
    if (errors) out.refused.push({ file, errors });
    else if (parsed.ok) {
      seen.add(parsed.value.id);
      out.items.push(parsed.value);
    }
  }
  return out;
}

function readOne<T>(path: string, parse: (raw: unknown) => Parsed<T>): Parsed<T> {
  let raw: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    if (text.length > MAX_FILE_BYTES)
      return { ok: false, errors: [`(file): larger than ${MAX_FILE_BYTES} bytes`] };
    raw = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message.slice(0, 120) : 'unreadable';
    return { ok: false, errors: [`(file): not readable JSON (${why})`] };
  }
  return parse(raw);
}
