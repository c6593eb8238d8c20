// The relay's "break it" state, one room per lab (issue 28, item 6): the open challenge, each
// student's best accepted submission, and the count of refusals by reason. Every submission is
// re-run here in the relay's own simulator (shared/challenges/challenge-verify.ts), bounded in
// events, in submissions per student and in verifications a second for the whole lab. A name is
// verified when the submission carries her lab session (the relay checks it), else a claim;
// the instructor's replay of an entry in the live lab is challenge-live.ts.
import type { BoardEntry, ChallengeView, LiveReplay } from '@shared/challenges/challenge-api.ts';
import type {
  Challenge,
  Schedule,
  Submission,
  SubmitSession,
} from '@shared/challenges/challenge-schema.ts';
import { runChallenge, verifySubmission } from '@shared/challenges/challenge-verify.ts';
import { ERRORS, errorFrame, type ErrorFrame } from '@shared/protocol/errors.ts';
import { serializeTrace } from '@shared/protocol/trace-file.ts';
import { replayLive, type LiveReplays } from './challenge-live.ts';
import type { Lab } from './lab.ts';
import { TokenBucket } from './rate-limit.ts';

/** Submissions one student (by name) may make to one challenge. */
export const MAX_SUBMISSIONS_PER_STUDENT = 40;
/** Students on one board; past this a new name is refused (a class is at most a few hundred). */
const MAX_BOARD = 500;
/** Verifications a second for the whole lab (each is at most MAX_CHALLENGE_EVENTS events, a few ms to 0.3 s). */
export const VERIFY_LIMITS = { rate: 4, burst: 40 };

/** Who submitted: a name the relay checked (her lab session) or one she typed. */
interface Submitter {
  name: string;
  verified: boolean;
}

export interface Entry {
  name: string;
  verified: boolean;
  faults: number;
  at: number;
  seed: number;
  schedule: Schedule;
  /** Order of acceptance: ties on faults go to the first. */
  order: number;
}

type SubmitResult = { accepted: true; faults: number; at: number; rank: number };

/** One board key per submitter: a typed name never takes a verified student's place. */
const keyOf = (who: Submitter) => `${who.verified ? 'v' : 'c'}:${who.name}`;

class ChallengeRoom {
  private readonly best = new Map<string, Entry>();
  private readonly tries = new Map<string, number>();
  private readonly refusals: Record<string, number> = {};
  private submissions = 0;
  private accepted = 0;
  private readonly bucket: TokenBucket;
  /** The instructor's latest replay of an entry in the live lab. */
  live: LiveReplay | null = null;
  /** When the replay under way ends, by the relay's clock. */
  liveEndsAt: number | null = null;

  constructor(
    readonly challenge: Challenge,
    private readonly now: () => number,
  ) {
    this.bucket = new TokenBucket(VERIFY_LIMITS, now);
  }

  submit(who: Submitter, sub: Submission): SubmitResult | ErrorFrame {
    const name = keyOf(who);
    const tries = (this.tries.get(name) ?? 0) + 1;
    if (tries > MAX_SUBMISSIONS_PER_STUDENT)
      return this.refuse(
        'rate',
        'RATE_LIMITED',
        `At most ${MAX_SUBMISSIONS_PER_STUDENT} submissions per student`,
      );
    if (!this.best.has(name) && !this.tries.has(name) && this.tries.size >= MAX_BOARD)
      return this.refuse('full', 'RATE_LIMITED', `At most ${MAX_BOARD} students per challenge`);
    if (!this.bucket.take())
      return this.refuse(
        'rate',
        'RATE_LIMITED',
        'The relay checks a few submissions a second; try again shortly',
      );
    this.tries.set(name, tries);
    this.submissions++;
    const verdict = verifySubmission(this.challenge, sub);
    if (!verdict.accepted)
      return this.refuse(verdict.reason, 'SUBMISSION_REFUSED', verdict.message, [verdict.reason]);
    this.accepted++;
    const prev = this.best.get(name);
    if (!prev || verdict.faults < prev.faults)
      this.best.set(name, {
        ...who,
        faults: verdict.faults,
        at: verdict.at,
        seed: sub.seed,
        schedule: sub.schedule,
        order: this.accepted,
      });
    const rank = this.board().find((e) => e.name === who.name && e.verified === who.verified)!.rank;
    return { accepted: true, faults: verdict.faults, at: verdict.at, rank };
  }

  /** A session the lab does not hold: refused, counted, and paid for from the lab's bucket as a verification. */
  refuseSession(): ErrorFrame {
    if (!this.bucket.take())
      return this.refuse(
        'rate',
        'RATE_LIMITED',
        'Too many submissions to check; try again shortly',
      );
    return this.refuse('session', 'SESSION_REFUSED', ERRORS.SESSION_REFUSED.message);
  }

  private refuse(
    why: string,
    code: 'RATE_LIMITED' | 'SUBMISSION_REFUSED' | 'SESSION_REFUSED',
    message: string,
    details?: string[],
  ): ErrorFrame {
    this.refusals[why] = (this.refusals[why] ?? 0) + 1;
    return errorFrame(code, { message, ...(details ? { details } : {}) });
  }

  board(): BoardEntry[] {
    return [...this.best.values()]
      .sort((a, b) => a.faults - b.faults || a.order - b.order)
      .map((e, i) => ({
        rank: i + 1,
        name: e.name,
        verified: e.verified,
        faults: e.faults,
        at: e.at,
      }));
  }

  view(): ChallengeView {
    return {
      challenge: this.challenge,
      board: this.board(),
      submissions: this.submissions,
      refused: { ...this.refusals },
      live:
        this.live && this.liveEndsAt !== null
          ? { ...this.live, endsInMs: Math.max(0, Math.round(this.liveEndsAt - this.now())) }
          : this.live,
    };
  }

  /** The board's entry at `rank`, with its schedule (the instructor's replay). */
  entry(rank: number): Entry | null {
    const e = this.board()[rank - 1];
    return e ? this.best.get(keyOf(e))! : null;
  }

  /** An accepted schedule re-run, as a trace file for /replay. */
  trace(rank: number): string | null {
    const e = this.entry(rank);
    if (!e) return null;
    const run = runChallenge(this.challenge, e.seed, e.schedule);
    const { algorithm, ids } = this.challenge.setup;
    return serializeTrace({ source: 'simulator', algorithm, ids, seed: e.seed }, run.trace);
  }
}

/** Each lab's open challenge, if any; a removed lab's room goes with it. */
export class ChallengeRooms {
  private readonly rooms = new WeakMap<Lab, ChallengeRoom>();

  /** `live`: the live lab's scripted runs (absent: no replay in the live lab). */
  constructor(private readonly live: LiveReplays | null = null) {}

  get(lab: Lab): ChallengeRoom | null {
    return this.rooms.get(lab) ?? null;
  }

  open(lab: Lab, challenge: Challenge): ChallengeRoom {
    this.stopReplay(lab);
    const room = new ChallengeRoom(challenge, () => lab.deps.clock.now());
    this.rooms.set(lab, room);
    return room;
  }

  close(lab: Lab): boolean {
    this.stopReplay(lab);
    return this.rooms.delete(lab);
  }

  /**
   * A student's submission to the lab's open challenge. With her lab session, the relay checks
   * it holds the id and shows the name she joined with (verified); else her typed name (claimed).
   */
  submit(
    lab: Lab,
    name: string,
    sub: Submission,
    session?: SubmitSession,
  ): SubmitResult | ErrorFrame {
    const room = this.get(lab);
    if (!room) return errorFrame('NO_CHALLENGE');
    let who: Submitter = { name, verified: false };
    if (session) {
      const held = lab.processes.byResume(session.resume);
      if (!held || held.id !== session.id) return room.refuseSession();
      who = { name: held.name ?? `process ${held.id}`, verified: true };
    }
    return room.submit(who, sub);
  }

  /** The instructor replays the board's entry `rank` in the live lab (challenge-live.ts). */
  replay(lab: Lab, rank: number): ChallengeView | ErrorFrame {
    const room = this.get(lab);
    if (!room) return errorFrame('NO_CHALLENGE');
    if (!this.live)
      return errorFrame('LIVE_RUN_REFUSED', { message: 'This relay runs nothing live' });
    const entry = room.entry(rank);
    if (!entry) return errorFrame('NOT_FOUND', { message: `No entry ranked ${rank} on the board` });
    const refused = replayLive(this.live, lab, room, rank, entry);
    return refused ?? room.view();
  }

  private stopReplay(lab: Lab): void {
    if (this.live?.busy(lab) === 'challenge') this.live.cancel(lab);
  }
}
