// The one CSV writer of the app (the roster's and the class board's exports): RFC 4180 fields,
// CRLF lines. A name is a student's to choose, so a text cell a spreadsheet would read as a
// formula or a control (a leading = + - @, tab or carriage return: OWASP's CSV injection list)
// is prefixed with an apostrophe; numbers and booleans are the app's own and written as they are.

const FORMULA_START = /^[=+\-@\t\r]/;

/** One field: defused when text starts like a formula, quoted when it holds a comma, quote or line break. */
export function csvField(value: string | number | boolean): string {
  let s = String(value);
  if (typeof value === 'string' && FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A header line and one line per row, each ended by CRLF. */
export function csvText(
  header: readonly string[],
  rows: readonly (readonly (string | number | boolean)[])[],
): string {
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}
