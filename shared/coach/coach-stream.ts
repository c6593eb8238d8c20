// The coach as her tab runs it (hand-runner.ts): the fold (coach.ts) fed entry by entry, looked at
// only when something changed.
import { MAX_MARKS, type CoachEntry, type CoachView, type Deviation } from './coach-types.ts';

/** What the stream needs of the fold (coach.ts's CoachFold; named here so the two import one way). */
export interface CoachFoldLike {
  add(entry: CoachEntry): void;
  view(now: number): CoachView;
  take(): Deviation[];
}

/**
 * The coach as her tab runs it: each entry of her history is folded once, as it comes (like the
 * relay's fold, hand-audit.ts), so it forgets nothing however long the class lasts (a refold of
 * the latest entries lost the start of the job once status beats filled them); the view is taken
 * again only when an entry came or the last view's next deadline passed.
 */
export class CoachStream {
  private fold: CoachFoldLike | null = null;
  private last: CoachView | null = null;
  private fresh = false;
  /** The marks taken from the fold at each look, the latest MAX_MARKS. */
  private marks: Deviation[] = [];

  constructor(private readonly make: () => CoachFoldLike) {}

  get view(): CoachView | null {
    return this.last;
  }

  reset(): void {
    this.fold = null;
    this.last = null;
    this.fresh = false;
    this.marks = [];
  }

  add(entry: CoachEntry): void {
    (this.fold ??= this.make()).add(entry);
    this.fresh = true;
  }

  look(now: number): CoachView {
    const m = this.last;
    if (m && !this.fresh && (m.next === null || now < m.next)) return m;
    this.fresh = false;
    const fold = (this.fold ??= this.make());
    const view = fold.view(now);
    this.marks = [...this.marks, ...fold.take()].slice(-MAX_MARKS);
    this.last = { ...view, deviations: this.marks };
    return this.last;
  }
}
