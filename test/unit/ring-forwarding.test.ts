// Unit tests of the ring hop layer both ring algorithms use (shared/algorithms/ring-forwarding.ts).
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, roundTripBound, type Effect } from '@shared/algorithms/algorithm.ts';
import {
  ackTimeout,
  createForwarder,
  forgetDown,
  forward,
  liveSuccessor,
  receiveAck,
  receiveHop,
  revive,
} from '@shared/algorithms/ring-forwarding.ts';

type Hop = { type: 'HOP'; seq: number; n: number };
const ring = [0, 1, 2, 3, 4];
const UB = roundTripBound(DEFAULT_TIMING);
const fresh = (self = 2) => createForwarder<Hop>(ring, self, DEFAULT_TIMING);
const sendsIn = (effects: Effect[]) =>
  effects.flatMap((e) => (e.kind === 'send' ? [{ to: e.to, message: e.message }] : []));
const timersIn = (effects: Effect[]) =>
  effects.flatMap((e) => (e.kind === 'set-timer' ? [`${e.name}@${e.after}`] : []));

describe('ring forwarding (002: "Processes are able to skip faulty systems")', () => {
  it('ring forwarding: a hop goes to the next process in ring order and waits UB = 2T + M for its ACK', () => {
    const out = forward(fresh(2), { type: 'HOP', n: 7 });
    expect(sendsIn(out.effects)).toEqual([{ to: 3, message: { type: 'HOP', n: 7, seq: 1 } }]);
    expect(timersIn(out.effects)).toEqual([`ack:1@${UB}`]);
    expect(UB).toBe(2 * DEFAULT_TIMING.transmission + DEFAULT_TIMING.processing);
  });

  it('ring forwarding: the successor of the last process in the ring is the first', () => {
    expect(liveSuccessor(fresh(4))).toBe(0);
  });

  it('ring forwarding: an ACK from the successor completes the hop and cancels its timer', () => {
    const sent = forward(fresh(2), { type: 'HOP', n: 1 });
    const acked = receiveAck(sent.forwarder, 3, 1);
    expect(acked.forwarder.pending).toEqual([]);
    expect(acked.effects).toEqual([{ kind: 'cancel-timer', name: 'ack:1' }]);
    // Its timer would now find nothing to resend.
    expect(ackTimeout(acked.forwarder, 'ack:1').effects).toEqual([]);
  });

  it('ring forwarding: a receiver acknowledges every hop to its sender', () => {
    const out = receiveHop(fresh(3), 2, 9);
    expect(sendsIn(out.effects)).toEqual([{ to: 2, message: { type: 'ACK', seq: 9 } }]);
  });

  it('ring forwarding: no ACK within UB skips the successor: "instead of sending to process j, send to j + 1" (002)', () => {
    const sent = forward(fresh(2), { type: 'HOP', n: 1 });
    const skipped = ackTimeout(sent.forwarder, 'ack:1');
    expect(sendsIn(skipped.effects)).toEqual([{ to: 4, message: { type: 'HOP', n: 1, seq: 2 } }]);
    expect(skipped.forwarder.down).toEqual([3]);
    expect(liveSuccessor(skipped.forwarder)).toBe(4);
  });

  it('ring forwarding: hops waiting on a dead successor move on together, in send order (001: "Elect(3) ... and then Elect(2)")', () => {
    const sent = forward(fresh(2), { type: 'HOP', n: 3 }, { type: 'HOP', n: 2 });
    const skipped = ackTimeout(sent.forwarder, 'ack:1');
    expect(sendsIn(skipped.effects).map((s) => [s.to, (s.message as Hop).n])).toEqual([
      [4, 3],
      [4, 2],
    ]);
    // The second hop's old timer is cancelled, so it does not skip 4 as well.
    expect(skipped.effects).toContainEqual({ kind: 'cancel-timer', name: 'ack:2' });
    expect(skipped.forwarder.pending.map((p) => p.to)).toEqual([4, 4]);
  });

  it('ring forwarding: a known dead successor is skipped without another send', () => {
    const down = ackTimeout(forward(fresh(2), { type: 'HOP', n: 1 }).forwarder, 'ack:1').forwarder;
    expect(sendsIn(forward(down, { type: 'HOP', n: 2 }).effects).map((s) => s.to)).toEqual([4]);
  });

  it('ring forwarding: with every other process down the message is stranded, not sent', () => {
    let f = fresh(0);
    f = forward(f, { type: 'HOP', n: 1 }).forwarder;
    let stranded: unknown[] = [];
    for (let i = 0; i < ring.length && f.pending.length > 0; i++) {
      const out = ackTimeout(f, `ack:${f.pending[0]!.seq}`);
      f = out.forwarder;
      stranded = out.stranded;
    }
    expect(f.down).toEqual([1, 2, 3, 4]);
    expect(liveSuccessor(f)).toBeNull();
    expect(stranded).toEqual([{ type: 'HOP', n: 1 }]);
  });

  it('ring forwarding: hearing from a process revives it; a new election forgets every skip', () => {
    const down = ackTimeout(forward(fresh(2), { type: 'HOP', n: 1 }).forwarder, 'ack:1').forwarder;
    expect(liveSuccessor(revive(down, [3]))).toBe(3);
    expect(liveSuccessor(receiveHop(down, 3, 1).forwarder)).toBe(3);
    expect(liveSuccessor(forgetDown(down))).toBe(3);
  });

  it('ring forwarding: an ACK from a process other than the hop target does not complete it', () => {
    const sent = forward(fresh(2), { type: 'HOP', n: 1 });
    expect(receiveAck(sent.forwarder, 4, 1).forwarder.pending).toHaveLength(1);
  });

  describe('late ACKs (beyond the documents: round trips longer than UB)', () => {
    it("ring forwarding: an ACK to a send that timed out still completes the hop (it was delivered), cancels the resend's timer and doubles the wait", () => {
      const skipped = ackTimeout(forward(fresh(2), { type: 'HOP', n: 1 }).forwarder, 'ack:1');
      expect(skipped.forwarder.pending.map((p) => [p.seq, p.to])).toEqual([[2, 4]]);
      const late = receiveAck(skipped.forwarder, 3, 1);
      expect(late.forwarder.pending).toEqual([]);
      expect(late.effects).toEqual([{ kind: 'cancel-timer', name: 'ack:2' }]);
      expect(liveSuccessor(late.forwarder)).toBe(3); // the suspicion is cleared
      expect(timersIn(forward(late.forwarder, { type: 'HOP', n: 2 }).effects)).toEqual([
        `ack:3@${2 * UB}`,
      ]);
    });

    it('ring forwarding: the wait doubles with each late ACK up to 8 UB, and an ACK in time changes nothing', () => {
      let f = fresh(2);
      const waits: number[] = [];
      for (let i = 0; i < 5; i++) {
        const sent = forward(f, { type: 'HOP', n: i }).forwarder;
        const seq = sent.pending[0]!.seq;
        f = receiveAck(ackTimeout(sent, `ack:${seq}`).forwarder, 3, seq).forwarder;
        waits.push(f.ackTimeout);
      }
      expect(waits).toEqual([2 * UB, 4 * UB, 8 * UB, 8 * UB, 8 * UB]);
      const inTime = forward(fresh(2), { type: 'HOP', n: 1 }).forwarder;
      expect(receiveAck(inTime, 3, 1).forwarder.ackTimeout).toBe(UB);
    });

    it('ring forwarding: hops sent past a successor thought down are sent to it once it is heard from, oldest first, once', () => {
      const down = ackTimeout(
        forward(fresh(2), { type: 'HOP', n: 1 }).forwarder,
        'ack:1',
      ).forwarder;
      const past = forward(down, { type: 'HOP', n: 2 }, { type: 'HOP', n: 3 });
      expect(sendsIn(past.effects).map((x) => [x.to, (x.message as Hop).n])).toEqual([
        [4, 2],
        [4, 3],
      ]);
      // Hop 1 went to 3 first (its ACK is late): 3 has it, only 2 and 3 are owed.
      const back = receiveAck(past.forwarder, 3, 1);
      expect(sendsIn(back.effects).map((x) => [x.to, (x.message as Hop).n])).toEqual([
        [3, 2],
        [3, 3],
      ]);
      expect(sendsIn(receiveHop(back.forwarder, 3, 7).effects).map((x) => x.to)).toEqual([3]); // just the ACK
    });

    it('ring forwarding: a new election episode forgets what was owed', () => {
      const down = ackTimeout(
        forward(fresh(2), { type: 'HOP', n: 1 }).forwarder,
        'ack:1',
      ).forwarder;
      const past = forward(down, { type: 'HOP', n: 2 }).forwarder;
      expect(forgetDown(past).bypassed).toEqual([]);
    });
  });
});
