// docs/PROTOCOL.md's "complete exchange" is executable: this test replays it against a real relay
// over raw WebSockets, sending every `X→` frame and checking every `X←` frame in order, so the
// document cannot drift from the relay. `"<any>"` in an expected frame matches any value.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, startRelay, type FrameClient, type Harness } from '../helpers/relay-harness.ts';

const doc = readFileSync(new URL('../../docs/PROTOCOL.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('## A complete exchange'));
const block = /```text\n([\s\S]*?)```/.exec(section)![1]!;
const steps = block.split('\n').filter((l) => l.trim() && !l.startsWith('#'));

function matches(expected: unknown, actual: unknown): boolean {
  if (expected === '<any>') return actual !== undefined;
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => matches(e, actual[i]))
    );
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object') return false;
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    return [...keys].every((k) =>
      matches((expected as Record<string, unknown>)[k], (actual as Record<string, unknown>)[k]),
    );
  }
  return expected === actual;
}

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

describe('docs/PROTOCOL.md', () => {
  it('its complete example exchange replays against the relay, frame for frame', async () => {
    expect(steps.length).toBeGreaterThan(30);
    const conns = new Map<string, { c: FrameClient; read: number }>();
    const conn = async (name: string) => {
      if (!conns.has(name)) conns.set(name, { c: await connect(h, 'ws'), read: 0 });
      return conns.get(name)!;
    };
    for (const line of steps) {
      const rest = /^REST (\w+) (\S+)(?: (.*))?$/.exec(line);
      if (rest) {
        const r = await h.api(rest[1]!, rest[2]!, rest[3] ? JSON.parse(rest[3]) : undefined);
        expect(r.status, line).toBeLessThan(300);
        continue;
      }
      const m = /^(\w)(→|←) (.*)$/.exec(line);
      expect(m, `unparsed line: ${line}`).not.toBeNull();
      const x = await conn(m![1]!);
      if (m![2] === '→') {
        x.c.sendRaw(m![3]!);
        continue;
      }
      const expected = JSON.parse(m![3]!);
      const got = await x.c.next(() => true, 3000, x.read);
      x.read = x.c.received.findIndex((r) => r.frame === got) + 1;
      expect(matches(expected, got), `${line}\n   got ${JSON.stringify(got)}`).toBe(true);
    }
    for (const { c } of conns.values()) await c.close();
  });
});
