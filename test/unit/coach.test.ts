// The coach's comparison (shared/coach/coach.ts): a history of the events a hand-played process
// saw and the actions she took -> the deviations from the reference, each with the documents'
// rule it breaks (000 lecture notes, 002 Module 3, 003 Elections; shared/coach/rules.ts).
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  roundTripBound,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type Message,
} from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import {
  coach,
  CoachFold,
  explain,
  MAX_RECENT,
  type CoachEntry,
  type HandAction,
} from '@shared/coach/coach.ts';

const ids = [1, 2, 3, 4, 5, 6, 7];
const UB = roundTripBound(DEFAULT_TIMING); // 210 ms
const bullyConfig: AlgorithmConfig = {
  self: 5,
  ids,
  ring: ids,
  timing: DEFAULT_TIMING,
  detector: 'none',
  initialCoordinator: 7,
};
const ringConfig: AlgorithmConfig = { ...bullyConfig, self: 3 };

let click = 0;
const ev = (at: number, event: AlgorithmEvent): CoachEntry => ({ kind: 'event', at, event });
const msg = (at: number, from: number, message: Message) =>
  ev(at, { kind: 'message', from, message });
const act = (at: number, action: HandAction): CoachEntry => ({
  kind: 'action',
  at,
  action,
  click: ++click,
});
const send = (at: number, to: number, message: Message) => act(at, { kind: 'send', to, message });
const rules = (
  h: CoachEntry[],
  now: number,
  config = bullyConfig,
  name: 'bully' | 'ring' = 'bully',
) => coach(getAlgorithm(name), config, h, now, 1).deviations.map((d) => d.rule);

/** 000: an ELECTION from 2 reaches 5, which answers OK and holds its own election (to 6 and 7). */
const answered = (): CoachEntry[] => [
  msg(1000, 2, { type: 'ELECTION', election: 1 }),
  send(1100, 2, { type: 'OK', election: 1 }),
  send(1120, 6, { type: 'ELECTION', election: 1 }),
  send(1120, 7, { type: 'ELECTION', election: 1 }),
];

describe('coach: Bully (000, 003)', () => {
  it('leaves correct actions unmarked: OK to the lower sender, ELECTION to every higher id, believe the higher COORDINATOR', () => {
    const h = [
      ...answered(),
      msg(1150, 6, { type: 'OK', election: 1 }),
      msg(1300, 6, { type: 'COORDINATOR' }),
      act(1350, { kind: 'believe', coordinator: 6 }),
    ];
    expect(rules(h, 5000)).toEqual([]);
  });

  it('suggests what the reference would send: OK to the sender and ELECTION to the higher ids', () => {
    const view = coach(
      getAlgorithm('bully'),
      bullyConfig,
      [msg(1000, 2, { type: 'ELECTION', election: 1 })],
      1001,
      1,
    );
    expect(view.suggestions.map((s) => `${s.message.type}->${s.to}`).sort()).toEqual([
      'ELECTION->6',
      'ELECTION->7',
      'OK->2',
    ]);
    expect(view.deviations).toEqual([]);
  });

  it('000 "the receiver sends an OK message back": no OK within UB is marked bully.answer, no election bully.hold', () => {
    const h = [msg(1000, 2, { type: 'ELECTION', election: 1 })];
    expect(rules(h, 1000 + UB - 1)).toEqual([]);
    expect(rules(h, 1000 + UB + 1).sort()).toEqual(['bully.answer', 'bully.hold']);
  });

  it('003 "sends an election message to all machines with a higher ID": ELECTION to a lower id is marked', () => {
    const h = [...answered(), send(1200, 1, { type: 'ELECTION', election: 2 })];
    expect(rules(h, 1200 + UB + 1)).toEqual(['bully.elect-higher']);
  });

  it('an OK nobody asked for is marked bully.answer once its UB has passed', () => {
    const h = [...answered(), send(1200, 1, { type: 'OK', election: 9 })];
    expect(rules(h, 1201)).toEqual([]);
    const view = coach(getAlgorithm('bully'), bullyConfig, h, 1200 + UB + 1, 1);
    expect(view.deviations.map((d) => d.rule)).toEqual(['bully.answer']);
    expect(explain(view.deviations[0]!)).toMatch(
      /^sent OK to 1: 000: When an ELECTION arrives from a lower id/,
    );
  });

  it('003 "if it receives a reply ... it waits for a coordinator message": declaring after a higher OK is marked bully.declare', () => {
    const h = [
      ...answered(),
      msg(1150, 6, { type: 'OK', election: 1 }),
      act(1400, { kind: 'declare' }),
    ];
    expect(rules(h, 1401)).toEqual(['bully.declare']);
  });

  it('003 "if no reply is received during 2T + M": the 2T + M runs from her ELECTIONs, so an OK after the reference\'s own wait but within hers is no missed COORDINATOR', () => {
    const late = 1000 + UB - 20;
    const h = [
      msg(1000, 2, { type: 'ELECTION', election: 1 }),
      send(1100, 2, { type: 'OK', election: 1 }),
      send(late, 6, { type: 'ELECTION', election: 1 }),
      send(late, 7, { type: 'ELECTION', election: 1 }),
      msg(late + 40, 6, { type: 'OK', election: 1 }),
    ];
    expect(rules(h, 1000 + 4 * UB)).toEqual([]);
  });

  it('003 "if no reply is received during 2T + M it sends a coordinator message": declaring then is right, and so is the COORDINATOR to every lower id', () => {
    const h = [
      ...answered(),
      act(1120 + UB + 5, { kind: 'declare' }),
      ...[1, 2, 3, 4].map((to) => send(1120 + UB + 5, to, { type: 'COORDINATOR' })),
    ];
    expect(rules(h, 1120 + UB + 10)).toEqual([]);
  });

  it('declaring before the UB is up is marked once for the click, not once per COORDINATOR', () => {
    const at = 1130;
    const c = ++click;
    const h: CoachEntry[] = [
      ...answered(),
      { kind: 'action', at, click: c, action: { kind: 'declare' } },
      ...[1, 2, 3, 4].map((to): CoachEntry => ({
        kind: 'action',
        at,
        click: c,
        action: { kind: 'send', to, message: { type: 'COORDINATOR' } },
      })),
    ];
    expect(rules(h, at + UB + 1)).toEqual(['bully.declare']);
  });

  it('a send the reference makes a moment later (its detector suspected later) is forgiven', () => {
    const h = [
      send(1000, 6, { type: 'ELECTION', election: 1 }),
      send(1000, 7, { type: 'ELECTION', election: 1 }),
      ev(1050, { kind: 'elect' }),
    ];
    expect(rules(h, 5000).filter((r) => r === 'bully.hold' || r === 'bully.elect-higher')).toEqual(
      [],
    );
  });

  it('believing a lower id than the reference believes is marked bully.believe', () => {
    const h = [
      ...answered(),
      msg(1150, 6, { type: 'OK', election: 1 }),
      msg(1300, 6, { type: 'COORDINATOR' }),
      act(1350, { kind: 'believe', coordinator: 4 }),
    ];
    expect(rules(h, 1600)).toEqual(['bully.believe']);
  });
});

describe('coach: ring (002)', () => {
  const election = (list: number[]) => ({ type: 'ELECTION', seq: 1, eid: '2-1', list });
  const arrived = (): CoachEntry[] => [msg(1000, 2, election([2]))];

  it('002 "each process adds its own number and forwards to next": forwarding to the successor is unmarked', () => {
    const h = [...arrived(), send(1050, 4, election([2, 3]))];
    expect(rules(h, 1100, ringConfig, 'ring')).toEqual([]);
  });

  it('002 "sends to first live successor": after no ACK within UB the reference forwards to 5, and so does she', () => {
    const h = [
      ...arrived(),
      send(1050, 4, election([2, 3])),
      ev(1050 + UB + 20, { kind: 'timer', name: 'her-ack' }),
      send(1050 + UB + 30, 5, election([2, 3])),
    ];
    expect(rules(h, 1050 + UB + 40, ringConfig, 'ring')).toEqual([]);
  });

  it("000/002 the ACK wait runs from her send: forwarding near the end of UB and the ACK coming after the reference's own wait is unmarked", () => {
    // The reference would have forwarded at 1000 and given up on 4 at 1000 + UB; she forwards at
    // 1000 + UB - 10 and 4's ACK comes 40 ms later, within her own wait.
    const seq = Number(
      coach(getAlgorithm('ring'), ringConfig, arrived(), 1001, 1).suggestions[0]!.message['seq'],
    );
    const h = [
      ...arrived(),
      send(1000 + UB - 10, 4, { ...election([2, 3]), seq }),
      msg(1000 + UB + 30, 4, { type: 'ACK', seq }),
    ];
    const view = coach(getAlgorithm('ring'), ringConfig, h, 1000 + 3 * UB, 1);
    expect(view.deviations.map(explain)).toEqual([]);
    expect(view.suggestions).toEqual([]);
  });

  it('without the ACK the reference still gives up on 4 one UB after her send and forwards to 5', () => {
    const h = [...arrived(), send(1000 + UB - 10, 4, election([2, 3]))];
    const view = coach(getAlgorithm('ring'), ringConfig, h, 1000 + 2 * UB, 1);
    expect(view.suggestions.map((s) => `${s.message.type}->${s.to}@${s.since}`)).toEqual([
      `ELECTION->5@${1000 + 2 * UB - 10}`,
    ]);
  });

  it('forwarding to the dead successor again, when the reference skips it, is marked ring.skip', () => {
    // The reference gives up on 4 one UB after her first send (1050 + UB) and goes on to 5.
    const h = [
      ...arrived(),
      send(1050, 4, election([2, 3])),
      send(1050 + UB + 30, 4, election([2, 3])),
    ];
    expect(rules(h, 1050 + 2 * UB + 40, ringConfig, 'ring')).toContain('ring.skip');
  });

  it('not forwarding within UB is marked ring.forward', () => {
    expect(rules(arrived(), 1000 + UB + 1, ringConfig, 'ring')).toEqual(['ring.forward']);
  });

  it('002 "when the message returns to p ... the circuit is complete": declaring before it returns is marked ring.complete', () => {
    const h = [...arrived(), send(1050, 4, election([2, 3])), act(1100, { kind: 'declare' })];
    expect(rules(h, 1101, ringConfig, 'ring')).toEqual(['ring.complete']);
  });
});

describe('coach: the active-list ring (001)', () => {
  const cfg: AlgorithmConfig = { ...ringConfig, initialCoordinator: null };
  const al = getAlgorithm('ring-active-list');

  it('her send answers the very message she sent: joining epoch 2 is not taken for the start election she never held, which is marked at its own UB', () => {
    // On start the reference holds an election (epoch 0, unknown); at 100 Elect(2) of epoch 2
    // comes: it joins with Elect(3) and forwards Elect(2). She does the second, not the first.
    const h: CoachEntry[] = [msg(100, 2, { type: 'ELECT', seq: 9, id: 2, epoch: 2 })];
    const open = coach(al, cfg, h, 101, 1).suggestions;
    expect(open.map((s) => `${String(s.message['id'])}@${String(s.message['epoch'])}`)).toEqual([
      '3@0',
      '3@2',
      '2@2',
    ]);
    for (const s of open.slice(1))
      h.push(
        send(150, 4, s.message),
        msg(170, 4, { type: 'ACK', seq: s.message['seq'] as number }),
      );
    const view = coach(al, cfg, h, UB + 20, 1);
    expect(view.deviations.map((d) => [d.action, d.at])).toEqual([['no ELECT to 4 within UB', UB]]);
    expect(view.suggestions.map((s) => s.message['epoch'])).not.toContain(2);
  });
});

describe('coach: late answers', () => {
  it('a send past its UB is marked once, and does not count as a second, unexpected send', () => {
    const h = [
      msg(1000, 2, { type: 'ELECTION', election: 1 }),
      send(1000 + UB + 50, 2, { type: 'OK', election: 1 }),
      send(1000 + UB + 50, 6, { type: 'ELECTION', election: 1 }),
      send(1000 + UB + 50, 7, { type: 'ELECTION', election: 1 }),
    ];
    // Its OK wait runs from her (late) ELECTIONs: with no OK by then it declares itself, and its
    // COORDINATORs are due one UB after that.
    expect(rules(h, 1000 + 3 * UB).sort()).toEqual(['bully.answer', 'bully.hold']);
    expect(rules(h, 1000 + 3 * UB + 100).sort()).toEqual([
      'bully.answer',
      'bully.declare',
      'bully.hold',
    ]);
  });

  it('one missed answer is one mark: an ELECTION she never answered starts no OK wait, so no COORDINATOR is owed on top', () => {
    expect(rules([msg(1000, 2, { type: 'ELECTION', election: 1 })], 1000 + 10 * UB).sort()).toEqual(
      ['bully.answer', 'bully.hold'],
    );
  });

  it('one missed forward is one mark: the reference does not take her successor for dead, so her next forward to it is right', () => {
    const ring = (h: CoachEntry[], now: number) =>
      coach(getAlgorithm('ring'), ringConfig, h, now, 1);
    const first = [msg(1000, 2, { type: 'ELECTION', seq: 1, eid: '2-1', list: [2] })];
    // She lets that one pass; a second election comes round and she forwards it to 4, which ACKs.
    const h = [
      ...first,
      msg(1000 + 2 * UB, 2, { type: 'ELECTION', seq: 2, eid: '1-1', list: [1, 2] }),
    ];
    const open = ring(h, 1000 + 2 * UB + 1).suggestions.filter((s) => s.message['eid'] === '1-1');
    expect(open.map((s) => s.to)).toEqual([4]);
    const seq = Number(open[0]!.message['seq']);
    h.push(
      send(1000 + 2 * UB + 50, 4, open[0]!.message),
      msg(1000 + 2 * UB + 90, 4, { type: 'ACK', seq }),
    );
    expect(ring(h, 1000 + 6 * UB).deviations.map((d) => d.action)).toEqual([
      'no ELECTION to 4 within UB',
    ]);
  });
});

describe('coach: Raft and the emergent algorithm, against the reference itself', () => {
  const raftConfig: AlgorithmConfig = {
    self: 3,
    ids,
    ring: ids,
    timing: DEFAULT_TIMING,
    detector: 'none',
    initialCoordinator: 7,
  };
  const rulesOf = (h: CoachEntry[], now: number) =>
    coach(getAlgorithm('raft'), raftConfig, h, now, 1).deviations.map((d) => d.rule);

  it('granting the vote the reference grants is unmarked; not answering within UB is reference.missed', () => {
    const asked = msg(100, 5, { type: 'REQUEST_VOTE', term: 1 });
    expect(
      rulesOf([asked, send(150, 5, { type: 'VOTE', term: 1, granted: true })], 150 + UB),
    ).toEqual([]);
    expect(rulesOf([asked], 100 + UB + 1)).toEqual(['reference.missed']);
  });

  it('a REQUEST_VOTE the reference would not send is reference.send', () => {
    expect(rulesOf([send(100, 5, { type: 'REQUEST_VOTE', term: 9 })], 100 + UB + 1)).toEqual([
      'reference.send',
    ]);
  });
});

describe('coach: the fold fed one entry at a time (the relay, server/lab/hand-audit.ts)', () => {
  it('finds the same deviations as the whole fold, however often it is looked at in between', () => {
    const bully = getAlgorithm('bully');
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const key = (d: { rule: string; at: number; click: number | null; action: string }) =>
      `${d.rule}@${d.at}#${d.click}:${d.action}`;
    for (let run = 0; run < 60; run++) {
      let at = 0;
      const h: CoachEntry[] = [];
      let last: CoachEntry | null = null;
      for (let i = 0; i < 80; i++) {
        const from = pick([1, 2, 3, 4, 6, 7]);
        const r = rnd();
        // Half her actions are further steps of the click before (declaring sends COORDINATOR too).
        const sameClick = last?.kind === 'action' && rnd() < 0.5;
        if (!sameClick) at += Math.floor(rnd() * 120);
        const mine = (action: HandAction): CoachEntry =>
          sameClick && last?.kind === 'action'
            ? { kind: 'action', at, action, click: last.click }
            : act(at, action);
        let e: CoachEntry;
        if (r < 0.4 && !sameClick)
          e = msg(
            at,
            from,
            pick<Message>([
              { type: 'ELECTION', election: 1 },
              { type: 'OK', election: 1 },
              { type: 'COORDINATOR' },
            ]),
          );
        else if (r < 0.45 && !sameClick) e = ev(at, { kind: 'elect' });
        else if (r < 0.85)
          e = mine({
            kind: 'send',
            to: from,
            message: pick<Message>([
              { type: 'ELECTION', election: 1 },
              { type: 'OK', election: 1 },
              { type: 'COORDINATOR' },
            ]),
          });
        else if (r < 0.9) e = mine({ kind: 'declare' });
        else e = mine({ kind: 'believe', coordinator: from });
        h.push(e);
        last = e;
      }
      const now = at + 3 * UB;
      const whole = coach(bully, bullyConfig, h, now, run).deviations.map(key).sort();
      const fold = new CoachFold(bully, bullyConfig, run);
      const taken: string[] = [];
      for (const e of h) {
        // A look at a time before the entry (the relay's 500 ms judge), now and then.
        if (rnd() < 0.3) fold.view(e.at - Math.floor(rnd() * 2));
        fold.add(e);
        if (rnd() < 0.3) taken.push(...fold.take().map(key));
      }
      fold.view(now);
      taken.push(...fold.take().map(key));
      expect(taken.sort()).toEqual(whole);
    }
  });
});

describe("the coach's memory of her recent sends", () => {
  const config: AlgorithmConfig = {
    self: 7,
    ids,
    ring: ids,
    timing: DEFAULT_TIMING,
    detector: 'none',
  };
  const act = (at: number, click: number, action: HandAction): CoachEntry => ({
    kind: 'action',
    at,
    click,
    action,
  });
  /** She declares at 10 (COORDINATOR to every lower id), sends `flood` more within UB, then 2's ELECTION comes. */
  const owedAfter = (flood: number) => {
    const h: CoachEntry[] = [
      act(10, 1, { kind: 'declare' }),
      ...[1, 2, 3, 4, 5, 6].map((to) =>
        act(10, 1, { kind: 'send', to, message: { type: 'COORDINATOR', term: 1 } }),
      ),
    ];
    for (let i = 0; i < flood; i++)
      h.push(act(11, 2 + i, { kind: 'send', to: 3, message: { type: 'OK', election: i + 1 } }));
    h.push({
      kind: 'event',
      at: 20,
      event: { kind: 'message', from: 2, message: { type: 'ELECTION', election: 9, term: 1 } },
    });
    return coach(getAlgorithm('bully'), config, h, 20, 1).suggestions.map(
      (s) => `${s.message.type}->${s.to}`,
    );
  };

  it("her COORDINATOR to 2 still on its way answers the one the reference owes 2's ELECTION (one send answers both)", () => {
    expect(owedAfter(0)).toEqual(['OK->2']);
  });

  it(`keeps at most MAX_RECENT (${MAX_RECENT}) of them: a tab flooding sends within UB costs bounded memory, and past it the reference's same send is owed again`, () => {
    expect(owedAfter(MAX_RECENT)).toEqual(['OK->2', 'COORDINATOR->2']);
  });
});
