// The work glue of hand mode: 003's job as her tab plays it. hand-work.ts holds the pure fold of
// her side of the job; this driver carries its effects on the runner's plumbing (the status beat,
// the "result ready" wake-up, the sends her tab makes by itself) so HandRunner keeps to the
// election and the coach.
import {
  roundTripBound,
  type AlgorithmConfig,
  type Message,
  type ProcessId,
} from '../algorithms/algorithm.ts';
import { messageParser } from '../algorithms/messages.ts';
import { answerKey, type WorkJob } from '../work/work-job.ts';
import { isWorkType, WORK_SCHEMAS, type WorkMessage } from '../work/work-messages.ts';
import type { HandStep } from './hand-kit.ts';
import {
  analyserOf,
  handWork,
  leftOffice,
  openTasks,
  readyAt,
  statusBeat,
  storeOffer,
  workDelivered,
  workerOffers,
  workStep,
  type HandWork,
} from './hand-work.ts';
import type { WorkView } from './hand-view.ts';

const WORK_BEAT = 'her:work-status';
const WORK_READY = 'her:work-ready';
const parseWork = messageParser(WORK_SCHEMAS);

/** The runner's plumbing the work glue uses. */
export interface WorkHooks {
  transmit(to: ProcessId, message: Message): void;
  setTimer(name: string, after: number, fn: () => void): void;
  /** Whom she believes now (her status beat goes to the coordinator). */
  believes(): ProcessId | null;
  /** A note for her queue about a work message. */
  enqueue(from: ProcessId, message: Message, note: string): void;
  changed(): void;
}

export class HandWorkDriver {
  private work: HandWork | null = null;
  private config: AlgorithmConfig | null = null;
  private readonly key: readonly number[];

  constructor(
    private readonly job: WorkJob | undefined,
    private readonly hooks: WorkHooks,
  ) {
    this.key = job ? answerKey(job) : [];
  }

  /** Start over with the lab's config; `now` is the host's clock, as handWork reads it. */
  start(config: AlgorithmConfig, now: number): void {
    this.config = config;
    const ub = roundTripBound(config.timing);
    this.work = this.job ? handWork(this.job, this.key, config.self, now, ub) : null;
    if (this.work) this.beat();
  }

  /** A work message while the lab has a workload: hers to fold, not the election's. */
  handles(message: Message): boolean {
    return this.work !== null && isWorkType(message.type);
  }

  /** Her tab keeps its books and answers the bookkeeping by itself; a note when she must act. */
  deliver(from: ProcessId, message: Message, now: number): void {
    const m = parseWork(message) as WorkMessage | null;
    if (!m || !this.work) return;
    const out = workDelivered(this.work, from, m, now);
    this.work = out.work;
    for (const s of out.sends) this.hooks.transmit(s.to, s.message);
    if (out.note !== null) this.hooks.enqueue(from, message, out.note);
    else this.hooks.changed();
  }

  /** One step of her click through the job; true when it changed her side of it. */
  step(step: HandStep, at: number): boolean {
    const work = this.work;
    if (!work) return false;
    this.work = workStep(work, step, at);
    if (step.kind === 'believe') this.work = leftOffice(this.work, step.coordinator);
    return this.work !== work;
  }

  /** Her accepting shows on the wire at once (a status beat naming the task), and the page wakes when the result is ready. */
  accepted(at: number): void {
    this.sendStatus();
    const ready = this.work ? readyAt(this.work) : null;
    if (ready !== null)
      this.hooks.setTimer(WORK_READY, Math.max(0, ready - at), () => this.hooks.changed());
  }

  view(now: number): WorkView | null {
    const w = this.work;
    if (!w || !this.config) return null;
    const analyser = analyserOf(w, now, this.config.timing.heartbeatTimeout);
    const store = storeOffer(w, analyser);
    return {
      state: w,
      offers: [...workerOffers(w), ...(store ? [store] : [])],
      analyser,
      open: openTasks(w),
    };
  }

  /** The status beat every heartbeat interval (bookkeeping her tab does by itself, hand-work.ts). */
  private beat(): void {
    this.hooks.setTimer(WORK_BEAT, this.config!.timing.heartbeatInterval, () => {
      this.sendStatus();
      this.beat();
    });
  }

  private sendStatus(): void {
    const beat = this.work ? statusBeat(this.work, this.hooks.believes()) : null;
    if (beat) this.hooks.transmit(beat.to, beat.message);
  }
}
