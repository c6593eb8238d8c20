// readTrace (client/src/utils/replay-load.ts): a trace file becomes a replay, or a stated reason
// why not (docs/UI.md, "Replay": every line checked, an empty or nameless trace refused).
import { describe, expect, it } from 'vitest';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { serializeTrace, type ParsedTrace } from '@shared/protocol/trace-file.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { simulate } from '@shared/sim/simulator.ts';
import { lingerOf, readTrace } from '../../client/src/utils/replay-load.ts';
import type { MessageOutcome } from '../../client/src/utils/replay-view.ts';

function bullyTrace(): string {
  const r = simulate({
    algorithm: getAlgorithm('bully'),
    ids: [0, 1, 2, 3],
    detector: 'none',
    crashes: [{ id: 3, at: 0 }],
    elections: [{ id: 1, at: 0 }],
    seed: 1,
  });
  return serializeTrace(
    { source: 'simulator', algorithm: 'bully', ids: [0, 1, 2, 3], seed: r.seed },
    r.trace,
  );
}

describe('readTrace', () => {
  it('a simulator trace loads with its processes, every message fate and at least one election', () => {
    const r = readTrace(bullyTrace(), 'run.jsonl');
    if (!r.ok) throw new Error(r.error);
    const { loaded } = r;
    expect(loaded.name).toBe('run.jsonl');
    expect(loaded.meta.ids).toEqual([0, 1, 2, 3]);
    expect(loaded.config.algorithm).toBe('bully');
    const sends = loaded.trace.events.filter((e) => e.kind === 'send').length;
    expect(sends).toBeGreaterThan(0);
    expect(loaded.fates.size).toBe(sends);
    expect(loaded.elections.length).toBeGreaterThan(0);
    expect(loaded.linger).toBe(lingerOf(loaded.trace, loaded.fates));
  });

  it('names the lab’s processes when the trace came from a lab on this relay', () => {
    const first = readTrace(bullyTrace(), 'x');
    if (!first.ok) throw new Error(first.error);
    const lab = {
      config: first.loaded.config,
      processes: [
        {
          id: 2,
          name: 'Ada',
          kind: 'human' as const,
          status: 'up' as const,
          transport: 'ws' as const,
          report: null,
          group: null,
        },
      ],
    };
    const r = readTrace(bullyTrace(), 'lab demo', lab);
    expect(r.ok && r.loaded.known.get(2)).toEqual({ name: 'Ada', kind: 'human' });
  });

  it('a file that fails the line check is refused with its problems, counted in the message', () => {
    const r = readTrace('not json\n{"kind":"nope"}\n', 'bad.txt');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.length).toBe(2);
    expect(r.error).toBe(
      '“bad.txt” is not a trace this dashboard can replay: 2 lines failed the check.',
    );
  });

  it('a header with no events, or events that name no process, is refused with the reason', () => {
    const header = bullyTrace().split('\n')[0]!;
    const empty = readTrace(header + '\n', 'h.jsonl');
    expect(empty).toMatchObject({
      ok: false,
      error: '“h.jsonl” holds no trace events (only a header).',
    });
    expect(readTrace('', 'e.jsonl')).toMatchObject({
      ok: false,
      error: '“e.jsonl” holds no trace events.',
    });
  });
});

describe('lingerOf', () => {
  const send = (msg: number, t: number): TraceEvent => ({
    seq: msg,
    t,
    kind: 'send',
    msg,
    from: 0,
    to: 1,
    type: 'ELECTION',
    message: { type: 'ELECTION' },
  });
  const trace = (events: TraceEvent[]): ParsedTrace => ({ header: null, events });

  it('a drop lingers twice the mean delivery time; dropped messages do not count', () => {
    const fates = new Map<number, MessageOutcome>([
      [1, { at: 30, dropped: null }],
      [2, { at: 50, dropped: null }],
      [3, { at: 900, dropped: 'receiver-crashed' }],
    ]);
    // Deliveries took 30 and 40 ms: mean 35, twice that 70.
    expect(lingerOf(trace([send(1, 0), send(2, 10), send(3, 10)]), fates)).toBe(70);
  });

  it('at least 20 ms, and 200 ms when nothing was delivered', () => {
    expect(lingerOf(trace([send(1, 0)]), new Map([[1, { at: 2, dropped: null }]]))).toBe(20);
    expect(lingerOf(trace([send(1, 0)]), new Map())).toBe(200);
  });
});
