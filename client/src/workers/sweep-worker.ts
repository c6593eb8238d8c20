// Runs the instructor panel's sweep off the page's thread: the simulator for each run
// (shared/experiments/experiment.ts), rows posted back a slice at a time with the progress, so the panel
// fills in while the page stays responsive. Cancelling terminates the worker.
import { runOne, type RunParams, type RunRow } from '@shared/experiments/experiment.ts';
import { SweepJob } from '../utils/sweep-job.ts';

export type SweepRequest = { runs: RunParams[] };
export type SweepReply =
  | { kind: 'rows'; rows: RunRow[]; progress: number; done: boolean }
  | { kind: 'error'; message: string };

// The worker's global scope, typed by what is used (the app's tsconfig has DOM types, not WebWorker).
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<SweepRequest>) => void) | null;
  postMessage(m: SweepReply): void;
};

scope.onmessage = (e) => {
  try {
    const job = new SweepJob(
      e.data.runs,
      (p) => runOne(p, () => performance.now()),
      () => performance.now(),
    );
    while (!job.done) {
      const rows = job.step(100);
      scope.postMessage({ kind: 'rows', rows, progress: job.progress, done: job.done });
    }
  } catch (err) {
    scope.postMessage({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
  }
};
