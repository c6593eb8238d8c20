// The bench's profile summaries (bench/profile-summary.ts), which explain a missed target by
// name: self time from a CPU profile, bytes allocated from a sampled heap profile, each ranked
// by function and by file with its share of the whole.
import { describe, expect, it } from 'vitest';
import { summarizeHeapProfile, summarizeProfile } from '../../bench/profile-summary.ts';

const frame = (functionName: string, file: string, lineNumber = 0) => ({
  functionName,
  url: `file://${process.cwd()}/${file}`,
  lineNumber,
});

describe('profile summaries', () => {
  it('rank CPU self time by function and file, idle apart', () => {
    const s = summarizeProfile({
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 3, 4] },
        { id: 2, callFrame: frame('send', 'server/lab/lab.ts', 9) },
        { id: 3, callFrame: frame('deliver', 'server/lab/lab.ts', 40) },
        { id: 4, callFrame: frame('(idle)', '') },
      ],
      samples: [2, 2, 3, 4],
      timeDeltas: [3000, 3000, 2000, 2000],
    });
    expect(s.total).toBe(10);
    expect(s.idleShare).toBe(20);
    expect(s.functions[0]).toMatchObject({
      name: 'send',
      where: 'server/lab/lab.ts:10',
      amount: 6,
      share: 60,
    });
    expect(s.files[0]).toMatchObject({ name: 'server/lab/lab.ts', amount: 8, share: 80 });
  });

  it('rank bytes allocated by function and file, nested callers included', () => {
    const node = (f: ReturnType<typeof frame>, selfSize: number, children: unknown[] = []) => ({
      callFrame: f,
      selfSize,
      children,
    });
    const s = summarizeHeapProfile({
      head: node(frame('(root)', ''), 0, [
        node(frame('onText', 'server/lab/session.ts'), 1_000_000, [
          node(frame('send', 'server/lab/lab.ts'), 3_000_000, [
            node(frame('send', 'server/lab/lab.ts'), 1_000_000),
          ]),
        ]),
        node(frame('frame', 'node_modules/ws/lib/sender.js'), 5_000_000),
      ]) as never,
    });
    expect(s.total).toBe(10);
    expect(s.functions.map((h) => [h.name, h.share])).toEqual([
      ['frame', 50],
      ['send', 40],
      ['onText', 10],
    ]);
    expect(s.files[0]).toMatchObject({ name: 'node_modules/ws/lib/sender.js', amount: 5 });
  });
});
