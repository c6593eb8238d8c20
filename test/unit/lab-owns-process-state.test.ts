// "Only Lab writes a process's state" (issue 25; server/lab/README.md): a process's crashed and
// paused flags change in one place, Lab.setProcessState, so the trace, the saved state and what
// the process is told cannot disagree about who is up. ProcessEntry has the flags read-only, so
// the compiler holds a plain write; this test holds the casts around it too.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const OWNER = 'server/lab/lab.ts';
/** `x.crashed = ...`, `x.paused = ...` or `delete x.paused`, but not a class's own `this.paused` (the scheduler's). */
const WRITE = /(?<!this)\.(crashed|paused)\s*=(?!=)|delete\s+[\w.]+\.(crashed|paused)\b/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return name.endsWith('.ts') ? [p] : [];
  });
}

/** Lines of server/ that write a process's crashed or paused flag: `file:line: text`. */
function writers(): string[] {
  return sources(join(root, 'server')).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        WRITE.test(line) ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`] : [],
      ),
  );
}

describe("a process's crashed and paused flags", () => {
  it('are written only by the Lab class, through setProcessState', () => {
    const found = writers();
    expect(found.filter((w) => !w.startsWith(`${OWNER}:`))).toEqual([]);
    // The owner's writes are the two in setProcessState: the pattern does see a write.
    expect(found.filter((w) => w.startsWith(`${OWNER}:`))).toHaveLength(2);
  });

  it('are caught by the pattern when a file other than lab.ts writes one', () => {
    expect(WRITE.test('    e.crashed = true;')).toBe(true);
    expect(WRITE.test('  for (const e of list) e.paused = false;')).toBe(true);
    expect(WRITE.test('    delete entry.paused;')).toBe(true);
    expect(WRITE.test('    if (e.crashed === true) return;')).toBe(false);
    expect(WRITE.test('    this.paused = true;')).toBe(false);
  });
});
