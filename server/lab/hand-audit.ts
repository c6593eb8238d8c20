// The relay's own view of one hand-played process (docs/RELIABILITY.md, "What the board vouches
// for"): the coach (shared/coach/coach.ts) run on what the relay delivered to her and what she
// sent, not on what her tab says it saw and did. Her history is fed as the tab's runner feeds its
// own (hand-runner.ts): the shadow runs the lab's config, detector included (issue 24), so it
// hears the detector's heartbeats and PONGs too; the instructor's `elect`; and, in a lab with no
// detector of its own, a suspicion the relay derives itself (auto-beat.ts, on the relay's clock,
// as if her toggle were on). Her moves are her sends and
// the belief changes in her reports; moves that arrive within CLICK_WINDOW_MS of the first are
// one click, so the coach marks a rule once per click as it does in the tab.
// Bounded: the fold is fed one entry at a time and keeps no history (coach.ts CoachFold: the
// shadow's state, its open suggestions, at most 50 late ones, 100 sends of hers ahead of it and
// 100 of her sends of the last UB),
// so an entry costs one step of the algorithm at most, and a look every JUDGE_MS finds the
// deadlines she let pass. Her tab feeds the same fold as entries come (CoachStream); neither forgets.
import {
  roundTripBound,
  type AlgorithmConfig,
  type AnyAlgorithm,
  type Message,
  type ProcessId,
  type Report,
} from '@shared/algorithms/algorithm.ts';
import { AutoBeat, usesSharedDetector } from '@shared/coach/auto-beat.ts';
import {
  CoachFold,
  explain,
  type CoachView,
  type Deviation,
  type HandAction,
} from '@shared/coach/coach.ts';
import type { HandProgress } from '@shared/protocol/frames.ts';
import { NamedTimers } from '@shared/sim/named-timers.ts';
import { NONE } from '@shared/work/work-messages.ts';
import type { Clock } from '../clock/clock.ts';

/**
 * Moves that reach the relay within this many ms of the first are one click. A click's sends
 * leave her tab together, but a loaded relay can read them tens of ms apart (20 ms split one
 * click in two under a parallel test run); two clicks of a person are further apart than this.
 */
const CLICK_WINDOW_MS = 100;
/** How often the relay folds her history (deadlines she lets pass are found then). */
export const JUDGE_MS = 500;
const DETECTOR_TYPES = new Set(['HEARTBEAT', 'PING', 'PONG']);

interface AuditDeps {
  algorithm: AnyAlgorithm;
  /** Her algorithm config as her tab runs it (shared/sim/process-host.ts algorithmConfig). */
  config: AlgorithmConfig;
  seed: number;
  clock: Clock;
  /** A move of hers the relay saw (the first of a click opens one). */
  onAction(): void;
  /** A deviation the relay's coach found (each once). */
  onDeviation(d: Deviation, text: string): void;
  onError(err: unknown): void;
}

export class HandAudit {
  private readonly fold: CoachFold;
  private readonly t0: number;
  private clicks = 0;
  private clickAt = -Infinity;
  private believed: ProcessId | null = null;
  /** Since when her reports say she is electing (the relay's clock, ms since t0); null: not electing. */
  private electingSince: number | null = null;
  /** What the reference owed her at the last look: how many answers, the oldest since when. */
  private owed: { count: number; since: number | null } = { count: 0, since: null };
  private readonly timers: NamedTimers;
  private readonly beat: AutoBeat;
  private tick: unknown = null;
  private stopped = false;
  /** The task her last status beat named (work schedule; NONE: empty). */
  private running = NONE;

  constructor(private readonly deps: AuditDeps) {
    const clock = deps.clock;
    this.t0 = clock.now();
    this.fold = new CoachFold(deps.algorithm, deps.config, deps.seed);
    this.timers = new NamedTimers({
      setTimer: (fn, ms) => clock.setTimeout(fn, ms),
      clearTimer: (h) => clock.clearTimeout(h),
      now: () => clock.now(),
    });
    // Her tab's detector sends for her (those sends reach the relay as hers); here it only watches.
    this.beat = new AutoBeat(true, {
      send: () => {},
      suspect: () => this.suspected(),
      setTimer: (name, after, fn) => this.timers.set(name, after, this.guard(fn)),
      cancelTimer: (name) => this.timers.cancel(name),
    });
    this.beat.configure(deps.config, deps.algorithm.name);
    this.beat.follow(null, null);
    this.schedule();
  }

  /** The relay delivered `message` from `from` to her. */
  delivered(from: ProcessId, message: Message): void {
    if (this.stopped) return;
    const entry = {
      kind: 'event',
      at: this.now(),
      event: { kind: 'message', from, message },
    } as const;
    if (message.type === 'ACK' && typeof message.seq === 'number') return this.fold.add(entry);
    // The shadow's own detector hears what the toggle handles, as in her tab.
    const detector =
      usesSharedDetector(this.deps.algorithm.name) &&
      (message.type === 'HEARTBEAT' || message.type === 'PONG');
    if (detector) this.fold.add(entry);
    if (this.beat.hears(from, message) || detector) return;
    this.fold.add(entry);
  }

  /** The instructor asked her to elect. */
  elect(): void {
    if (!this.stopped) this.fold.add({ kind: 'event', at: this.now(), event: { kind: 'elect' } });
  }

  /** She sent `message` to `to`; the shared detector's messages are her tab's, not her moves. */
  sent(to: ProcessId, message: Message): void {
    if (this.stopped) return;
    // Her tab's status beat names the task she runs: a new one is her accepting it (hand-work.ts).
    if (message.type === 'WORK_STATUS' && typeof message.task === 'number') {
      const task = message.task;
      if (task !== NONE && task !== this.running) this.act({ kind: 'accept', task, from: null });
      this.running = task;
    }
    if (
      this.stopped ||
      (usesSharedDetector(this.deps.algorithm.name) && DETECTOR_TYPES.has(message.type))
    )
      return;
    this.act({ kind: 'send', to, message });
  }

  /** Her report: a new belief is a move (declaring herself, or believing another). */
  reported(report: Report): void {
    if (this.stopped) return;
    if (!report.electing) this.electingSince = null;
    else this.electingSince ??= this.now();
    if (report.coordinator === this.believed) return;
    this.believed = report.coordinator;
    this.beat.follow(report.coordinator, this.deps.config.self);
    if (report.coordinator === null) return;
    this.act(
      report.coordinator === this.deps.config.self
        ? { kind: 'declare' }
        : { kind: 'believe', coordinator: report.coordinator },
    );
  }

  /** Brings the fold to now: the deviations found since the last look go to `onDeviation`, each once. */
  judge(): void {
    if (this.stopped) return;
    this.owed = owedOf(this.fold.view(this.now()));
    for (const d of this.fold.take()) this.deps.onDeviation(d, explain(d));
  }

  /**
   * Whether she holds the class up, by the relay's own measure (issue 24): the answers the
   * reference owes and she has not sent (as of the last look, at most JUDGE_MS old), how long the
   * oldest has waited, how long her reports have said electing; stuck past 2 x UB of either.
   */
  progress(): HandProgress {
    const now = this.now();
    const oldestOpenMs = this.owed.since === null ? null : Math.max(0, now - this.owed.since);
    const electingMs = this.electingSince === null ? null : now - this.electingSince;
    const limit = 2 * roundTripBound(this.deps.config.timing);
    return {
      open: this.owed.count,
      oldestOpenMs,
      electingMs,
      stuck: (oldestOpenMs ?? 0) > limit || (electingMs ?? 0) > limit,
    };
  }

  stop(): void {
    this.stopped = true;
    this.timers.clear();
    if (this.tick !== null) this.deps.clock.clearTimeout(this.tick);
    this.tick = null;
  }

  private act(action: HandAction): void {
    const at = this.now();
    if (at - this.clickAt > CLICK_WINDOW_MS) {
      this.clicks++;
      this.clickAt = at;
      this.deps.onAction();
    }
    this.fold.add({ kind: 'action', at, click: this.clicks, action });
  }

  /**
   * Her coordinator fell silent: with the lab's detector the shadow suspects it by itself; with
   * none, it holds an election unless it holds one (hand-runner.ts enqueueElect).
   */
  private suspected(): void {
    if (this.stopped || this.deps.config.detector !== 'none') return;
    if (!this.fold.view(this.now()).report?.electing) this.elect();
  }

  private schedule(): void {
    this.tick = this.deps.clock.setTimeout(
      this.guard(() => {
        this.judge();
        if (!this.stopped) this.schedule();
      }),
      JUDGE_MS,
    );
  }

  /** A throw in a timer must not take the relay down: logged, and this audit stops. */
  private guard(fn: () => void): () => void {
    return () => {
      try {
        fn();
      } catch (err) {
        this.deps.onError(err);
        this.stop();
      }
    };
  }

  private now(): number {
    return this.deps.clock.now() - this.t0;
  }
}

/** The sends the reference owes her now: open ones and late ones it still waits on. */
function owedOf(view: CoachView): { count: number; since: number | null } {
  const owed = [...view.suggestions, ...view.owed];
  return { count: owed.length, since: owed.length ? Math.min(...owed.map((s) => s.since)) : null };
}
