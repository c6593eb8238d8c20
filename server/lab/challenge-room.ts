// The relay's "break it" state, one room per lab (issue 28, item 6): the open challenge, each
// student's best accepted submission, and the count of refusals by reason. Every submission is
// re-run here in the relay's own simulator (shared/challenges/challenge-verify.ts), bounded in
// events, in submissions per student and in verifications a second for the whole lab.
import type { BoardEntry, ChallengeView } from '@shared/challenges/challenge-api.ts';
import type { Challenge, Schedule, Submission } from '@shared/challenges/challenge-schema.ts';
import { runChallenge, verifySubmission } from '@shared/challenges/challenge-verify.ts';
import { errorFrame, type ErrorFrame } from '@shared/protocol/errors.ts';
import { serializeTrace } from '@shared/protocol/trace-file.ts';
import type { Lab } from './lab.ts';
import { TokenBucket } from './rate-limit.ts';

/** Submissions one student (by name) may make to one challenge. */
export const MAX_SUBMISSIONS_PER_STUDENT = 40;
/** Students on one board; past this a new name is refused (a class is at most a few hundred). */
const MAX_BOARD = 500;
/** Verifications a second for the whole lab (each is at most MAX_CHALLENGE_EVENTS events, a few ms to 0.3 s). */
export const VERIFY_LIMITS = { rate: 4, burst: 40 };

interface Entry {
  name: string;
  faults: number;
  at: number;
  seed: number;
  schedule: Schedule;
  /** Order of acceptance: ties on faults go to the first. */
  order: number;
}

type SubmitResult = { accepted: true; faults: number; at: number; rank: number };

class ChallengeRoom {
  private readonly best = new Map<string, Entry>();
  private readonly tries = new Map<string, number>();
  private readonly refusals: Record<string, number> = {};
  private submissions = 0;
  private accepted = 0;
  private readonly bucket: TokenBucket;

  constructor(
    readonly challenge: Challenge,
    now: () => number,
  ) {
    this.bucket = new TokenBucket(VERIFY_LIMITS, now);
  }

  submit(name: string, sub: Submission): SubmitResult | ErrorFrame {
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
        name,
        faults: verdict.faults,
        at: verdict.at,
        seed: sub.seed,
        schedule: sub.schedule,
        order: this.accepted,
      });
    const rank = this.board().find((e) => e.name === name)!.rank;
    return { accepted: true, faults: verdict.faults, at: verdict.at, rank };
  }

  private refuse(
    why: string,
    code: 'RATE_LIMITED' | 'SUBMISSION_REFUSED',
    message: string,
    details?: string[],
  ): ErrorFrame {
    this.refusals[why] = (this.refusals[why] ?? 0) + 1;
    return errorFrame(code, { message, ...(details ? { details } : {}) });
  }

  board(): BoardEntry[] {
    return [...this.best.values()]
      .sort((a, b) => a.faults - b.faults || a.order - b.order)
      .map((e, i) => ({ rank: i + 1, name: e.name, faults: e.faults, at: e.at }));
  }

  view(): ChallengeView {
    return {
      challenge: this.challenge,
      board: this.board(),
      submissions: this.submissions,
      refused: { ...this.refusals },
    };
  }

  /** The board's entry at `rank`, with its schedule (the instructor's replay). */
  entry(rank: number): Entry | null {
    const e = this.board()[rank - 1];
    return e ? this.best.get(e.name)! : null;
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

  get(lab: Lab): ChallengeRoom | null {
    return this.rooms.get(lab) ?? null;
  }

  open(lab: Lab, challenge: Challenge): ChallengeRoom {
    const room = new ChallengeRoom(challenge, () => lab.deps.clock.now());
    this.rooms.set(lab, room);
    return room;
  }

  close(lab: Lab): boolean {
    return this.rooms.delete(lab);
  }

  /** A student's submission to the lab's open challenge. */
  submit(lab: Lab, name: string, sub: Submission): SubmitResult | ErrorFrame {
    const room = this.get(lab);
    if (!room) return errorFrame('NO_CHALLENGE');
    return room.submit(name, sub);
  }
}
