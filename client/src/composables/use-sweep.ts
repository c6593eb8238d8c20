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
  let stopSlices: (() => void) | null = null;
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
    worker = sweepWorker(plan.runs, {
      reply,
      died: () => finish(['The sweep stopped: its worker failed to start or crashed.']),
    });
    if (!worker) stopSlices = inSlices(plan.runs, reply);
  }

  /** A batch of rows from the worker (or a slice on the page), or the reason it failed. */
  function reply(m: SweepReply): void {
    if (m.kind === 'error') return finish([`The sweep failed: ${m.message}`]);
    rows.value = [...rows.value, ...m.rows];
    progress.value = m.progress;
    if (m.done) finish();
  }

  function finish(problems: string[] = []): void {
    if (problems.length) errors.value = problems;
    running.value = false;
    wallMs.value = performance.now() - started;
    worker?.terminate();
    worker = null;
  }

  function cancel(): void {
    stopSlices?.();
    stopSlices = null;
    if (worker || running.value) {
      worker?.terminate();
      worker = null;
      running.value = false;
    }
  }

  onScopeDispose(cancel);
  return { running, progress, errors, rows, figures, tables, wallMs, start, cancel };
}

/** The sweep in a Web Worker; null where workers are unavailable. A worker that fails says so. */
function sweepWorker(
  runs: RunParams[],
  on: { reply: (m: SweepReply) => void; died: () => void },
): Worker | null {
  if (typeof Worker === 'undefined') return null;
  let w: Worker;
  try {
    w = new Worker(new URL('../workers/sweep-worker.ts', import.meta.url), { type: 'module' });
  } catch {
    return null;
  }
  w.onmessage = (e: MessageEvent<SweepReply>) => on.reply(e.data);
  w.onerror = () => on.died();
  w.postMessage({ runs } satisfies SweepRequest);
  return w;
}

/** No worker: 30 ms slices between which the page handles input and paints; the answer cancels. */
function inSlices(runs: RunParams[], reply: (m: SweepReply) => void): () => void {
  const job = new SweepJob(
    runs,
    (p) => runOne(p, () => performance.now()),
    () => performance.now(),
  );
  let timer: ReturnType<typeof setTimeout> | null = null;
  const slice = () => {
    timer = null;
    let rows: RunRow[];
    try {
      rows = job.step(30);
    } catch (err) {
      return reply({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
    }
    reply({ kind: 'rows', rows, progress: job.progress, done: job.done });
    if (!job.done) timer = setTimeout(slice, 0);
  };
  timer = setTimeout(slice, 0);
  return () => {
    if (timer !== null) clearTimeout(timer);
  };
}
