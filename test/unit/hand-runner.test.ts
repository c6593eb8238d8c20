// Hand mode's runner and kit (shared/coach/hand-runner.ts, hand-kit.ts) on a virtual clock: a
// process played by hand sends nothing by itself, her click goes out through the host's
// transport, her report follows her clicks, a ring hop with no ACK within UB offers the next
// successor (002: "sends to first live successor"), and the detector toggle queues a silent
// coordinator (003: "a machine which notices that the message is absent then starts an
// election"). Every offer the kit makes fits its algorithm's message schemas.
import { describe, expect, it } from 'vitest';
import {
  ALGORITHM_NAMES,
  DEFAULT_TIMING,
  roundTripBound,
  type AlgorithmConfig,
  type Message,
  type Report,
} from '@shared/algorithms/algorithm.ts';
import { getAlgorithm, MESSAGE_SCHEMAS } from '@shared/algorithms/registry.ts';
import { parseMessage } from '@shared/algorithms/messages.ts';
import { replies } from '@shared/coach/hand-kit.ts';
import { moves } from '@shared/coach/hand-moves.ts';
import { HandRunner } from '@shared/coach/hand-runner.ts';
import { coach, type CoachEntry, type HandAction } from '@shared/coach/coach.ts';
import type { HostIO } from '@shared/sim/process-host.ts';

const ids = [1, 2, 3, 4, 5, 6, 7];
const UB = roundTripBound(DEFAULT_TIMING);

/** A host on a virtual clock: timers fire when `advance` passes them. */
function virtualHost() {
  let now = 0;
  let next = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const sent: { to: number; message: Message }[] = [];
  const reports: Report[] = [];
  const hands: { action: string | null; rules: string[] }[] = [];
  const io: HostIO = {
    send: (to, message) => sent.push({ to, message }),
    report: (r) => reports.push(r),
    setTimer: (fn, ms) => {
      timers.set(++next, { at: now + ms, fn });
      return next;
    },
    clearTimer: (h) => void timers.delete(h as number),
    now: () => now,
    random: () => 0.5,
  };
  const advance = (ms: number) => {
    const end = now + ms;
    for (let guard = 0; guard < 10_000; guard++) {
      const due = [...timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      timers.delete(due[0]);
      now = due[1].at;
      due[1].fn();
    }
    now = end;
  };
  return { io, sent, reports, hands, advance };
}

function runner(
  name: 'bully' | 'ring' | 'ring-active-list' | 'raft' | 'emergent',
  self: number,
  detector: AlgorithmConfig['detector'] = 'none',
  autoBeat = true,
) {
  const host = virtualHost();
  const r = new HandRunner({
    algorithm: getAlgorithm(name),
    io: host.io,
    seed: 1,
    autoBeat,
    onHand: (action, d) => host.hands.push({ action, rules: d.map((x) => x.rule) }),
  });
  r.start({ self, ids, ring: ids, timing: DEFAULT_TIMING, detector });
  return { r, ...host };
}

describe('hand runner', () => {
  it('sends nothing by itself: deliveries, elect requests and time only queue', () => {
    const { r, sent, advance } = runner('bully', 5);
    r.deliver(2, { type: 'ELECTION', election: 1 });
    r.elect();
    advance(10 * UB);
    expect(sent).toEqual([]);
    expect(r.view().queue.map((q) => q.note)).toEqual([
      'the instructor asks for an election',
      'ELECTION from 2',
      'started: the documents say a process holds an election on start (003)',
    ]);
  });

  it('heartbeats (003: sent every interval) wait as one item per sender, counted, and push nothing out; a message with its own content still gets its own item', () => {
    const { r } = runner('emergent', 1);
    for (let i = 0; i < 40; i++)
      for (const from of [5, 6, 7])
        r.deliver(from, from === 7 ? { type: 'MASTER_HEARTBEAT' } : { type: 'SLAVE_HEARTBEAT' });
    r.deliver(6, { type: 'CANDIDATE' });
    r.deliver(6, { type: 'CANDIDATE' });
    const v = r.view();
    expect(v.dropped).toBe(0);
    // A candidacy offers her a reply (abort it, were she master): each waits on its own.
    expect(v.queue.map((q) => [q.note, q.repeats])).toEqual([
      ['CANDIDATE from 6', undefined],
      ['CANDIDATE from 6', undefined],
      ['MASTER_HEARTBEAT from 7', 40],
      ['SLAVE_HEARTBEAT from 6', 40],
      ['SLAVE_HEARTBEAT from 5', 40],
      ['started: the documents say a process holds an election on start (003)', undefined],
    ]);
    // The master's heartbeat still waits with its offer; answered, the next one is a new item.
    const beat = v.queue[2]!;
    expect(beat.offers.map((o) => o.key)).toEqual(['follow-7']);
    r.act(beat.offers[0]!, beat);
    r.deliver(7, { type: 'MASTER_HEARTBEAT' });
    // She follows 7 now: its heartbeat asks nothing more of her, so it is not left open.
    expect(
      r
        .view()
        .queue.filter((q) => q.note === 'MASTER_HEARTBEAT from 7')
        .map((q) => [q.done, q.repeats]),
    ).toEqual([
      [true, undefined],
      [true, 40],
    ]);
    expect(r.view().queue[0]!.offers).toEqual([]);
  });

  it('a message that asks something of her is never folded into another: each ELECTION from 2 waits for its own OK', () => {
    const { r } = runner('bully', 5);
    r.deliver(2, { type: 'ELECTION', election: 1 });
    r.deliver(2, { type: 'ELECTION', election: 1 });
    expect(
      r
        .view()
        .queue.filter((q) => q.message?.type === 'ELECTION')
        .map((q) => q.repeats),
    ).toEqual([undefined, undefined]);
  });

  it("a peer's malformed or random messages never throw, never make an offer or move that breaks the schemas, and never take her election move away", () => {
    const key = {
      bully: 'elect',
      ring: 'elect',
      'ring-active-list': 'elect',
      emergent: 'candidate',
      raft: 'vote',
    } as const;
    const junk: unknown[] = [2.5, -1, 1e300, 'x', null, true, [], {}, { n: 1 }, 2 ** 53];
    let seed = 7;
    const pick = <T>(xs: readonly T[]): T =>
      xs[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % xs.length]!;
    for (const name of ALGORITHM_NAMES) {
      const { r, sent } = runner(name, 3);
      const types = [...Object.keys(MESSAGE_SCHEMAS[name]), 'NOPE', '__proto__'];
      for (let i = 0; i < 300; i++) {
        const m: Record<string, unknown> = { type: pick(types) };
        for (const f of [
          'id',
          'epoch',
          'term',
          'seq',
          'election',
          'coordinator',
          'list',
          'eid',
          'granted',
          'master',
        ])
          if (pick([0, 1])) m[f] = pick(junk);
        expect(() => r.deliver(pick([1, 2, 4, 7]), m as Message)).not.toThrow();
        const item = r.view().queue.find((q) => !q.done && q.offers.length > 0);
        if (item && i % 3 === 0) expect(() => r.act(item.offers[0]!, item)).not.toThrow();
      }
      const v = r.view();
      for (const o of [...v.moves, ...v.queue.flatMap((q) => q.offers)])
        for (const s of o.steps)
          if (s.kind === 'send')
            expect(
              parseMessage(MESSAGE_SCHEMAS[name], s.message),
              `${name}: ${o.label}`,
            ).not.toBeNull();
      for (const x of sent)
        expect(
          parseMessage(MESSAGE_SCHEMAS[name], x.message),
          `${name} sent ${JSON.stringify(x.message)}`,
        ).not.toBeNull();
      expect(
        v.moves.map((m) => m.key),
        name,
      ).toContain(key[name]);
    }
  });

  it('keeps the newest 60 items waiting for her and counts the ones it pushed out', () => {
    const { r, sent } = runner('bully', 5);
    for (let i = 0; i < 70; i++) r.deliver(2, { type: 'ELECTION', election: i + 1 });
    const v = r.view();
    expect(v.queue).toHaveLength(60);
    expect(v.queue[0]!.message).toMatchObject({ election: 70 });
    // 70 deliveries and the start note: 71 items, 60 kept.
    expect(v.dropped).toBe(11);
    expect(sent).toEqual([]);
  });

  it('her click goes out through the transport, once; her report follows her clicks; the relay hears of the click', () => {
    const { r, sent, reports, hands, advance } = runner('bully', 5);
    r.deliver(2, { type: 'ELECTION', election: 1, term: 3 });
    const item = r.view().queue[0]!;
    const ok = item.offers.find((o) => o.key === 'ok-2')!;
    r.act(ok, item);
    r.act(ok, item);
    expect(sent).toEqual([{ to: 2, message: { type: 'OK', election: 1, term: 3 } }]);
    r.act(r.view().moves.find((m) => m.key === 'elect')!);
    expect(sent.slice(1).map((s) => `${s.message.type}->${s.to}`)).toEqual([
      'ELECTION->6',
      'ELECTION->7',
    ]);
    expect(reports.at(-1)).toMatchObject({ role: 'electing', electing: true });
    r.deliver(6, { type: 'COORDINATOR' });
    r.act(r.view().queue[0]!.offers[0]!, r.view().queue[0]!);
    expect(reports.at(-1)).toEqual({ role: 'follower', coordinator: 6, electing: false });
    advance(3 * UB);
    expect(hands.filter((h) => h.action !== null).map((h) => h.action)).toEqual([
      'Answer OK to 2',
      expect.stringContaining('Hold an election'),
      'Believe 6 is coordinator',
    ]);
    expect(hands.flatMap((h) => h.rules)).toEqual([]);
  });

  it('002: a ring hop with no ACK within UB marks the successor dead and offers the next one; an ACK in time does not', () => {
    const { r, sent, advance } = runner('ring', 3);
    r.deliver(2, { type: 'ELECTION', seq: 5, eid: '2-1', list: [2] });
    const item = r.view().queue[0]!;
    r.act(
      item.offers.find((o) => o.key === 'fwd-4')!,
      item,
    );
    expect(sent.map((s) => s.message)).toEqual([
      { type: 'ACK', seq: 5 },
      expect.objectContaining({ type: 'ELECTION', eid: '2-1', list: [2, 3] }),
    ]);
    advance(UB + 1);
    const note = r.view().queue[0]!;
    expect(note.note).toBe('no ACK from 4 within UB: 4 looks dead');
    expect(r.view().down).toEqual([4]);
    expect(r.view().successor).toBe(5);
    r.act(note.offers[0]!, note);
    expect(sent.at(-1)).toMatchObject({ to: 5, message: { type: 'ELECTION', list: [2, 3] } });
    r.deliver(5, { type: 'ACK', seq: sent.at(-1)!.message.seq as number });
    advance(2 * UB);
    expect(r.view().queue[0]!.note).toBe(note.note);
  });

  it('003: with the detector toggle on, a follower whose coordinator falls silent gets it queued; off, nothing', () => {
    for (const on of [true, false]) {
      const { r, sent, advance } = runner('bully', 5, 'heartbeat', on);
      r.deliver(7, { type: 'COORDINATOR' });
      r.act(r.view().queue[0]!.offers[0]!, r.view().queue[0]!);
      r.deliver(7, { type: 'HEARTBEAT' });
      advance(DEFAULT_TIMING.heartbeatTimeout + 1);
      expect(r.view().queue[0]!.note.includes('is silent')).toBe(on);
      expect(sent).toEqual([]);
    }
  });

  it('as coordinator, the toggle sends the heartbeats (and only then)', () => {
    const { r, sent, advance } = runner('bully', 7, 'heartbeat');
    r.act(r.view().moves.find((m) => m.key === 'declare')!);
    expect(sent.filter((s) => s.message.type === 'COORDINATOR')).toHaveLength(6);
    advance(DEFAULT_TIMING.heartbeatInterval * 2 + 1);
    // One round at once, then one every interval.
    expect(sent.filter((s) => s.message.type === 'HEARTBEAT')).toHaveLength(3 * 6);
    r.setAutoBeat(false);
    const before = sent.length;
    advance(DEFAULT_TIMING.heartbeatInterval * 3);
    expect(sent.length).toBe(before);
  });
});

/** Her successor 4 is alive: each call ACKs every hop she has sent it since the last. */
function successorAcks(
  r: HandRunner,
  sent: readonly { to: number; message: Message }[],
): () => void {
  let acked = 0;
  return () => {
    for (; acked < sent.length; acked++) {
      const x = sent[acked]!;
      if (x.to === 4 && x.message.type !== 'ACK')
        r.deliver(4, { type: 'ACK', seq: x.message['seq'] as number });
    }
  };
}

describe('hand runner: the active-list ring (001)', () => {
  it("played by the kit's offers (her start election, then a newer one joined and forwarded, Elected(max) when hers comes back), the coach marks nothing", () => {
    const { r, sent, advance } = runner('ring-active-list', 3);
    const ackAll = successorAcks(r, sent);
    const answer = (key: string) => {
      const item = r.view().queue.find((q) => !q.done && q.offers.some((o) => o.key === key))!;
      r.act(
        item.offers.find((o) => o.key === key)!,
        item,
      );
      ackAll();
      advance(50);
    };
    r.act(r.view().moves.find((m) => m.key === 'elect')!);
    ackAll();
    advance(100);
    // 6 opens a newer election: its Elect reaches her first; she joins (her own Elect first) and forwards.
    r.deliver(2, { type: 'ELECT', seq: 1, id: 6, epoch: 2 });
    answer('fwd-4');
    for (const [seq, id] of [
      [2, 1],
      [3, 2],
    ] as const) {
      r.deliver(2, { type: 'ELECT', seq, id, epoch: 2 });
      answer('fwd-4');
    }
    r.deliver(2, { type: 'ELECT', seq: 4, id: 3, epoch: 2 });
    answer('elected-4');
    // Elected(6) comes round: now she believes it.
    r.deliver(2, { type: 'ELECTED', seq: 5, coordinator: 6, epoch: 2 });
    answer('believe-6');
    advance(3 * UB);
    const elects = sent
      .filter((x) => x.message.type === 'ELECT')
      .map((x) => `${String(x.message['id'])}@${String(x.message['epoch'])}`);
    // Her start election carries the reference's epoch (0: it knows none yet); 6's carries 2.
    expect(elects).toEqual(['3@0', '3@2', '6@2', '1@2', '2@2']);
    expect(
      sent.filter((x) => x.message.type === 'ELECTED').map((x) => x.message['coordinator']),
    ).toEqual([6]);
    expect(r.view().deviations).toEqual([]);
  });

  it("her start election carries the epoch the reference knows (0: none yet), so a newer election from the ring is joined with her own Elect; two elections played by the kit's offers, the coach marks nothing", () => {
    // Slow links: a whole round of Elects reaches her at once, and she answers one a click.
    const { r, sent, advance } = runner('ring-active-list', 3);
    const acks: number[] = [];
    let acked = 0;
    const sendAcks = () => {
      for (; acked < sent.length; acked++) {
        const x = sent[acked]!;
        if (x.to === 4 && x.message.type !== 'ACK') acks.push(x.message['seq'] as number);
      }
    };
    const deliverAcks = () => {
      for (const seq of acks.splice(0)) r.deliver(4, { type: 'ACK', seq });
    };
    const answer = (key: string, id?: number) => {
      const item = r
        .view()
        .queue.find(
          (q) =>
            !q.done &&
            q.offers.some((o) => o.key === key) &&
            (id === undefined || q.message?.['id'] === id),
        )!;
      r.act(
        item.offers.find((o) => o.key === key)!,
        item,
      );
      sendAcks();
      advance(10);
      deliverAcks();
      advance(10);
    };
    advance(50);
    r.act(r.view().moves.find((m) => m.key === 'elect')!);
    sendAcks();
    advance(40);
    deliverAcks();
    // The ring's election of epoch 1 comes round to her all at once, Elected(7) right behind it.
    for (const [seq, id] of [
      [14, 2],
      [15, 1],
      [16, 7],
      [17, 6],
      [18, 5],
      [19, 4],
    ] as const)
      r.deliver(2, { type: 'ELECT', seq, id, epoch: 1 });
    // Each answered within UB of its arrival (UB = 210 ms here), the last one near its end.
    advance(UB / 4);
    answer('fwd-4', 2);
    r.deliver(2, { type: 'ELECTED', seq: 20, coordinator: 7, epoch: 1 });
    for (const id of [1, 7, 6, 5, 4]) answer('fwd-4', id);
    answer('believe-7');
    // 7 crashes; 2 opens epoch 2.
    r.deliver(2, { type: 'ELECT', seq: 21, id: 2, epoch: 2 });
    advance(UB / 2);
    answer('fwd-4');
    advance(3 * UB);
    const elects = sent
      .filter((x) => x.message.type === 'ELECT')
      .map((x) => `${String(x.message['id'])}@${String(x.message['epoch'])}`);
    expect(elects).toEqual(['3@0', '3@1', '2@1', '1@1', '7@1', '6@1', '5@1', '4@1', '3@2', '2@2']);
    expect(r.view().deviations).toEqual([]);
  });

  it.each([false, true])(
    "an Elect(j) above the winner she already named comes after her own Elect (001, the reference's correction): forwarding it also sends Elected(j); unmarked (Elect(6) already waiting: %s)",
    (waiting) => {
      const { r, sent, advance } = runner('ring-active-list', 3);
      const ackAll = successorAcks(r, sent);
      const answer = (id: number, key: string) => {
        const item = r.view().queue.find((q) => !q.done && q.message?.['id'] === id)!;
        r.act(
          item.offers.find((o) => o.key === key)!,
          item,
        );
        ackAll();
        advance(20);
      };
      // Her start election (the documents: a process holds one on start), then the ring's epoch 1.
      r.act(r.view().moves.find((m) => m.key === 'elect')!);
      ackAll();
      r.deliver(2, { type: 'ELECT', seq: 1, id: 2, epoch: 1 });
      answer(2, 'fwd-4');
      r.deliver(2, { type: 'ELECT', seq: 2, id: 5, epoch: 1 });
      answer(5, 'fwd-4');
      // Her own Elect comes back before 6's: her list says 5.
      r.deliver(2, { type: 'ELECT', seq: 3, id: 3, epoch: 1 });
      if (waiting) r.deliver(2, { type: 'ELECT', seq: 4, id: 6, epoch: 1 });
      answer(3, 'elected-4');
      if (!waiting) r.deliver(2, { type: 'ELECT', seq: 4, id: 6, epoch: 1 });
      answer(6, 'fwd-4');
      const hops = sent
        .filter((x) => x.to === 4)
        .map((x) => `${x.message.type}(${String(x.message['id'] ?? x.message['coordinator'])})`);
      expect(hops).toEqual([
        'ELECT(3)',
        'ELECT(3)',
        'ELECT(2)',
        'ELECT(5)',
        'ELECTED(5)',
        'ELECT(6)',
        'ELECTED(6)',
      ]);
      r.deliver(2, { type: 'ELECTED', seq: 5, coordinator: 6, epoch: 1 });
      const item = r.view().queue.find((q) => !q.done && q.message?.type === 'ELECTED')!;
      r.act(
        item.offers.find((o) => o.key === 'believe-6')!,
        item,
      );
      advance(3 * UB);
      expect(r.view().deviations).toEqual([]);
    },
  );

  it('a copy of an Elect she forwarded already (its sender sent it again after a late ACK) is only acknowledged, as the reference drops it (001 (b) adds j once); unmarked', () => {
    const { r, sent, advance } = runner('ring-active-list', 3);
    r.act(r.view().moves.find((m) => m.key === 'elect')!);
    r.deliver(4, { type: 'ACK', seq: sent[0]!.message['seq'] as number });
    r.deliver(2, { type: 'ELECT', seq: 1, id: 2, epoch: 1 });
    r.deliver(2, { type: 'ELECT', seq: 2, id: 2, epoch: 1 });
    const [copy, first] = r.view().queue.filter((q) => q.message?.type === 'ELECT');
    r.act(
      first!.offers.find((o) => o.key === 'fwd-4')!,
      first,
    );
    for (const x of sent.filter((y) => y.to === 4 && y.message.type === 'ELECT').slice(1))
      r.deliver(4, { type: 'ACK', seq: x.message['seq'] as number });
    const again = r.view().queue.find((q) => q.n === copy!.n)!;
    expect(again.offers.map((o) => o.key)).toEqual(['ack-2']);
    r.act(again.offers[0]!, again);
    expect(sent.filter((x) => x.message.type === 'ELECT').map((x) => x.message['id'])).toEqual([
      3, 3, 2,
    ]);
    expect(sent.filter((x) => x.to === 2).map((x) => x.message)).toEqual([
      { type: 'ACK', seq: 1 },
      { type: 'ACK', seq: 2 },
    ]);
    advance(3 * UB);
    expect(r.view().deviations).toEqual([]);
  });

  it('two Elects of an election she has not joined, both waiting: the first she answers sends her own Elect, the second only forwards (001 (a), once)', () => {
    const { r, sent } = runner('ring-active-list', 3);
    r.deliver(2, { type: 'ELECT', seq: 1, id: 6, epoch: 2 });
    r.deliver(2, { type: 'ELECT', seq: 2, id: 1, epoch: 2 });
    for (const seq of [1, 2]) {
      const item = r.view().queue.find((q) => q.message?.['seq'] === seq)!;
      r.act(
        item.offers.find((o) => o.key === 'fwd-4')!,
        item,
      );
    }
    expect(sent.filter((x) => x.message.type === 'ELECT').map((x) => x.message['id'])).toEqual([
      3, 6, 1,
    ]);
  });

  it('a newer election starts her active list anew: her Elected offers the highest id of this epoch, not a crashed one from the last', () => {
    const { r } = runner('ring-active-list', 3);
    for (const id of [7, 6, 2]) r.deliver(2, { type: 'ELECT', seq: id, id, epoch: 1 });
    r.deliver(2, { type: 'ELECT', seq: 8, id: 3, epoch: 1 });
    expect(r.view().queue[0]!.offers[0]!.label).toBe('My Elect came back: Elected(7) to 4');
    // 7 crashed; epoch 2's Elects show only the live ids.
    for (const id of [2, 6]) r.deliver(2, { type: 'ELECT', seq: 10 + id, id, epoch: 2 });
    r.deliver(2, { type: 'ELECT', seq: 20, id: 3, epoch: 2 });
    expect(r.view().queue[0]!.offers[0]!.label).toBe('My Elect came back: Elected(6) to 4');
  });
});

describe('hand kit', () => {
  const config = (self: number): AlgorithmConfig => ({
    self,
    ids,
    ring: ids,
    timing: DEFAULT_TIMING,
    detector: 'none',
  });
  const counters = {
    elections: 0,
    successor: 4,
    activeList: [2],
    epoch: 1,
    joined: 0,
    told: null,
    forwarded: [],
    term: 0,
  };

  it.each(ALGORITHM_NAMES)("%s: every offered message fits the algorithm's schema", (name) => {
    const offers = [
      ...moves(name, config(3), counters),
      ...replies(
        name,
        config(3),
        2,
        { type: 'ELECTION', seq: 1, eid: '2-1', list: [2], election: 1 },
        counters,
      ),
      ...replies(name, config(3), 2, { type: 'ELECT', seq: 1, id: 2, epoch: 1 }, counters),
      ...replies(
        name,
        config(3),
        2,
        { type: 'COORDINATOR', seq: 1, eid: '2-1', coordinator: 7, origin: 2 },
        counters,
      ),
      ...replies(name, config(3), 2, { type: 'REQUEST_VOTE', term: 4 }, counters),
      ...replies(name, config(3), 2, { type: 'HEARTBEAT', term: 4 }, counters),
      ...replies(name, config(3), 2, { type: 'MASTER_HEARTBEAT' }, counters),
      ...replies(name, config(3), 2, { type: 'CANDIDATE' }, counters),
    ];
    expect(offers.length).toBeGreaterThan(1);
    for (const o of offers)
      for (const s of o.steps)
        if (s.kind === 'send')
          expect(parseMessage(MESSAGE_SCHEMAS[name], s.message), `${o.label}`).not.toBeNull();
  });

  it('emergent: with too few slaves she joins the pool by hand and keeps heartbeating (003, "Operation ii"); the dashboard sees a slave; the coach marks nothing, and leaving is offered', () => {
    const host = virtualHost();
    const r = new HandRunner({
      algorithm: getAlgorithm('emergent'),
      io: host.io,
      seed: 1,
      autoBeat: true,
      onHand: () => {},
    });
    r.start({
      self: 1,
      ids,
      ring: ids,
      timing: DEFAULT_TIMING,
      detector: 'heartbeat',
      initialCoordinator: 7,
    });
    const beat = () => r.act(r.view().moves.find((m) => m.key === 'pool-beat')!);
    // The master heartbeats; nobody is in the pool: the reference promotes itself after its trigger delay.
    let first = -1;
    for (let t = 0; t < 5000 && first < 0; t += 100) {
      host.advance(100);
      r.deliver(7, { type: 'MASTER_HEARTBEAT' });
      if (r.view().coach.suggestions.some((x) => x.message.type === 'SLAVE_HEARTBEAT')) first = t;
    }
    expect(first).toBeGreaterThan(0);
    beat();
    expect(host.sent.filter((x) => x.message.type === 'SLAVE_HEARTBEAT').map((x) => x.to)).toEqual([
      2, 3, 4, 5, 6, 7,
    ]);
    expect(host.reports.at(-1)?.role).toBe('slave');
    // A slave heartbeats every interval: she answers each of the reference's heartbeats within UB.
    for (let i = 0; i < 10; i++) {
      host.advance(50);
      r.deliver(7, { type: 'MASTER_HEARTBEAT' });
      if (r.view().coach.suggestions.some((x) => x.message.type === 'SLAVE_HEARTBEAT')) beat();
    }
    expect(host.sent.filter((x) => x.message.type === 'SLAVE_HEARTBEAT').length).toBeGreaterThan(6);
    host.advance(2 * UB);
    expect(r.view().deviations).toEqual([]);
    expect(r.view().moves.map((m) => m.key)).toContain('pool-leave');
  });

  it('raft: a leader\'s heartbeat waits with "Follow leader" until she believes it, however she does (the select too); then it asks nothing', () => {
    const { r } = runner('raft', 3);
    r.deliver(6, { type: 'HEARTBEAT', term: 2 });
    const waiting = () => r.view().queue.find((q) => q.message?.type === 'HEARTBEAT')!;
    expect(waiting().offers.map((o) => o.key)).toEqual(['follow-6']);
    r.act({
      key: 'believe',
      label: 'believes 6 is coordinator',
      steps: [{ kind: 'believe', coordinator: 6 }],
    });
    // Answered by her belief, however she came to it: the item goes (issue 24: no stale offers).
    expect(waiting().done).toBe(true);
    // She changes her mind: 6's next heartbeat asks again.
    r.act({
      key: 'believe',
      label: 'believes 7 is coordinator',
      steps: [{ kind: 'believe', coordinator: 7 }],
    });
    r.deliver(6, { type: 'HEARTBEAT', term: 2 });
    expect(waiting().offers.map((o) => o.key)).toEqual(['follow-6']);
    expect(waiting().done).toBe(false);
  });

  it('raft: she stands for the term after the newest she has seen or voted in (§5.1 a server adopts a newer term; §5.2 a candidate increments its term), not after her own count', () => {
    const { r, sent } = runner('raft', 3);
    const stand = () => r.view().moves.find((m) => m.key === 'vote')!;
    expect(stand().label).toBe('Stand for term 1: REQUEST_VOTE to everyone');
    r.deliver(7, { type: 'HEARTBEAT', term: 4 });
    expect(stand().label).toBe('Stand for term 5: REQUEST_VOTE to everyone');
    // A candidate of term 6 asks for her vote; she grants it: her term is 6 from now on.
    r.deliver(6, { type: 'REQUEST_VOTE', term: 6 });
    const ask = r.view().queue.find((q) => q.message?.type === 'REQUEST_VOTE')!;
    r.act(
      ask.offers.find((o) => o.key === 'vote-6')!,
      ask,
    );
    r.act(stand());
    expect(
      sent.filter((x) => x.message.type === 'REQUEST_VOTE').map((x) => x.message['term']),
    ).toEqual([7, 7, 7, 7, 7, 7]);
    expect(stand().label).toBe('Stand for term 8: REQUEST_VOTE to everyone');
    // An older term changes nothing.
    r.deliver(2, { type: 'HEARTBEAT', term: 3 });
    expect(stand().label).toBe('Stand for term 8: REQUEST_VOTE to everyone');
  });

  it('raft: following a leader of her term only believes it, as the reference does (it sends HEARTBEAT_REPLY to a stale leader only)', () => {
    const raftConfig: AlgorithmConfig = { ...config(3), detector: 'heartbeat' };
    const follow = replies('raft', raftConfig, 6, { type: 'HEARTBEAT', term: 2 }, counters)[0]!;
    expect(follow.steps).toEqual([{ kind: 'believe', coordinator: 6 }]);
    // The coach leaves the click unmarked once UB has passed.
    const history: CoachEntry[] = [
      {
        kind: 'event',
        at: 3000,
        event: { kind: 'message', from: 6, message: { type: 'HEARTBEAT', term: 2 } },
      },
      ...follow.steps.map((action, i): CoachEntry => ({
        kind: 'action',
        at: 3050,
        action: action as HandAction,
        click: i + 1,
      })),
    ];
    expect(
      coach(getAlgorithm('raft'), raftConfig, history, 3050 + 2 * roundTripBound(DEFAULT_TIMING), 1)
        .deviations,
    ).toEqual([]);
  });

  it('active-list ring: the first Elect of an election she has not joined also sends her own Elect (001 (a)), later ones are only forwarded, and the coach marks none of it', () => {
    const cfg = config(3);
    const ring = 'ring-active-list' as const;
    const ack = (seq: number) => ({ kind: 'send', to: 2, message: { type: 'ACK', seq } });
    const first = replies(
      ring,
      cfg,
      2,
      { type: 'ELECT', seq: 5, id: 2, epoch: 3 },
      { ...counters, activeList: [], epoch: 2, joined: 2 },
    )[0]!;
    expect(first.steps).toEqual([
      ack(5),
      { kind: 'send', to: 4, message: { type: 'ELECT', seq: 0, id: 3, epoch: 3 } },
      { kind: 'send', to: 4, message: { type: 'ELECT', seq: 0, id: 2, epoch: 3 } },
    ]);
    const joined = { ...counters, activeList: [2], epoch: 3, joined: 3 };
    const later = replies(ring, cfg, 2, { type: 'ELECT', seq: 6, id: 1, epoch: 3 }, joined)[0]!;
    expect(later.steps).toEqual([
      ack(6),
      { kind: 'send', to: 4, message: { type: 'ELECT', seq: 0, id: 1, epoch: 3 } },
    ]);
    const back = replies(
      ring,
      cfg,
      2,
      { type: 'ELECT', seq: 7, id: 3, epoch: 3 },
      { ...joined, activeList: [2, 1] },
    )[0]!;
    expect(back.steps.at(1)).toEqual({
      kind: 'send',
      to: 4,
      message: { type: 'ELECTED', seq: 0, coordinator: 3, epoch: 3 },
    });
    // A new election of her own opens the epoch after the newest she knows.
    expect(moves(ring, cfg, joined).find((o) => o.key === 'elect')!.steps).toEqual([
      { kind: 'send', to: 4, message: { type: 'ELECT', seq: 0, id: 3, epoch: 4 } },
    ]);
  });

  it("bully: OK only to a lower id's ELECTION; the rings add her id and forward to her successor; 001: her own Elect back means Elected(max)", () => {
    expect(replies('bully', config(3), 5, { type: 'ELECTION', election: 1 }, counters)).toEqual([]);
    const fwd = replies(
      'ring',
      config(3),
      2,
      { type: 'ELECTION', seq: 9, eid: 'e', list: [1, 2] },
      counters,
    )[0]!;
    expect(fwd.steps).toEqual([
      { kind: 'send', to: 2, message: { type: 'ACK', seq: 9 } },
      { kind: 'send', to: 4, message: { type: 'ELECTION', seq: 0, eid: 'e', list: [1, 2, 3] } },
    ]);
    const back = replies(
      'ring-active-list',
      config(3),
      2,
      { type: 'ELECT', seq: 4, id: 3, epoch: 2 },
      { ...counters, activeList: [2, 5, 6] },
    )[0]!;
    expect(back.label).toBe('My Elect came back: Elected(6) to 4');
  });
});
