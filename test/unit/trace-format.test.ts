// The one trace-event formatter (shared/protocol/trace-format.ts): replay's words, the ShiViz
// export's events, the grader's divergence text and the scenario traces all come from it.
import { describe, expect, it } from 'vitest';
import type { Message } from '@shared/algorithms/algorithm.ts';
import { TraceEventSchema, type TraceEvent } from '@shared/protocol/trace.ts';
import { describeEvent, describeInput, renderTrace } from '@shared/protocol/trace-format.ts';

type Body = TraceEvent extends infer E ? (E extends unknown ? Omit<E, 'seq' | 't'> : never) : never;
let seq = 0;
const at = (t: number, body: Body): TraceEvent => ({ seq: seq++, t, ...body }) as TraceEvent;

/** One event of every kind the trace schema has (the check below holds the list to it). */
const ONE_OF_EACH: TraceEvent[] = [
  at(0, { kind: 'send', msg: 1, from: 2, to: 3, type: 'ELECTION', message: { type: 'ELECTION' } }),
  at(1, { kind: 'duplicate', msg: 2, of: 1, from: 2, to: 3, type: 'ELECTION' }),
  at(2, { kind: 'deliver', msg: 1, from: 2, to: 3, type: 'ELECTION' }),
  at(3, { kind: 'drop', msg: 2, from: 2, to: 3, type: 'ELECTION', reason: 'loss' }),
  at(4, { kind: 'timer', node: 3, name: 'ok' }),
  at(5, { kind: 'elect', node: 4 }),
  at(6, { kind: 'crash', node: 7 }),
  at(7, { kind: 'recover', node: 7 }),
  at(8, { kind: 'pause', node: 1 }),
  at(9, { kind: 'resume', node: 1 }),
  at(10, { kind: 'join', node: 5 }),
  at(11, { kind: 'leave', node: 5 }),
  at(12, {
    kind: 'report',
    node: 6,
    report: { role: 'coordinator', coordinator: 6, electing: false },
  }),
  at(13, {
    kind: 'partition',
    groups: [
      [0, 1],
      [2, 3],
    ],
  }),
  at(14, { kind: 'partition', groups: null }),
  at(15, { kind: 'control', action: 'reset', restart: true }),
  at(16, { kind: 'note', text: 'hello' }),
  at(17, { kind: 'fault', node: 2, error: 'TypeError', event: 'timer ok', restarted: true }),
  at(18, { kind: 'owner', relay: 'r1', epoch: 3, previous: null }),
  at(19, {
    kind: 'finding',
    finding: { kind: 'safety', at: 19, detail: '6 and 7 both lead', processes: [6, 7] },
  }),
  at(20, { kind: 'deviation', node: 4, rule: 'bully-ok', text: 'answer OK', action: null }),
];

describe('describeEvent: an event in words', () => {
  it('has words for every kind of trace event, each naming its process', () => {
    const schemaKinds = new Set(
      TraceEventSchema.options.flatMap(({ shape: { kind } }) =>
        'options' in kind ? kind.options : [...kind.values],
      ),
    );
    expect(new Set(ONE_OF_EACH.map((e) => e.kind))).toEqual(schemaKinds);
    for (const e of ONE_OF_EACH) {
      const words = describeEvent(e);
      expect(words.length).toBeGreaterThan(0);
      if ('node' in e) expect(words).toContain(String(e.node));
    }
  });

  it('says who sends and who receives what, with the message id (PROTOCOL.md, the ShiViz example)', () => {
    const [send, dup, deliver, drop] = ONE_OF_EACH;
    expect(describeEvent(send!)).toBe('2 sends ELECTION to 3 (#1)');
    expect(describeEvent(dup!)).toBe('ELECTION 2 → 3 duplicated (#2 of #1)');
    expect(describeEvent(deliver!)).toBe('3 receives ELECTION from 2 (#1)');
    expect(describeEvent(drop!)).toBe('ELECTION 2 → 3 dropped: loss (#2)');
    expect(describeEvent(ONE_OF_EACH[13]!)).toBe('partition: {0, 1} | {2, 3}');
    expect(describeEvent(ONE_OF_EACH[14]!)).toBe('partition healed');
  });

  it('leaves message ids out when asked, so two runs with different ids compare equal', () => {
    const [send, dup, deliver] = ONE_OF_EACH;
    expect(describeEvent(send!, { ids: false })).toBe('2 sends ELECTION to 3');
    expect(describeEvent(dup!, { ids: false })).toBe('ELECTION 2 → 3 duplicated');
    expect(describeEvent(deliver!, { ids: false })).toBe('3 receives ELECTION from 2');
  });
});

describe('describeInput: what a process was handling', () => {
  it('names deliveries, timers, elect, crash and recover from the process side, and nothing else', () => {
    const inputs = ONE_OF_EACH.map(describeInput);
    expect(inputs.filter((x) => x !== null)).toEqual([
      'ELECTION from 2',
      'timer ok',
      'elect',
      'crash',
      'recover',
    ]);
  });
});

describe('renderTrace: one aligned line per event', () => {
  const body: Message = { type: 'ELECTION', list: [5, 6] };
  const run: TraceEvent[] = [
    at(0, { kind: 'send', msg: 1, from: 5, to: 6, type: 'ELECTION', message: body }),
    at(0.0004, { kind: 'duplicate', msg: 2, of: 1, from: 5, to: 6, type: 'ELECTION' }),
    at(100.25, { kind: 'deliver', msg: 1, from: 5, to: 6, type: 'ELECTION' }),
    at(101, { kind: 'drop', msg: 2, from: 5, to: 6, type: 'ELECTION', reason: 'partition' }),
    at(102, { kind: 'crash', node: 7 }),
  ];

  it('prints a delivery and a drop with the body their send carried, times to the microsecond', () => {
    expect(renderTrace(run)).toBe(
      [
        't=        0  send      5 -> 6  ELECTION list=[5,6]  #1',
        't=        0  duplicate 5 -> 6  ELECTION  #2 of #1',
        't=   100.25  deliver   5 -> 6  ELECTION list=[5,6]  #1',
        't=      101  drop      5 -> 6  ELECTION list=[5,6]  #2 (partition)',
        't=      102  crash     7',
        '',
      ].join('\n'),
    );
  });

  it("writes bodies in the notation it is given (the ring tests use the documents' ELECTION [5,6])", () => {
    const notation = (m: Message) => `${m.type} ${JSON.stringify(m['list'])}`;
    const lines = renderTrace(run, { message: notation }).split('\n');
    expect(lines[0]).toBe('t=        0  send      5 -> 6  ELECTION [5,6]  #1');
    expect(lines[3]).toBe('t=      101  drop      5 -> 6  ELECTION [5,6]  #2 (partition)');
  });

  it('has a line for every kind of trace event', () => {
    const lines = renderTrace(ONE_OF_EACH).trimEnd().split('\n');
    expect(lines).toHaveLength(ONE_OF_EACH.length);
    for (const line of lines) expect(line).toMatch(/^t= +\d+ {2}\S/);
  });
});
