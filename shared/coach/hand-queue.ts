// What waits for her in hand mode ("Waiting for you"), newest first, bounded. An item is open
// until she answers it (her click on it, or the same answer sent another way: a hint, a batch),
// or until the present makes it moot; then it goes, and a moot one is counted as expired:
// - an item that asks nothing of her (her own timer ran out, a message with no reply) explains
//   itself and is not left open;
// - an offer to believe x (with the ACK of the ring hop that brought it, if any) goes once she
//   believes x and that ACK is past UB, once the detector found x silent, or once a newer item
//   offers to believe someone else; never by time alone;
// - an answer (an OK...) whose UB has passed and that the coach no longer owes (the election it
//   belonged to is over) goes;
// - a wait, or a call for an election (the detector, the instructor, the start), goes once she
//   has settled on a coordinator after it.
import type { Message, ProcessId } from '../algorithms/algorithm.ts';
import { sameMessage } from './identify.ts';
import { PERIODIC, type HandStep, type Offer } from './hand-kit.ts';

export interface QueuedItem {
  n: number;
  at: number;
  from: ProcessId | null;
  message: Message | null;
  note: string;
  offers: Offer[];
  done: boolean;
  /** Why it went without her answer (the tab shows this instead of "answered"). */
  expired?: string;
  /** Its ring ACK went with an earlier click (a hint carries the waiting ACKs): not offered again. */
  acked?: boolean;
  /** Times the same heartbeat (or message asking nothing) came from the same sender unanswered: one item, counted. */
  repeats?: number;
}

/** What the present says about her items (HandQueue.expire). */
interface QueueContext {
  now: number;
  ub: number;
  self: ProcessId;
  /** Whom she believes, and since when (her clock); null: nobody. */
  believes: ProcessId | null;
  settledAt: number | null;
  /** Coordinators the detector found silent, with when. */
  suspected: ReadonlyMap<ProcessId, number>;
  /** Whether the coach still owes a message of `type` to `to` (open, or late but still awaited). */
  owes(to: ProcessId, type: string): boolean;
}

const QUEUE_LIMIT = 60;

export class HandQueue {
  items: QueuedItem[] = [];
  /** Items pushed out by newer ones (it keeps QUEUE_LIMIT). */
  dropped = 0;
  /** Items the present made moot before she answered them. */
  expired = 0;
  private n = 0;
  /** When `expire` last ran (her clock). */
  private checkedAt = -Infinity;

  reset(): void {
    this.items = [];
    this.dropped = 0;
    this.expired = 0;
    this.checkedAt = -Infinity;
  }

  push(
    at: number,
    from: ProcessId | null,
    message: Message | null,
    note: string,
    offers: Offer[],
  ): void {
    const item: QueuedItem = {
      n: ++this.n,
      at,
      from,
      message,
      note,
      offers,
      done: offers.length === 0,
    };
    // A heartbeat (sent every interval) or a message that asks nothing of her replaces the same
    // one from the same sender still waiting, counted, instead of pushing out what she must answer.
    const supersedes = message !== null && (offers.length === 0 || PERIODIC.has(message.type));
    const i = supersedes
      ? this.items.findIndex(
          (q) =>
            q.from === from &&
            q.message !== null &&
            sameMessage(q.message, message) &&
            q.done === item.done &&
            (q.offers.length === 0) === (offers.length === 0),
        )
      : -1;
    if (i >= 0) {
      item.repeats = (this.items[i]!.repeats ?? 1) + 1;
      this.items = this.items.filter((_, k) => k !== i);
    }
    this.items = [item, ...this.items];
    if (this.items.length > QUEUE_LIMIT) this.dropped += this.items.splice(QUEUE_LIMIT).length;
  }

  /** Item `n` is still listed and answered or expired (a click on it then does nothing; one replaced by a newer copy still counts). */
  done(n: number): boolean {
    return this.items.some((q) => q.n === n && q.done);
  }

  /**
   * Her click (`key` the offer's, `done` its steps as carried out) answered item `n`, and every
   * open item it answered another way (a hint, a batch): one whose reply to its sender she just
   * sent (the same type and numbers), one whose every step she just took (a ring forward goes to
   * her successor, not back to the sender), or a call for an election her election move answered.
   * The ring ACK a hint carries along is plumbing: sending it answers no item by itself, or a
   * batch marked the Elects still waiting to be forwarded answered before she forwarded them.
   * An ACK sent so leaves the item's offers, so no later hint sends it twice.
   */
  answer(n: number | null, done: readonly HandStep[], key: string): void {
    const took = (s: HandStep) =>
      done.some((x) =>
        s.kind === 'send'
          ? x.kind === 'send' && x.to === s.to && sameReply(x.message, s.message)
          : x.kind === s.kind &&
            (x.kind !== 'believe' || s.kind !== 'believe' || x.coordinator === s.coordinator),
      );
    const answers = (q: QueuedItem, o: Offer) => {
      if (o.key === key && ELECTION_KEYS.has(key)) return true;
      if (q.from === null) return false; // a call for an election: see mootness
      const sends = o.steps.filter((s) => s.kind === 'send');
      if (sends.some((s) => s.to === q.from && !isAck(s) && took(s))) return true;
      return sends.length > 0 && o.steps.every(took);
    };
    const acked = (q: QueuedItem) =>
      q.from !== null && q.offers.some((o) => o.steps.some((s) => isAck(s) && took(s)));
    this.update((q) =>
      q.n === n || q.offers.some((o) => answers(q, o))
        ? { ...q, done: true }
        : acked(q)
          ? { ...q, acked: true, offers: withoutAck(q.offers) }
          : q,
    );
  }

  /** The offers of the open messages, made again (her counters changed). */
  reoffer(offers: (from: ProcessId, message: Message) => Offer[]): void {
    this.update((q) =>
      q.from === null || q.message === null
        ? q
        : {
            ...q,
            offers: q.acked ? withoutAck(offers(q.from, q.message)) : offers(q.from, q.message),
          },
    );
  }

  /** When the next open answer's UB runs out after the last `expire` (it may expire then), or Infinity. */
  nextDeadline(ub: number): number {
    let next = Infinity;
    for (const q of this.items)
      if (
        !q.done &&
        q.at + ub >= this.checkedAt &&
        q.offers[0]?.steps.some((s) => s.kind === 'send')
      )
        next = Math.min(next, q.at + ub);
    return next;
  }

  /** Open items the present made moot go, counted. */
  expire(c: QueueContext): void {
    this.checkedAt = c.now;
    const newestBelief = new Map<number, ProcessId>();
    let latest: ProcessId | null = null;
    // Newest first: the first believe offer seen is the newest; older ones for others are superseded.
    for (const q of this.items) {
      const x = believed(q, c.self);
      if (x === null || q.done) continue;
      latest ??= x;
      newestBelief.set(q.n, latest);
    }
    this.update((q) => {
      const why = mootness(q, c, newestBelief.get(q.n) ?? null);
      if (why === null) return q;
      this.expired++;
      return { ...q, done: true, expired: why };
    });
  }

  private update(f: (q: QueuedItem) => QueuedItem): void {
    let changed = false;
    const next = this.items.map((q) => {
      if (q.done) return q;
      const r = f(q);
      changed ||= r !== q;
      return r;
    });
    // A new array only when something changed, so views that compare by reference see it.
    if (changed) this.items = next;
  }
}

/** The items as her tab lists them: the open ones first, then the answered and expired, each newest first. */
export function openFirst(items: readonly QueuedItem[]): QueuedItem[] {
  return [...items.filter((q) => !q.done), ...items.filter((q) => q.done)];
}

/** The numbers that tell one reply from another to the same sender (identify.ts; a term may differ). */
const SAME_IDS = ['seq', 'election', 'eid', 'epoch'];

/**
 * The same reply: its type, and the numbers both carry equal (an Elect's id, an Elected's
 * coordinator too). A hop's seq names the hop, not what it carries: it tells ACKs apart only.
 */
const sameReply = (a: Message, b: Message) =>
  a.type === b.type &&
  [...SAME_IDS.filter((f) => f !== 'seq' || a.type === 'ACK'), 'id', 'coordinator'].every(
    (f) => a[f] === undefined || b[f] === undefined || a[f] === b[f],
  );

/** The moves that start an election of her own (hand-moves.ts `moves`): they answer a call for one. */
const ELECTION_KEYS = new Set(['elect', 'vote', 'candidate', 'declare']);

/**
 * Whom the item's first offer settles on (a belief, or declaring herself), when that and
 * acknowledging the ring hop that brought it is all it asks. An ACK is plumbing the coach never
 * owes, so such an item must not go by the "too late" rule for sends: an Elected(x) she has not
 * believed yet stays until she does or x is superseded (001: "set coordinator to x" is how she learns x).
 */
function believed(q: QueuedItem, self: ProcessId): ProcessId | null {
  const steps = q.offers[0]?.steps ?? [];
  const b = steps.find((s) => s.kind === 'believe' || s.kind === 'declare');
  if (!b || !steps.every((s) => s.kind === 'believe' || s.kind === 'declare' || isAck(s)))
    return null;
  return b.kind === 'believe' ? b.coordinator : self;
}

const isAck = (s: HandStep) => s.kind === 'send' && s.message.type === 'ACK';

const withoutAck = (offers: Offer[]) =>
  offers.map((o) => ({ ...o, steps: o.steps.filter((s) => !isAck(s)) }));

/** Why the open item no longer asks anything of her; null while it still does. */
function mootness(q: QueuedItem, c: QueueContext, newest: ProcessId | null): string | null {
  if (q.offers.length === 0) return 'nothing to answer now';
  const x = believed(q, c.self);
  if (x !== null) {
    // Believed already: it goes, once the ACK it carries is too late to help her predecessor
    // (an ACK withheld within UB makes the sender skip her as dead: 002, "sends to first live successor").
    const ackDue = q.offers[0]!.steps.some(isAck) && c.now <= q.at + c.ub;
    if (c.believes === x) return ackDue ? null : `you believe ${x} already`;
    const silent = c.suspected.get(x);
    if (silent !== undefined && silent >= q.at) return `${x} fell silent since`;
    if (newest !== null && newest !== x) return `${newest} announced itself since`;
    return null;
  }
  const settledSince = c.believes !== null && c.settledAt !== null && c.settledAt >= q.at;
  const sends = q.offers[0]?.steps.filter((s) => s.kind === 'send') ?? [];
  if (sends.length === 0) return settledSince ? `you settled on ${c.believes} since` : null;
  const owed = sends.some((s) => s.kind === 'send' && c.owes(s.to, s.message.type));
  if (!owed && c.now > q.at + c.ub)
    return 'too late to matter: the election it belonged to is over';
  return null;
}
