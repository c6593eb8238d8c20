// Every scenario script in test/scenarios/*.txt (test/helpers/scenario-script.ts describes the
// language) replayed in the simulator: the whole trace must be the one written after the
// script's `----` line. `UPDATE_SCENARIOS=1 npx vitest run test/unit/scenario-scripts.test.ts`
// rewrites the traces instead, so a change of behaviour is reviewed as a diff of these files.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compileScenario,
  joinScenario,
  runScenario,
  splitScenario,
} from '../helpers/scenario-script.ts';

const dir = new URL('../scenarios/', import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.txt') && !f.endsWith('.trace.txt'))
  .sort();
const update = process.env['UPDATE_SCENARIOS'] === '1';

describe('scenario scripts', () => {
  it('cover every algorithm', () => {
    const algorithms = new Set(
      files.map((f) => /^algorithm\s+(\S+)/m.exec(readFileSync(new URL(f, dir), 'utf8'))?.[1]),
    );
    expect([...algorithms].sort()).toEqual([
      'bully',
      'emergent',
      'raft',
      'ring',
      'ring-active-list',
    ]);
  });

  for (const f of files) {
    it(f, () => {
      const url = new URL(f, dir);
      const file = splitScenario(readFileSync(url, 'utf8'));
      const trace = runScenario(file.script);
      if (update) {
        if (trace !== file.expected) writeFileSync(url, joinScenario({ ...file, expected: trace }));
        return;
      }
      expect(
        file.expected,
        `${f} has no trace yet: run with UPDATE_SCENARIOS=1 and review the diff`,
      ).not.toBe('');
      expect(trace).toBe(file.expected);
    });
  }

  it('a script with a mistake is refused with its line number', () => {
    expect(() => compileScenario('algorithm bully\nnodes 0..3\ncrash 3\nseed 2\n')).toThrow(
      /line 4: `seed` is setup/,
    );
    expect(() => compileScenario('algorithm bully\nnodes 0..3\nelect 1\ncrash 3\n')).toThrow(
      /line 4: .*advance/,
    );
    expect(() => compileScenario('algorithm bully\nnodes 0..3\nadvance 5 minutes\n')).toThrow(
      /line 3: a duration/,
    );
    expect(() => compileScenario('nodes 0..3\ncrash 3\n')).toThrow(
      /line 2: a script needs `algorithm`/,
    );
    expect(() => compileScenario('algorithm bully\nnodes 0..3\nteleport 3\n')).toThrow(
      /line 3: unknown command/,
    );
  });
});
