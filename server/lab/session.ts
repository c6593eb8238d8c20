// One connection's conversation with the relay, the same for both transports: rate limit, check
// the frame, then act on it (join a lab as a process, send, report, leave, observe, ping). A
// session speaks for one process at most, and only for the id the relay gave it.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import { errorFrame, type ErrorCode, type ErrorFrame } from '@shared/protocol/errors.ts';
import { MAX_FRAME_BYTES, type ClientFrame, type ServerFrame } from '@shared/protocol/frames.ts';
import type { Clock } from '../clock/clock.ts';
import { sendFrame, type Conn } from './conn.ts';
import type { Counters } from './counters.ts';
import { binaryRefused, checkFrame, decodeText, tooLarge } from './frame-check.ts';
import type { Lab } from './lab.ts';
import type { SendRefusal } from './lab-intake.ts';
import type { ProcessEntry } from './process-table.ts';
import type { LabListHub } from './lab-list.ts';
import type { LessonRooms } from './lesson-room.ts';
import type { ChallengeRooms } from './challenge-room.ts';
import type { Labs } from './labs.ts';
import { TokenBucket, type AddressBuckets, type RateLimits } from './rate-limit.ts';

/** Frames only a joined process may send, for itself. */
type ProcessFrame = Extract<
  ClientFrame,
  { type: 'send' | 'report' | 'leave' | 'fault' | 'mode' | 'grade' | 'hand' | 'answer' }
>;

interface Owned {
  lab: Lab;
  entry: ProcessEntry;
}

interface SessionContext {
  labs: Labs;
  counters: Counters;
  clock: Clock;
  rateLimits: RateLimits;
  /** Message bytes a second per remote address (rate-limit.ts); absent: none. */
  addressBuckets?: AddressBuckets;
  onError: (err: unknown) => void;
  /** Observers of the lab list (`observe-labs`). */
  labList?: LabListHub;
  /** Each lab's lesson: a joined process answers its question (`answer`). */
  lessons?: LessonRooms;
  /** Each lab's open challenge: anyone submits a run (`submit`), joined or not. */
  challenges?: ChallengeRooms;
  /** In a cluster: the public address of the relay that owns a lab this relay does not have. */
  locate?: (lab: string) => Promise<string | null>;
}

/** Labs one connection may watch at once. */
const MAX_OBSERVED = 16;
/** `join`, `observe` and `submit` cost O(ids) or a simulator run: a few a second per connection. */
const COSTLY_LIMITS = { rate: 5, burst: 20 };

export class Session {
  private process: { lab: Lab; id: ProcessId } | null = null;
  private readonly observing = new Set<Lab>();
  private readonly bucket: TokenBucket;
  private readonly costly: TokenBucket;
  private lastRateError = -Infinity;
  private lastRefusedError = -Infinity;
  /** Its address's byte bucket, shared with every connection from there. */
  private readonly sender: TokenBucket | undefined;
  private closed = false;

  constructor(
    readonly conn: Conn,
    private readonly ctx: SessionContext,
  ) {
    this.bucket = new TokenBucket(ctx.rateLimits, () => ctx.clock.now());
    this.costly = new TokenBucket(COSTLY_LIMITS, () => ctx.clock.now());
    this.sender = conn.address !== undefined ? ctx.addressBuckets?.of(conn.address) : undefined;
  }

  /** A raw WebSocket message. */
  onText(data: Buffer | string, isBinary: boolean): void {
    if (!this.admit()) return;
    const decoded = decodeText(data, isBinary);
    if (!decoded.ok) return this.refuse(decoded.error);
    this.onValue(decoded.value);
  }

  /** A socket.io `frame` event (already decoded); `oversized` when its packet broke the size limit. */
  onFrame(raw: unknown, oversized: boolean): void {
    if (!this.admit()) return;
    if (oversized) return this.refuse(tooLarge());
    this.onValue(raw);
  }

  /** A socket.io frame with binary attachments: refused, as binary WebSocket messages are. */
  onBinary(): void {
    if (!this.admit()) return;
    this.refuse(binaryRefused());
  }

  /** A socket.io event other than `frame`. */
  onUnknownEvent(): void {
    if (!this.admit()) return;
    this.refuse(
      errorFrame('UNKNOWN_TYPE', {
        message: 'socket.io clients send every frame as a "frame" event',
      }),
    );
  }

  /** The connection closed: a joined process keeps its id for its resume token for a while. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const p = this.process;
    if (p && this.ctx.labs.get(p.lab.name) === p.lab) p.lab.leave(this.conn, p.id, false);
    this.process = null;
    for (const lab of this.observing) lab.observers.remove(this.conn);
    this.ctx.labList?.remove(this.conn);
    this.observing.clear();
  }

  private onValue(raw: unknown): void {
    const frame = checkFrame(raw);
    if (!frame.ok) return this.refuse(frame.error);
    const costly = ['join', 'observe', 'submit'].includes(frame.value.type);
    if (costly && !this.costly.take()) {
      return this.refuse(
        errorFrame('RATE_LIMITED', {
          ref: frame.value.ref,
          message: 'Too many join, observe or submit frames; slow down',
        }),
      );
    }
    this.ctx.counters.inc('frames');
    try {
      this.handle(frame.value);
    } catch (err) {
      // A bug must not take the relay down with it: log it, tell the client, carry on.
      this.ctx.onError(err);
      this.refuse(errorFrame('INTERNAL', { ref: frame.value.ref }));
    }
  }

  private handle(f: ClientFrame): void {
    switch (f.type) {
      case 'send':
      case 'report':
      case 'leave':
      case 'fault':
      case 'mode':
      case 'grade':
      case 'hand':
      case 'answer': {
        const p = this.owned();
        if (!p) return this.error('NOT_JOINED', f.ref);
        return this.forProcess(p, f);
      }
      case 'join': {
        if (this.owned()) return this.error('ALREADY_JOINED', f.ref);
        const lab = this.ctx.labs.get(f.lab);
        if (!lab) return this.elsewhere(f.lab, f.ref);
        const joined = lab.join(this.conn, f);
        if (!joined.ok)
          return this.refuse({ ...joined.error, ...(f.ref !== undefined ? { ref: f.ref } : {}) });
        this.process = { lab, id: joined.value.id };
        return;
      }
      case 'observe': {
        const lab = this.ctx.labs.get(f.lab);
        if (!lab) return this.elsewhere(f.lab, f.ref);
        if (!this.observing.has(lab) && this.observing.size >= MAX_OBSERVED)
          return this.error(
            'BAD_FRAME',
            f.ref,
            `Observe at most ${MAX_OBSERVED} labs per connection`,
          );
        lab.observers.remove(this.conn);
        lab.observers.add(
          this.conn,
          JSON.stringify({
            type: 'snapshot',
            lab: lab.name,
            snapshot: lab.snapshot(),
            ...(f.ref !== undefined ? { ref: f.ref } : {}),
          } satisfies ServerFrame),
        );
        this.observing.add(lab);
        return;
      }
      case 'unobserve': {
        const lab = this.ctx.labs.get(f.lab);
        if (!lab) return this.error('UNKNOWN_LAB', f.ref);
        lab.observers.remove(this.conn);
        this.observing.delete(lab);
        return;
      }
      case 'observe-labs':
        if (!this.ctx.labList)
          return this.error('BAD_FRAME', f.ref, 'This relay has no lab list to observe');
        this.ctx.labList.add(this.conn);
        return;
      case 'submit':
        return this.submit(f);
      case 'ping':
        return sendFrame(
          this.conn,
          f.ref !== undefined ? { type: 'pong', ref: f.ref } : { type: 'pong' },
        );
    }
  }

  /** A frame the joined process sends for itself. */
  private forProcess(p: Owned, f: ProcessFrame): void {
    switch (f.type) {
      case 'send':
        if (p.entry.paused) return this.error('PROCESS_PAUSED', f.ref);
        if (!p.lab.processes.has(f.to))
          this.error(
            'UNKNOWN_PROCESS',
            f.ref,
            `No process ${f.to} in this lab; the message is dropped`,
          );
        return this.refused(p.lab.send(p.entry, f.to, f.message, this.sender), f.ref);
      case 'report':
        return p.lab.report(p.entry, f.report);
      case 'leave':
        p.lab.leave(this.conn, p.entry.id, true);
        this.process = null;
        return;
      case 'fault':
        return p.lab.fault(p.entry, f);
      case 'mode':
        return p.lab.mode(p.entry, f.mode);
      case 'grade':
        return p.lab.grade(p.entry, f.summary, f.trace);
      case 'hand':
        // Her tab's click and its coach's marks: claims, counted apart from the relay's own figures.
        return p.lab.figures.claim(p.entry.id, f.action !== null, f.deviations.length);
      case 'answer':
        return this.answer(p, f);
    }
  }

  /** Her answer to the lab's open question: stored for her id alone, or refused with why. */
  private answer(p: Owned, f: Extract<ClientFrame, { type: 'answer' }>): void {
    const room = this.ctx.lessons?.get(p.lab);
    const refused = room
      ? room.answer(p.entry.id, f.step, f.value)
      : errorFrame('LESSON_CLOSED', { message: 'This lab runs no lesson' });
    if (refused) return this.refuse({ ...refused, ...(f.ref !== undefined ? { ref: f.ref } : {}) });
    sendFrame(this.conn, {
      type: 'answered',
      step: f.step,
      value: f.value,
      ...(f.ref !== undefined ? { ref: f.ref } : {}),
    });
  }

  /** A "break it" submission: re-run by the relay, answered `verdict` or an error saying why not. */
  private submit(f: Extract<ClientFrame, { type: 'submit' }>): void {
    const lab = this.ctx.labs.get(f.lab);
    if (!lab) return this.elsewhere(f.lab, f.ref);
    const rooms = this.ctx.challenges;
    const result = rooms
      ? rooms.submit(lab, f.name, f.submission, f.session)
      : errorFrame('NO_CHALLENGE', { message: 'This relay runs no challenges' });
    const ref = f.ref !== undefined ? { ref: f.ref } : {};
    if ('type' in result) return this.refuse({ ...result, ...ref });
    sendFrame(this.conn, { type: 'verdict', challenge: f.submission.challenge, ...result, ...ref });
  }

  /** The process this connection still speaks for (a resume elsewhere, a removed lab or a removed id ends that). */
  private owned(): Owned | null {
    const p = this.process;
    if (!p) return null;
    const entry = this.ctx.labs.get(p.lab.name) === p.lab ? p.lab.owned(this.conn, p.id) : null;
    if (!entry) {
      this.process = null;
      return null;
    }
    return { lab: p.lab, entry };
  }

  /** A lab this relay does not have: `moved` to its owner in a cluster, else UNKNOWN_LAB. */
  private elsewhere(lab: string, ref: string | number | undefined): void {
    if (!this.ctx.locate) return this.error('UNKNOWN_LAB', ref);
    this.ctx.locate(lab).then(
      (url) => {
        if (this.closed) return;
        if (!url) return this.error('UNKNOWN_LAB', ref);
        this.ctx.counters.inc('moved');
        sendFrame(this.conn, { type: 'moved', lab, url, ...(ref !== undefined ? { ref } : {}) });
      },
      (err: unknown) => this.ctx.onError(err),
    );
  }

  /** A message the lab did not take: the sender is told (past the size limit every time, else once a second at most). */
  private refused(why: SendRefusal | void, ref: string | number | undefined): void {
    if (!why) return;
    if (why === 'too-large')
      return this.error(
        'FRAME_TOO_LARGE',
        ref,
        `The message is over ${MAX_FRAME_BYTES} bytes as JSON; not sent`,
      );
    this.ctx.counters.inc(`refused-${why}`);
    const now = this.ctx.clock.now();
    if (now - this.lastRefusedError < 1000) return;
    this.lastRefusedError = now;
    if (why === 'trace-behind')
      return this.error(
        'LAB_BUSY',
        ref,
        "The lab's trace is behind its disk: new messages are refused, not sent, until it catches up",
      );
    this.error(
      'BYTES_LIMITED',
      ref,
      why === 'address-budget'
        ? 'Your address sends more message bytes a second than the relay allows (MAX_MESSAGE_BYTES_PER_ADDRESS): messages are refused, not sent'
        : 'This lab takes in more message bytes a second than the relay allows (MAX_MESSAGE_BYTES_PER_LAB): messages are refused, not sent',
    );
  }

  private admit(): boolean {
    if (this.closed) return false;
    if (this.bucket.take()) return true;
    this.ctx.counters.inc('RATE_LIMITED');
    // One error a second at most: answering every refused frame would itself be a flood.
    const now = this.ctx.clock.now();
    if (now - this.lastRateError >= 1000) {
      this.lastRateError = now;
      sendFrame(this.conn, errorFrame('RATE_LIMITED'));
    }
    return false;
  }

  private error(code: ErrorCode, ref: string | number | undefined, message?: string): void {
    this.refuse(errorFrame(code, { ref, ...(message ? { message } : {}) }));
  }

  private refuse(frame: ErrorFrame): void {
    this.ctx.counters.inc(frame.code);
    sendFrame(this.conn, frame);
  }
}
