// The shipped lessons: every lessons/*.json checked against the lesson schema when the relay
// starts (shared/lessons/lesson-schema.ts). A file that fails is left out and named, with the
// fields that failed, so an instructor who wrote it can mend it; the others still load.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLesson, type Lesson } from '@shared/lessons/lesson-schema.ts';

/** A lesson file larger than this is refused unread (a lesson is a few kilobytes). */
const MAX_LESSON_FILE_BYTES = 256 * 1024;
const MAX_LESSON_FILES = 200;

export interface LessonCatalog {
  lessons: Lesson[];
  /** Files left out, each with why (`steps.0.reveal.expected: ...`). */
  refused: { file: string; errors: string[] }[];
}

export function loadLessons(dir: string): LessonCatalog {
  const out: LessonCatalog = { lessons: [], refused: [] };
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .slice(0, MAX_LESSON_FILES);
  } catch {
    return out; // no lessons folder: a relay without lessons
  }
  const seen = new Set<string>();
  for (const file of files) {
    const errors = readLesson(join(dir, file), out.lessons, seen);
    if (errors) out.refused.push({ file, errors });
  }
  return out;
}

/** Adds the file's lesson, or says why not. */
function readLesson(path: string, into: Lesson[], seen: Set<string>): string[] | null {
  let raw: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    if (text.length > MAX_LESSON_FILE_BYTES)
      return [`(file): larger than ${MAX_LESSON_FILE_BYTES} bytes`];
    raw = JSON.parse(text);
  } catch (err) {
    return [
      `(file): not readable JSON (${err instanceof Error ? err.message.slice(0, 120) : 'unreadable'})`,
    ];
  }
  const parsed = parseLesson(raw);
  if (!parsed.ok) return parsed.errors;
  if (seen.has(parsed.lesson.id))
    return [`id: "${parsed.lesson.id}" is already the id of another lesson file`];
  seen.add(parsed.lesson.id);
  into.push(parsed.lesson);
  return null;
}
