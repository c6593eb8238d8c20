// A lab's class-board figures per student, split by who vouches for them (docs/RELIABILITY.md,
// "What the board vouches for"). Verified: her moves and sends as the relay saw them and the
// deviations of the relay's own coach (hand-audit.ts, one per hand-played process). Claimed:
// what her tab says (its clicks and its coach's marks, `hand` frames; her grade, `grade`
// frames), kept and shown as claims. The deviations journaled per id are capped at
// MAX_DEVIATION_EVENTS and the count lives here, keyed by id, so rejoining does not reset it.
import type { Message, ProcessId, Report } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { MAX_DEVIATION_EVENTS } from '@shared/protocol/class-play.ts';
import type { HandFigures, ProcessConfig } from '@shared/protocol/frames.ts';
import { algorithmConfig } from '@shared/sim/process-host.ts';
import { withWorkload } from '@shared/work/with-work.ts';
import type { Deviation } from '@shared/coach/coach.ts';
import type { Clock } from '../clock/clock.ts';
import { HandAudit } from './hand-audit.ts';

interface FiguresDeps {
  clock: Clock;
  config: () => ProcessConfig;
  /** Journals one deviation (a `deviation` trace event). */
  journal: (id: ProcessId, d: Deviation, text: string) => void;
  onError: (err: unknown) => void;
}

const blank = (): HandFigures => ({
  actions: 0,
  sends: 0,
  deviations: 0,
  claimed: { clicks: 0, deviations: 0 },
});

export class ClassFigures {
  private readonly figures = new Map<ProcessId, HandFigures>();
  private readonly audits = new Map<ProcessId, HandAudit>();
  /** Deviation events journaled per id, for good (the cap outlives holders and rejoins). */
  private readonly journaled = new Map<ProcessId, number>();

  constructor(private readonly deps: FiguresDeps) {}

  /** She plays by hand from now (her tab's runner starts afresh): a fresh audit, figures kept. */
  start(id: ProcessId): void {
    this.stop(id);
    const f = this.of(id);
    const config = this.deps.config();
    let algorithm;
    try {
      // The shadow runs what her tab's coach runs: the lab's algorithm with its workload, if any.
      algorithm = withWorkload(getAlgorithm(config.algorithm), config.workload);
    } catch (err) {
      return this.deps.onError(err);
    }
    this.audits.set(
      id,
      new HandAudit({
        algorithm,
        config: algorithmConfig(config, id),
        seed: config.seed,
        clock: this.deps.clock,
        onAction: () => f.actions++,
        onDeviation: (d, text) => {
          f.deviations++;
          const n = (this.journaled.get(id) ?? 0) + 1;
          this.journaled.set(id, n);
          if (n <= MAX_DEVIATION_EVENTS) this.deps.journal(id, d, text);
        },
        onError: this.deps.onError,
      }),
    );
  }

  /** Her tab stops (crash, another mode, gone): the audit ends, the figures stay. */
  stop(id: ProcessId): void {
    this.audits.get(id)?.stop();
    this.audits.delete(id);
  }

  /** Someone new holds the id: the figures were the last holder's. */
  forget(id: ProcessId): void {
    this.stop(id);
    this.figures.delete(id);
  }

  delivered(id: ProcessId, from: ProcessId, json: string): void {
    const a = this.audits.get(id);
    if (a) a.delivered(from, JSON.parse(json) as Message);
  }

  sent(id: ProcessId, to: ProcessId, message: Message): void {
    const a = this.audits.get(id);
    if (!a) return;
    this.of(id).sends++;
    a.sent(to, message);
  }

  reported(id: ProcessId, report: Report): void {
    this.audits.get(id)?.reported(report);
  }

  elect(id: ProcessId): void {
    this.audits.get(id)?.elect();
  }

  /** Her tab's `hand` frame: a click of its count and its coach's marks, claims only. */
  claim(id: ProcessId, click: boolean, deviations: number): void {
    const c = this.of(id).claimed;
    if (click) c.clicks++;
    c.deviations += deviations;
  }

  /** The figures for the board (absent: she never played by hand). */
  info(id: ProcessId): HandFigures | undefined {
    const f = this.figures.get(id);
    const progress = this.audits.get(id)?.progress();
    return f ? { ...f, claimed: { ...f.claimed }, ...(progress ? { progress } : {}) } : undefined;
  }

  /** Brings every audit to now (the relay does it from each audit's 500 ms timer; the bench, by hand). */
  judgeAll(): void {
    for (const a of this.audits.values()) a.judge();
  }

  dispose(): void {
    for (const id of [...this.audits.keys()]) this.stop(id);
  }

  private of(id: ProcessId): HandFigures {
    let f = this.figures.get(id);
    if (!f) this.figures.set(id, (f = blank()));
    return f;
  }
}
