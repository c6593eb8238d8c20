// What hand mode's page draws from (HandRunner.view()): her queue, her moves, the coach's view.
import type { ProcessId, Report } from '../algorithms/algorithm.ts';
import type { CoachView, Deviation } from './coach.ts';
import type { Offer } from './hand-kit.ts';
import type { QueuedItem } from './hand-queue.ts';
import type { HandWork } from './hand-work.ts';

export interface ShownDeviation extends Deviation {
  text: string;
}

export interface HandView {
  queue: QueuedItem[];
  moves: Offer[];
  report: Report;
  coach: CoachView;
  deviations: ShownDeviation[];
  successors: ProcessId[];
  successor: ProcessId | null;
  down: ProcessId[];
  autoBeat: boolean;
  clicks: number;
  /** Items pushed out of the queue by newer ones (it keeps QUEUE_LIMIT). */
  dropped: number;
  /** Items the present made moot before she answered them (hand-queue.ts). */
  expired: number;
  /** Her clock when this view was drawn (ms since she started): deadlines are shown as time left. */
  now: number;
  /** 003's work schedule, when the lab has a workload (hand-work.ts). */
  work: WorkView | null;
}

/** Her side of the job as her tab shows it. */
export interface WorkView {
  state: HandWork;
  /** Her buttons: accept, refuse, compute (`readyAt`), send the result; as coordinator, pass results on. */
  offers: Offer[];
  analyser: ProcessId | null;
  /** As coordinator: tasks with no result and running nowhere she knows of. */
  open: number[];
}

/** The coach's view before she starts: nothing suggested, nothing judged. */
export const IDLE_COACH: CoachView = {
  suggestions: [],
  late: [],
  owed: [],
  next: null,
  pending: [],
  deviations: [],
  report: null,
  wouldDeclare: false,
  wouldAccept: null,
  broken: false,
};
