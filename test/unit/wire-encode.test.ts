// The relay's hand-written JSON (server/trace/wire-encode.ts) against the schemas: for generated
// inputs (ids, times, awkward type strings, payloads, clocks of labs large and small) every
// fast-path output parses with its zod schema and is, to the character, what JSON.stringify
// writes for the same object, so the trace file, the observers' batches and the deliver frames
// read the same whichever path wrote them.
import { describe, expect, it } from 'vitest';
import type { Message, ProcessId, Report } from '@shared/algorithms/algorithm.ts';
import { DeliverFrameSchema, EventsFrameSchema } from '@shared/protocol/frames.ts';
import { TraceEventSchema, type TraceEvent } from '@shared/protocol/trace.ts';
import { createRng, type Random } from '@shared/sim/rng.ts';
import type { EventBody } from '../../server/lab/lab.ts';
import { LiveClocks, type LiveStamp } from '../../server/trace/live-clocks.ts';
import {
  clocksText,
  deliverFrame,
  eventsFrame,
  messageHeadMaxBytes,
  putMessageHead,
  traceLine,
  vectorKey,
} from '../../server/trace/wire-encode.ts';

const CHARS = [
  'A',
  'z',
  '_',
  '-',
  ' ',
  '"',
  '\\',
  '/',
  'é',
  '€',
  '\u2028',
  '\n',
  '\t',
  '😀',
  '\u0001',
];

const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Random, max: number) => Math.floor(r() * (max + 1));

function text(r: Random, min: number, max: number): string {
  const n = min + int(r, max - min);
  let s = '';
  // Count code units, as the schemas' length limits do; an emoji is two.
  while (s.length < n) {
    const c = pick(r, CHARS);
    if (s.length + c.length <= max) s += c;
  }
  return s;
}

function id(r: Random): ProcessId {
  return r() < 0.5 ? int(r, 20) : int(r, 1_000_000);
}

/** ms at the relay's 0.1 ms resolution. */
function time(r: Random): number {
  return r() < 0.05 ? 0 : Math.round(r() * 1e8) / 10;
}

function payload(r: Random): Message {
  const m: Message = { type: text(r, 1, 32) };
  for (let i = int(r, 4); i > 0; i--) {
    const key = pick(r, ['election', 'list', 'term', 'granted', 'note', 'x"y']);
    m[key] = pick<unknown>(r, [
      int(r, 1e6),
      r() < 0.5,
      null,
      text(r, 0, 10),
      [int(r, 9), int(r, 9)],
      { deep: { er: -r() } },
      1.5e-7,
    ]);
  }
  return m;
}

function report(r: Random): Report {
  return {
    role: text(r, 1, 32),
    coordinator: r() < 0.2 ? null : id(r),
    electing: r() < 0.5,
    ...(r() < 0.5 ? { term: int(r, 99) } : {}),
    ...(r() < 0.3 ? { activeList: [id(r), id(r)] } : {}),
  };
}

/** A lab's live clocks after random ticks and receipts among `n` ids; returns stamps to encode. */
function stamps(
  r: Random,
  n: number,
  vectors: boolean,
): { clocks: LiveClocks; stamps: LiveStamp[] } {
  const clocks = new LiveClocks(vectors);
  const ids = Array.from({ length: n }, () => id(r));
  const out: LiveStamp[] = [];
  for (let i = 0; i < 40; i++) {
    const p = pick(r, ids);
    out.push(r() < 0.5 || out.length === 0 ? clocks.tick(p) : clocks.receive(p, pick(r, out)));
  }
  return { clocks, stamps: out };
}

/**
 * A send or deliver line as the lab writes it: bytes into a buffer at an offset (a chunk holds
 * lines before it), within the bound the lab reserves, read back as UTF-8.
 */
function messageLine(
  clocks: LiveClocks,
  stamp: LiveStamp,
  seq: number,
  t: number,
  kind: 'send' | 'deliver',
  msg: number,
  from: ProcessId,
  to: ProcessId,
  type: string,
  json: string | null,
): string {
  const max = messageHeadMaxBytes(type, json) + clocks.maxBytes;
  const start = 5;
  const buf = Buffer.alloc(start + max + 1, 0xff);
  let end = clocks.put(
    buf,
    putMessageHead(buf, start, seq, t, kind, msg, from, to, type, json),
    stamp,
  );
  buf[end++] = 0x7d;
  expect(end - start).toBeLessThanOrEqual(max);
  return buf.toString('utf8', start, end);
}

function parse(line: string): unknown {
  return JSON.parse(line);
}

describe("wire-encode: the hand-written JSON is the schemas' JSON", () => {
  const runs = Array.from({ length: 60 }, (_, seed) => seed + 1);

  it('clocks: `"lamport":L,"vector":{...}` as JSON.stringify writes the stamp, for labs of 1 to 70 ids, with and without vectors', () => {
    for (const seed of runs) {
      const r = createRng(seed);
      const { clocks, stamps: all } = stamps(r, 1 + int(r, 69), r() < 0.8);
      for (const s of all) {
        if (!s.counts)
          expect(clocksText(s.lamport, undefined, [], [])).toBe(`"lamport":${s.lamport}`);
        expect(`{${clocks.json(s)}}`).toBe(JSON.stringify(clocks.stamp(s)));
      }
    }
    expect(Buffer.from(vectorKey(12)).toString('latin1')).toBe(',"12":');
  });

  it('send and deliver lines parse as trace events and equal JSON.stringify of the stamped event', () => {
    for (const seed of runs) {
      const r = createRng(seed);
      const { clocks, stamps: all } = stamps(r, 1 + int(r, 9), r() < 0.7);
      for (let i = 0; i < 20; i++) {
        const stamp = pick(r, all);
        const [seq, t, msg, from, to] = [int(r, 1e7), time(r), 1 + int(r, 1e7), id(r), id(r)];
        const message = payload(r);
        const type = message.type;
        const json = JSON.stringify(message);
        const sendLine = messageLine(clocks, stamp, seq, t, 'send', msg, from, to, type, json);
        const send = { seq, t, kind: 'send', msg, from, to, type, message, ...clocks.stamp(stamp) };
        expect(TraceEventSchema.safeParse(parse(sendLine)).success).toBe(true);
        expect(sendLine).toBe(JSON.stringify(send));
        const deliverLine = messageLine(
          clocks,
          stamp,
          seq,
          t,
          'deliver',
          msg,
          from,
          to,
          type,
          null,
        );
        expect(TraceEventSchema.safeParse(parse(deliverLine)).success).toBe(true);
        expect(deliverLine).toBe(
          JSON.stringify({ seq, t, kind: 'deliver', msg, from, to, type, ...clocks.stamp(stamp) }),
        );
        const frame = deliverFrame(from, msg, json);
        expect(DeliverFrameSchema.safeParse(parse(frame)).success).toBe(true);
        expect(frame).toBe(JSON.stringify({ type: 'deliver', from, msg, message }));
      }
    }
  });

  it("numbers in send and deliver lines are JSON.stringify's, whole, tenths and the odd ones too", () => {
    const clocks = new LiveClocks(true);
    const stamp = clocks.tick(3);
    const times = [
      0,
      0.1,
      0.5,
      9.9,
      10,
      99.9,
      100.1,
      123456789.5,
      2 ** 53 - 1,
      1e15 + 0.5,
      1e21,
      0.30000000000000004,
      1.25,
      1e-7,
      -0,
      -2.5,
    ];
    for (const t of times) {
      const line = messageLine(clocks, stamp, 2 ** 40, t, 'deliver', 0, 0, 999_999, 'OK', null);
      expect(line).toBe(
        JSON.stringify({
          seq: 2 ** 40,
          t,
          kind: 'deliver',
          msg: 0,
          from: 0,
          to: 999_999,
          type: 'OK',
          ...clocks.stamp(stamp),
        }),
      );
    }
  });

  it('every other event kind: its line parses, with its clocks last, and equals JSON.stringify', () => {
    for (const seed of runs) {
      const r = createRng(seed);
      const { clocks, stamps: all } = stamps(r, 1 + int(r, 9), true);
      const node = id(r);
      const bodies: EventBody[] = [
        { kind: 'report', node, report: report(r) },
        { kind: pick(r, ['crash', 'recover', 'join', 'leave'] as const), node },
        { kind: 'elect', node },
        {
          kind: 'drop',
          msg: int(r, 1e6),
          from: id(r),
          to: id(r),
          type: text(r, 1, 32),
          reason: pick(r, ['loss', 'partition', 'overflow', 'manual'] as const),
        },
        {
          kind: 'duplicate',
          msg: int(r, 1e6),
          of: int(r, 1e6),
          from: id(r),
          to: id(r),
          type: text(r, 1, 32),
        },
        { kind: 'partition', groups: r() < 0.3 ? null : [[id(r)], [id(r), id(r)]] },
        {
          kind: 'control',
          action: pick(r, ['pause', 'resume', 'reset', 'reconfigure', 'fabric'] as const),
          ...(r() < 0.3 ? { restart: true as const } : {}),
        },
        { kind: 'note', text: text(r, 0, 40) },
        {
          kind: 'finding',
          finding: { kind: 'spurious', at: time(r), detail: text(r, 0, 40), processes: [id(r)] },
        },
      ];
      for (const body of bodies) {
        const event = { seq: int(r, 1e7), t: time(r), ...body } as TraceEvent;
        const stamp = r() < 0.5 ? pick(r, all) : null;
        const line = traceLine(event, stamp ? clocks.json(stamp) : null);
        const parsed = TraceEventSchema.safeParse(parse(line));
        expect(parsed.success, `${line}: ${parsed.error?.message}`).toBe(true);
        expect(line).toBe(JSON.stringify(stamp ? { ...event, ...clocks.stamp(stamp) } : event));
      }
    }
  });

  it('events frames parse with their schema and equal JSON.stringify of the batch, empty batches and awkward lab names too', () => {
    for (const seed of runs) {
      const r = createRng(seed);
      const events: TraceEvent[] = Array.from({ length: int(r, 5) }, (_, i) => ({
        seq: i,
        t: time(r),
        kind: 'elect',
        node: id(r),
      }));
      const lab = pick(r, ['a', 'lab-1', 'Z_9', 'x'.repeat(64)]);
      const skipped = int(r, 3) === 0 ? int(r, 5000) : 0;
      const frame = eventsFrame(
        JSON.stringify(lab),
        events.map((e) => JSON.stringify(e)),
        skipped,
      );
      expect(EventsFrameSchema.safeParse(parse(frame)).success).toBe(true);
      expect(frame).toBe(JSON.stringify({ type: 'events', lab, events, skipped }));
    }
  });
});
