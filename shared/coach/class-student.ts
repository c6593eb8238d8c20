// One simulated student of the class simulator (class-sim.ts): a HandRunner with its coach, and
// a person who reads the tab, thinks for a while and clicks the first hint the coach lists
// (hints.ts). She rereads the tab whenever it changes. A student given a scripted mistake makes
// it once: `late` lets one hint pass its deadline before clicking it, `extra` holds an election
// nobody asked for once the class agrees, `believe` believes a wrong coordinator once.
import type { AlgorithmConfig, AnyAlgorithm, Message, ProcessId } from '../algorithms/algorithm.ts';
import type { HostIO } from '../sim/process-host.ts';
import { HandRunner } from './hand-runner.ts';
import { hints } from './hints.ts';

export const MISTAKES = ['late', 'extra', 'believe'] as const;
export type Mistake = (typeof MISTAKES)[number];

/** The moves that start an election of her own, per algorithm (hand-moves.ts `moves`). */
const ELECTION_MOVES = new Set(['elect', 'vote', 'candidate']);

interface StudentDeps {
  algorithm: AnyAlgorithm;
  seed: number;
  /** Her next think time, ms. */
  think(): number;
  now(): number;
  /** Wake her at `at` to read the tab. */
  look(at: number): void;
  io: HostIO;
}

export interface StudentResult {
  id: ProcessId;
  clicks: number;
  marks: { rule: string; at: number; action: string }[];
  mistake: Mistake | null;
  /** Hints she clicked after their deadline had passed (a mistake's, or more owed than she could click in time). */
  lateClicks: number;
}

export class Student {
  readonly runner: HandRunner;
  up = true;
  /** When her report last changed whom she believes or whether she elects. */
  settledAt = 0;
  private scheduled = false;
  private mistakeDone = false;
  private holdUntil = -1;
  private lateClicks = 0;
  private final: StudentResult | null = null;

  constructor(
    readonly id: ProcessId,
    private readonly mistake: Mistake | null,
    private readonly deps: StudentDeps,
  ) {
    const io: HostIO = {
      ...deps.io,
      report: (r) => {
        const last = this.runner?.report;
        if (!last || last.coordinator !== r.coordinator || last.electing !== r.electing)
          this.settledAt = deps.now();
      },
    };
    this.runner = new HandRunner({
      algorithm: deps.algorithm,
      io,
      seed: deps.seed,
      autoBeat: true,
      onChange: () => this.wake(),
    });
  }

  start(config: AlgorithmConfig): void {
    this.runner.start(config);
  }

  deliver(from: ProcessId, message: Message): void {
    if (this.up) this.runner.deliver(from, message);
  }

  crash(): void {
    // What she did and was marked for ends here: her coach's deadlines after the crash are no one's.
    this.final = this.result();
    this.up = false;
    this.runner.stop();
  }

  /** The tab changed: she reads it after a think time (once per think time, however much changed). */
  private wake(at = this.deps.now() + this.deps.think()): void {
    if (!this.up || this.scheduled) return;
    this.scheduled = true;
    this.deps.look(at);
  }

  /** She reads the tab and clicks the first hint with a button (or makes her mistake). */
  look(): void {
    this.scheduled = false;
    const now = this.deps.now();
    if (!this.up || now < this.holdUntil) return;
    const view = this.runner.view();
    const open = hints(view, this.id).filter((h) => h.offer !== null);
    if (
      this.mistake &&
      !this.mistakeDone &&
      this.makeMistake(open[0]?.due ?? null, open.length === 0)
    )
      return;
    const h = open[0];
    if (!h) return;
    if (h.due !== null && now > h.due) this.lateClicks++;
    this.runner.act(h.offer!);
  }

  /** True when she made (or began) her mistake on this look. */
  private makeMistake(due: number | null, idle: boolean): boolean {
    const view = this.runner.view();
    const settled = view.report.coordinator !== null && !view.report.electing;
    if (this.mistake === 'late' && due !== null) {
      this.mistakeDone = true;
      this.holdUntil = due + 1;
      this.wake(due + 1 + this.deps.think());
      return true;
    }
    if (this.mistake === 'extra' && idle && settled) {
      const move = view.moves.find((m) => ELECTION_MOVES.has(m.key));
      this.mistakeDone = true;
      if (move) this.runner.act(move);
      return move !== undefined;
    }
    if (this.mistake === 'believe' && settled) {
      const wrong = view.report.coordinator! - 1;
      this.mistakeDone = true;
      if (wrong < 0) return false;
      this.runner.act({
        key: `believe-${wrong}`,
        label: `Believe ${wrong}`,
        steps: [{ kind: 'believe', coordinator: wrong }],
      });
      return true;
    }
    return false;
  }

  result(): StudentResult {
    if (this.final) return this.final;
    const view = this.runner.view();
    return {
      id: this.id,
      clicks: view.clicks,
      marks: view.deviations.map((d) => ({ rule: d.rule, at: d.at, action: d.action })),
      mistake: this.mistake,
      lateClicks: this.lateClicks,
    };
  }
}
