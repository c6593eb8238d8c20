// The grader's runner: it never runs her code itself. It starts a worker (a Node worker_thread or
// a Web Worker) in which the grader runs and her module sits behind the wall (student-wall.ts),
// which bounds each of her calls in time and memory itself. The runner is the backstop for the
// grader's own worker: if it stops answering well past the wall's bounds (BACKSTOP_MS beyond
// them), or dies, it is terminated, the case it was in fails naming the last call seen, and a
// fresh worker carries on with the cases not yet graded (at most MAX_RESTARTS times). The same
// code runs under the command line and in the tab.
import type { AlgorithmName } from '../algorithms/algorithm.ts';
import { casesFor } from './cases.ts';
import { assemble, type GradeReport } from './grading.ts';
import type { CaseResult } from './case-result.ts';
import { type GradeProgress, type GradeRequest } from './grade-worker-body.ts';
import { describeFault, type FaultInfo } from './module-fault.ts';

interface WorkerEvents {
  message(m: GradeProgress): void;
  /** The worker died: out of memory (`memory`), or anything else. */
  died(reason: { memory: boolean; message: string }): void;
}

interface WorkerHandle {
  post(req: GradeRequest): void;
  terminate(): void;
}

export type SpawnWorker = (events: WorkerEvents) => WorkerHandle;

interface RunnerOptions {
  spawn: SpawnWorker;
  algorithm: AlgorithmName;
  source: string | null;
  subject: string;
  exploreMs: number;
  /** Each call into her code may take this long (ms). */
  stepMs: number;
  /** Her module's memory limit (MB): the engine's, counting all she allocates. */
  memoryMb: number;
  /** Her module's top-level code may take this long to load (ms). */
  loadMs?: number;
  /** A worker must be up within this (ms): starting one compiles the grader. */
  startMs?: number;
  clock: () => number;
  /** Told as cases finish (a progress line). */
  onCase?: (r: CaseResult) => void;
}

const MAX_RESTARTS = 3;
/** How long past the wall's own bounds the runner waits before it calls the worker stuck (ms). */
const BACKSTOP_MS = 10_000;

/** Case ids and titles in report order: the scenario cases, then the wire check and the explorer. */
function plan(
  algorithm: AlgorithmName,
  student: boolean,
): { id: string; title: string; group: CaseResult['group'] }[] {
  return [
    ...casesFor(algorithm).map((c) => ({ id: c.id, title: c.title, group: c.group })),
    ...(student ? [{ id: 'wire', title: 'wire format', group: 'wire' as const }] : []),
    { id: 'explore', title: 'explorer', group: 'explore' as const },
  ];
}

export function runGrade(opts: RunnerOptions): Promise<GradeReport> {
  const loadMs = opts.loadMs ?? 2 * opts.stepMs;
  const startMs = opts.startMs ?? 60_000;
  const steps = plan(opts.algorithm, opts.source !== null);
  const results = new Map<string, CaseResult>();
  const phases = new Map<string, number>();
  const addPhase = (name: string, ms: number) => phases.set(name, (phases.get(name) ?? 0) + ms);

  return new Promise((resolve) => {
    let restarts = 0;
    let finished = false;

    const finish = (loadError: FaultInfo | null) => {
      if (finished) return;
      finished = true;
      const ordered = steps.flatMap((s) => results.get(s.id) ?? []);
      resolve(
        assemble(
          opts.algorithm,
          opts.subject,
          loadError ? [] : ordered,
          [...phases].map(([name, ms]) => ({ name, ms: Math.round(ms) })),
          loadError,
        ),
      );
    };

    const launch = () => {
      let phase: 'start' | 'load' | 'cases' | 'explore' = 'start';
      let phaseAt = opts.clock();
      let current: string | null = null;
      let last: { process: number; t: number; event: string } | null = null;
      let timer: ReturnType<typeof setTimeout> | null = null;
      let dead = false;
      /** When the explorer's budget runs out (runner clock), once it has started. */
      let exploreEnd = Infinity;

      const enter = (next: typeof phase) => {
        const now = opts.clock();
        addPhase(label(phase), now - phaseAt);
        phase = next;
        phaseAt = now;
      };
      const arm = (ms: number, why: () => FaultInfo) => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => kill(why()), ms);
      };
      const disarm = () => {
        if (timer) clearTimeout(timer);
        timer = null;
      };

      const kill = (fault: FaultInfo) => {
        if (dead) return;
        dead = true;
        disarm();
        worker.terminate();
        enter(phase);
        if (phase === 'start' || phase === 'load' || current === null)
          return finish(phase === 'start' ? { kind: 'load', message: fault.message } : fault);
        const step = steps.find((s) => s.id === current)!;
        const result: CaseResult = {
          id: step.id,
          group: step.group,
          title: step.title,
          pass: false,
          figures: [],
          reason: describeFault(fault),
          fault,
          divergence: null,
          trace: null,
          ms: 0,
        };
        results.set(step.id, result);
        opts.onCase?.(result);
        if (++restarts > MAX_RESTARTS) {
          for (const s of steps) {
            if (results.has(s.id)) continue;
            results.set(s.id, {
              id: s.id,
              group: s.group,
              title: s.title,
              pass: false,
              figures: [],
              reason: `not run: the sandbox was stopped ${MAX_RESTARTS + 1} times`,
              fault: null,
              divergence: null,
              trace: null,
              ms: 0,
            });
          }
          return finish(null);
        }
        launch();
      };

      // In the explorer, news from the worker (a call, its clock) shows it is not wedged: the
      // backstop counts from the last news, never before the budget's end.
      const rearmExplore = () =>
        arm(Math.max(0, exploreEnd - opts.clock()) + 2 * opts.stepMs + BACKSTOP_MS, runaway);

      const runaway = (): FaultInfo => {
        const where = last ? { process: last.process, t: last.t, event: last.event } : {};
        if (phase === 'load')
          return {
            kind: 'runaway',
            message: `the module did not finish loading within ${loadMs} ms (an endless loop at the top level?); the sandbox was stopped`,
          };
        return {
          kind: 'runaway',
          message: `the sandbox stopped answering${phase === 'explore' ? ' in the explorer' : ''} (a call past ${2 * opts.stepMs} ms that the engine did not interrupt); it was stopped; the last call seen`,
          ...where,
        };
      };

      const worker = opts.spawn({
        message(m) {
          if (dead) return;
          switch (m.kind) {
            case 'ready':
              enter('load');
              arm(startMs, () => ({ kind: 'load', message: 'the grader did not start' }));
              worker.post({
                kind: 'grade',
                algorithm: opts.algorithm,
                source: opts.source,
                subject: opts.subject,
                exploreMs: opts.exploreMs,
                stepMs: opts.stepMs,
                loadMs,
                memoryMb: opts.memoryMb,
                skip: [...results.keys()],
              });
              return;
            case 'loading':
              arm(loadMs + BACKSTOP_MS, runaway);
              return;
            case 'loaded':
              disarm();
              enter('cases');
              return;
            case 'load-error':
              dead = true;
              disarm();
              worker.terminate();
              enter(phase);
              return finish(m.fault);
            case 'start':
              current = m.id;
              last = null;
              if (m.id === 'explore') {
                enter('explore');
                exploreEnd = opts.clock() + opts.exploreMs;
                // The explorer's own work between her calls is bounded by its budget, not by her step limit.
                arm(opts.exploreMs + 2 * opts.stepMs + BACKSTOP_MS, runaway);
              } else disarm();
              return;
            case 'call':
              last = { process: m.process, t: m.t, event: m.event };
              // A call is interrupted by the wall after stepMs and retried once: the backstop waits longer.
              if (phase !== 'explore') arm(2 * opts.stepMs + BACKSTOP_MS, runaway);
              else rearmExplore();
              return;
            case 'alive':
              if (phase === 'explore') rearmExplore();
              return;
            case 'case':
              disarm();
              results.set(m.result.id, m.result);
              opts.onCase?.(m.result);
              return;
            case 'done':
              dead = true;
              disarm();
              worker.terminate();
              enter(phase);
              return finish(null);
          }
        },
        died(reason) {
          if (dead) return;
          const where = last ? { process: last.process, t: last.t, event: last.event } : {};
          kill(
            // Her memory is the engine's, bounded inside the wall: a worker out of memory is the grader's own.
            reason.memory
              ? {
                  kind: 'throw',
                  message:
                    "the grader's worker ran out of memory (its own, not the module's); the last call seen",
                  ...where,
                }
              : { kind: 'throw', message: `the sandbox stopped: ${reason.message}`, ...where },
          );
        },
      });
      arm(startMs, () => ({
        kind: 'load',
        message: `the grader's worker did not start within ${startMs} ms`,
      }));
    };

    launch();
  });
}

function label(phase: 'start' | 'load' | 'cases' | 'explore'): string {
  return {
    start: 'start the sandbox',
    load: 'load the module',
    cases: 'scenario cases',
    explore: 'explorer',
  }[phase];
}
