// The instructor panel's sweep: plans it (bounded), runs it in a Web Worker (or, where workers
// are unavailable, in short slices on the page's event loop), and turns the rows into the
// experiment's figures (shared/experiments/experiment-plots.ts: messages by type against N beside the
// formulas, election time in T against N) and tables. A new start or leaving the page cancels.
import { computed, onScopeDispose, ref, shallowRef } from 'vue';
import { runOne, type RunParams, type RunRow } from '@shared/experiments/experiment.ts';
import { experimentFigures } from '@shared/experiments/experiment-plots.ts';
import { planSweep, SweepJob, sweepTables, type SweepInput } from '../utils/sweep-job.ts';
import type { SweepReply, SweepRequest } from '../workers/sweep-worker.ts';

export function useSweep() {
  const running = ref(false);
  const progress = ref(0);
  const errors = ref<string[]>([]);
  const rows = shallowRef<RunRow[]>([]);
  const wallMs = ref(0);
  let worker: Worker | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let started = 0;

  const figures = computed(() =>
    rows.value.length && !running.value ? experimentFigures(rows.value) : [],
  );
  const tables = computed(() => (rows.value.length ? sweepTables(rows.value) : []));

  function start(input: SweepInput): void {
    cancel();
    const plan = planSweep(input);
    if (!plan.ok) {
      errors.value = plan.errors;
      return;
    }
    errors.value = [];
    rows.value = [];
    progress.value = 0;
    running.value = true;
    started = performance.now();
    if (typeof Worker === 'undefined') return inSlices(plan.runs);
    try {
      worker = new Worker(new URL('../workers/sweep-worker.ts', import.meta.url), {
        type: 'module',
      });
    } catch {
      return inSlices(plan.runs);
    }
    worker.onmessage = (e: MessageEvent<SweepReply>) => {
      const m = e.data;
      if (m.kind === 'error') return finish([`The sweep failed: ${m.message}`]);
      rows.value = [...rows.value, ...m.rows];
      progress.value = m.progress;
      if (m.done) finish();
    };
    worker.onerror = () => finish(['The sweep stopped: its worker failed to start or crashed.']);
    worker.postMessage({ runs: plan.runs } satisfies SweepRequest);
  }

  /** No worker: 30 ms slices between which the page handles input and paints. */
  function inSlices(runs: RunParams[]): void {
    const job = new SweepJob(
      runs,
      (p) => runOne(p, () => performance.now()),
      () => performance.now(),
    );
    const slice = () => {
      timer = null;
      try {
        const added = job.step(30);
        rows.value = [...rows.value, ...added];
        progress.value = job.progress;
      } catch (err) {
        return finish([`The sweep failed: ${err instanceof Error ? err.message : String(err)}`]);
      }
      if (job.done) finish();
      else timer = setTimeout(slice, 0);
    };
    timer = setTimeout(slice, 0);
  }

  function finish(problems: string[] = []): void {
    if (problems.length) errors.value = problems;
    running.value = false;
    wallMs.value = performance.now() - started;
    worker?.terminate();
    worker = null;
  }

  function cancel(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (worker || running.value) {
      worker?.terminate();
      worker = null;
      running.value = false;
    }
  }

  onScopeDispose(cancel);
  return { running, progress, errors, rows, figures, tables, wallMs, start, cancel };
}
