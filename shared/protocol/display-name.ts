// A student's name as the relay keeps and every page shows it (the roster, the class board, the
// dashboard, CSV exports). A name is hers to type, so it is normalised (NFC, so "Ada" is one
// string however her keyboard composed it) and refused when it holds characters that hide or
// reorder what is shown: control characters (NUL, newline...), bidirectional overrides and marks
// (a right-to-left override made "exe.tnemngissa" read as "assignment.exe") and zero-width
// characters (a zero-width "Ada" looked like the real one). The schema says which, so the join
// frame on either transport, and the join page before it, refuse her name with the same words.
import { z } from 'zod';

export const MAX_NAME_CHARS = 40;

const RULES: [RegExp, string][] = [
  // eslint-disable-next-line no-control-regex -- finding control characters is the rule
  [/[\u0000-\u001f\u007f-\u009f]/u, 'a control character (NUL, tab, newline...)'],
  [
    /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u,
    'a bidirectional control (a right-to-left override or mark), which can make a name read as another',
  ],
  [/[\u200b-\u200d\u2060\ufeff]/u, 'a zero-width character, which makes a name look like another'],
];

const hex = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `name` is refused, in words naming the character; null when it is fine. */
export function nameProblem(name: string): string | null {
  for (const [re, what] of RULES) {
    const m = re.exec(name);
    if (m) return `the name contains ${what}: ${hex(m[0])}`;
  }
  return null;
}

export const DisplayNameSchema = z
  .string()
  .overwrite((s) => s.normalize('NFC'))
  .max(MAX_NAME_CHARS)
  .superRefine((s, ctx) => {
    const problem = nameProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
