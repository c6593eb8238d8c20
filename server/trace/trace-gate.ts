// Which of a lab's events its trace still writes (trace-store.ts has the limits). Every event
// keeps its sequence number and reaches the checker, the stats and the observers; only the line
// on disk is left out, counted by kind, and the trace says so in a note at each edge:
// - lean (past the lab's cap or the disk budget): message events are counted, not written;
// - full (past the cap or the budget by FULL_ALLOWANCE): no event is written. One note marks the
//   edge, so disk use stays within the caps plus FULL_ALLOWANCE plus that note (per start of the relay);
// - behind (too many bytes wait for the disk): the lab refuses new messages (lab-intake.ts),
//   message events are counted, not written, and past twice the bound (overflowing) every event;
//   once the writer has caught up, a note names the sequence numbers left out.
import { FULL_ALLOWANCE, type TraceStore } from './trace-store.ts';

export class TraceGate {
  /** Events counted, not written, by kind, since the lab opened (or was reset). */
  readonly unwritten = new Map<string, number>();
  /** The first sequence number left out while behind, and how many since. */
  private behindFrom: number | null = null;
  private behindCount = 0;
  private fullNoted = false;

  constructor(
    private readonly store: TraceStore,
    /** Journals a note now, written even when the trace is full (at most one per edge). */
    private readonly note: (text: string) => void,
    /** The sequence number the next event gets. */
    private readonly nextSeq: () => number,
  ) {}

  /** Whether the next message event (send, deliver, drop, duplicate) is written. */
  message(kind: string): boolean {
    const store = this.store;
    this.settle();
    if (store.behind) return this.skipBehind(kind);
    if (!store.lean) return true;
    if (store.unrecorded++ === 0)
      this.note(
        `trace over its size cap or the relay's disk budget: message events are counted from seq ${this.nextSeq() + 1} on, not written`,
      );
    return store.full ? this.skipFull(kind) : this.skip(kind);
  }

  /** Whether the next other event (report, join, note, fault, deviation...) is written. */
  other(kind: string): boolean {
    this.settle();
    if (this.store.overflowing) return this.skipBehind(kind);
    return this.store.full ? this.skipFull(kind) : true;
  }

  private skipFull(kind: string): false {
    if (!this.fullNoted) {
      this.fullNoted = true;
      this.note(
        `trace full (past its size cap or the relay's disk budget by ${mib(FULL_ALLOWANCE)}): from seq ${this.nextSeq() + 1} on no event is written; the lab's stats count them by kind`,
      );
    }
    return this.skip(kind);
  }

  private skipBehind(kind: string): false {
    if (this.behindFrom === null) {
      this.note(
        `trace behind the disk (${mib(this.store.backlog)} waiting to be written): new messages are refused, and from seq ${this.nextSeq() + 1} on message events (past twice that, every event) are counted, not written`,
      );
      this.behindFrom = this.nextSeq();
    }
    this.behindCount++;
    return this.skip(kind);
  }

  /** Sequence numbers left out while behind, told once the writer caught up. */
  private settle(): void {
    if (this.behindFrom === null || this.store.behind) return;
    const from = this.behindFrom;
    const count = this.behindCount;
    this.behindFrom = null;
    this.behindCount = 0;
    this.note(
      `trace caught up with the disk: ${count} events between seq ${from} and ${this.nextSeq() - 1} were not written`,
    );
  }

  private skip(kind: string): false {
    this.unwritten.set(kind, (this.unwritten.get(kind) ?? 0) + 1);
    return false;
  }

  /** A fresh trace (lab reset). */
  clear(): void {
    this.unwritten.clear();
    this.behindFrom = null;
    this.behindCount = 0;
    this.fullNoted = false;
  }
}

const mib = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MiB`;
