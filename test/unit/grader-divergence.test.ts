// The report's divergence line (issue 26, "Say what was proven": a false divergence line, "handling
// ACK from 1" when the ACK timer fired first, must name the real cause). Two inputs reach one
// process at the same instant; the line names the one whose step made the difference.
import { describe, expect, it } from 'vitest';
import { describeDivergence, firstDivergence } from '@shared/grader/divergence.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import type { DistributiveOmit } from '@shared/sim/event-queue.ts';

/** A trace event (its journal number does not matter here). */
const ev = (e: DistributiveOmit<TraceEvent, 'seq'>): TraceEvent => ({ seq: 0, ...e }) as TraceEvent;

const msg = { type: 'ELECTION', seq: 2, eid: '2.0.1', list: [2] };
const send = (to: number): TraceEvent =>
  ev({
    t: 300,
    kind: 'send',
    msg: 10 + to,
    from: 2,
    to,
    type: 'ELECTION',
    message: msg,
  });
const ackTimer = ev({ t: 300, kind: 'timer', node: 2, name: 'ack:1' });
const ackArrives = ev({ t: 300, kind: 'deliver', msg: 9, from: 3, to: 2, type: 'ACK' });
const start: TraceEvent[] = [
  ev({ t: 0, kind: 'elect', node: 2 }),
  ev({ t: 0, kind: 'send', msg: 1, from: 2, to: 3, type: 'ELECTION', message: msg }),
];

describe('the divergence line names the input that caused the difference', () => {
  it('her resend to the dead successor follows the ACK timer, not the ACK that arrived after it at the same instant (002: skip a successor that does not ACK within UB)', () => {
    // The reference skips 3 (send to 0, "j + 1"); hers sends to 3 again. Both then take an ACK.
    const reference = [...start, ackTimer, send(0), ackArrives];
    const yours = [...start, ackTimer, send(3), ackArrives];
    const d = firstDivergence(reference, yours, new Set())!;
    expect(d).toMatchObject({ t: 300, process: 2, event: 'timer ack:1 (t=300)' });
    expect(describeDivergence(d)).toMatch(
      /process 2 handling timer ack:1 \(t=300\): the reference: 2 sends ELECTION to 0; yours: 2 sends ELECTION to 3/,
    );
  });

  it('the ACK is named when it is the ACK whose step differs (the timer fired first and did nothing)', () => {
    const reference = [...start, ackTimer, ackArrives, send(0)];
    const yours = [...start, ackTimer, ackArrives, send(3)];
    expect(firstDivergence(reference, yours, new Set())!.event).toBe('ACK from 3 (t=300)');
  });

  it('something only the reference did is explained by the input the reference was handling (000: Q "replies OK")', () => {
    const ok = ev({
      t: 300,
      kind: 'send',
      msg: 20,
      from: 2,
      to: 0,
      type: 'OK',
      message: { type: 'OK', election: 1 },
    });
    const election = ev({
      t: 300,
      kind: 'deliver',
      msg: 5,
      from: 0,
      to: 2,
      type: 'ELECTION',
    });
    const reference = [...start, election, ok, ackTimer];
    const yours = [...start, election, ackTimer];
    const d = firstDivergence(reference, yours, new Set())!;
    expect(d).toMatchObject({ process: 2, event: 'ELECTION from 0 (t=300)', yours: [] });
  });

  it('agreeing runs have no divergence', () => {
    const run = [...start, ackTimer, send(0)];
    expect(firstDivergence(run, run, new Set())).toBeNull();
  });
});
