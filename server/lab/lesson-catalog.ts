// The shipped lessons: every lessons/*.json checked against the lesson schema when the relay
// starts (shared/lessons/lesson-schema.ts); a file that fails is left out and named (json-folder.ts).
import { parseLesson, type Lesson } from '@shared/lessons/lesson-schema.ts';
import { loadJsonFolder } from './json-folder.ts';

export interface LessonCatalog {
  lessons: Lesson[];
  /** Files left out, each with why (`steps.0.reveal.expected: ...`). */
  refused: { file: string; errors: string[] }[];
}

export function loadLessons(dir: string): LessonCatalog {
  const { items, refused } = loadJsonFolder(
    dir,
    (raw) => {
      const p = parseLesson(raw);
      return p.ok ? { ok: true, value: p.lesson } : p;
    },
    'lesson',
  );
  return { lessons: items, refused };
}
