// Hand mode's hop bookkeeping, done without a click (the coach does not judge it): a hop that
// carries a `seq` waits UB for its ACK; an ACK clears the wait; no ACK marks the successor dead and
// queues a note offering the next one (002: "faulty systems are those that don't respond in a
// fixed amount of time").
import type { Message, ProcessId } from '../algorithms/algorithm.ts';
import type { Offer } from './hand-kit.ts';

/** The runner's plumbing the hop layer uses. */
export interface HopHooks {
  send(to: ProcessId, message: Message): void;
  setTimer(name: string, after: number, fn: () => void): void;
  cancelTimer(name: string): void;
  /** UB, or null before she started. */
  ub(): number | null;
  successors(): ProcessId[];
  successor(): ProcessId | null;
  setSuccessor(id: ProcessId): void;
  /** The wait ran out (`timer` names it for the log): a note and offers for her queue. */
  timedOut(timer: string, note: string, offers: Offer[]): void;
  changed(): void;
}

const ackTimer = (to: ProcessId, seq: number) => `her:ack:${to}:${seq}`;

export class HandHop {
  private readonly down = new Set<ProcessId>();

  constructor(private readonly hooks: HopHooks) {}

  /** Successors she found dead (no ACK within UB), until they are heard from again. */
  get dead(): ProcessId[] {
    return [...this.down];
  }

  reset(): void {
    this.down.clear();
  }

  /** Anything from a peer shows it alive. */
  heard(from: ProcessId): void {
    if (this.down.delete(from)) this.hooks.changed();
  }

  /** An ACK clears the wait of the hop with its seq. */
  acked(from: ProcessId, seq: number): void {
    this.hooks.cancelTimer(ackTimer(from, seq));
  }

  /** Her messages and the detector's go out; a hop (a seq, not an ACK) waits UB for its ACK. */
  transmit(to: ProcessId, message: Message): void {
    this.hooks.send(to, message);
    const ub = this.hooks.ub();
    if (typeof message.seq === 'number' && message.type !== 'ACK' && ub !== null)
      this.hooks.setTimer(ackTimer(to, message.seq), ub, () => this.noAck(to, message));
  }

  /** The successor is dead to her: the next live one becomes hers, and resending to it is offered. */
  private noAck(to: ProcessId, message: Message): void {
    this.down.add(to);
    const next = this.hooks.successors().find((s) => !this.down.has(s) && s !== to) ?? null;
    if (next !== null && this.hooks.successor() === to) this.hooks.setSuccessor(next);
    const resend: Offer[] =
      next === null
        ? []
        : [
            {
              key: `resend-${next}`,
              label: `Skip ${to}: send the same ${message.type} to ${next}`,
              steps: [{ kind: 'send', to: next, message }],
            },
          ];
    this.hooks.timedOut(`her:ack:${to}`, `no ACK from ${to} within UB: ${to} looks dead`, resend);
  }
}
