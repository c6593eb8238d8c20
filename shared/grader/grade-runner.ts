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
type Phase = 'start' | 'load' | 'cases' | 'explore';
type PlanStep = ReturnType<typeof plan>[number];

export function runGrade(opts: RunnerOptions): Promise<GradeReport> {
  return new Promise((resolve) => new GradeRun(opts, resolve).launch());
}

/** One grade: its results and phase times, across the workers it takes (a fresh one per restart). */
class GradeRun {
  readonly loadMs: number;
  readonly startMs: number;
  readonly steps: PlanStep[];
  readonly results = new Map<string, CaseResult>();
  private readonly phases = new Map<string, number>();
  private restarts = 0;
  private finished = false;

  constructor(
    readonly opts: RunnerOptions,
    private readonly resolve: (report: GradeReport) => void,
  ) {
    this.loadMs = opts.loadMs ?? 2 * opts.stepMs;
    this.startMs = opts.startMs ?? 60_000;
    this.steps = plan(opts.algorithm, opts.source !== null);
  }

  launch(): void {
    new Attempt(this);
  }

  addPhase(phase: Phase, ms: number): void {
    const name = label(phase);
    this.phases.set(name, (this.phases.get(name) ?? 0) + ms);
  }

  record(result: CaseResult): void {
    this.results.set(result.id, result);
    this.opts.onCase?.(result);
  }

  finish(loadError: FaultInfo | null): void {
    if (this.finished) return;
    this.finished = true;
    const ordered = this.steps.flatMap((s) => this.results.get(s.id) ?? []);
    this.resolve(
      assemble(
        this.opts.algorithm,
        this.opts.subject,
        loadError ? [] : ordered,
        [...this.phases].map(([name, ms]) => ({ name, ms: Math.round(ms) })),
        loadError,
      ),
    );
  }

  /** The worker was stopped in case `id`: it fails with the fault, and a fresh worker carries on (at most MAX_RESTARTS times). */
  stoppedIn(id: string, fault: FaultInfo): void {
    const step = this.steps.find((s) => s.id === id)!;
    this.record(failedCase(step, describeFault(fault), fault));
    if (++this.restarts > MAX_RESTARTS) {
      const reason = `not run: the sandbox was stopped ${MAX_RESTARTS + 1} times`;
      for (const s of this.steps)
        if (!this.results.has(s.id)) this.results.set(s.id, failedCase(s, reason, null));
      return this.finish(null);
    }
    this.launch();
  }
}

function failedCase(step: PlanStep, reason: string, fault: FaultInfo | null): CaseResult {
  return {
    id: step.id,
    group: step.group,
    title: step.title,
    pass: false,
    figures: [],
    reason,
    fault,
    divergence: null,
    trace: null,
    ms: 0,
  };
}

/** One worker's life: the phase it is in, the case and the last call it told, the backstop timer. */
class Attempt {
  private phase: Phase = 'start';
  private phaseAt: number;
  private current: string | null = null;
  private last: { process: number; t: number; event: string } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private dead = false;
  /** When the explorer's budget runs out (runner clock), once it has started. */
  private exploreEnd = Infinity;
  private readonly worker: WorkerHandle;

  constructor(private readonly run: GradeRun) {
    this.phaseAt = run.opts.clock();
    this.worker = run.opts.spawn({
      message: (m) => {
        if (!this.dead) this.onMessage(m);
      },
      died: (reason) => {
        if (!this.dead) this.onDied(reason);
      },
    });
    this.arm(run.startMs, () => ({
      kind: 'load',
      message: `the grader's worker did not start within ${run.startMs} ms`,
    }));
  }

  private onMessage(m: GradeProgress): void {
    const { opts } = this.run;
    switch (m.kind) {
      case 'ready':
        this.enter('load');
        this.arm(this.run.startMs, () => ({ kind: 'load', message: 'the grader did not start' }));
        return this.postRequest();
      case 'loading':
        return this.arm(this.run.loadMs + BACKSTOP_MS, () => this.runaway());
      case 'loaded':
        this.disarm();
        return this.enter('cases');
      case 'load-error':
        this.stop();
        return this.run.finish(m.fault);
      case 'start':
        return this.onStart(m.id);
      case 'call':
        this.last = { process: m.process, t: m.t, event: m.event };
        // A call is interrupted by the wall after stepMs and retried once: the backstop waits longer.
        if (this.phase !== 'explore') this.arm(2 * opts.stepMs + BACKSTOP_MS, () => this.runaway());
        else this.rearmExplore();
        return;
      case 'alive':
        if (this.phase === 'explore') this.rearmExplore();
        return;
      case 'case':
        this.disarm();
        return this.run.record(m.result);
      case 'done':
        this.stop();
        return this.run.finish(null);
    }
  }

  private postRequest(): void {
    const { opts } = this.run;
    this.worker.post({
      kind: 'grade',
      algorithm: opts.algorithm,
      source: opts.source,
      subject: opts.subject,
      exploreMs: opts.exploreMs,
      stepMs: opts.stepMs,
      loadMs: this.run.loadMs,
      memoryMb: opts.memoryMb,
      skip: [...this.run.results.keys()],
    });
  }

  private onStart(id: string): void {
    const { opts } = this.run;
    this.current = id;
    this.last = null;
    if (id !== 'explore') return this.disarm();
    this.enter('explore');
    this.exploreEnd = opts.clock() + opts.exploreMs;
    // The explorer's own work between her calls is bounded by its budget, not by her step limit.
    this.arm(opts.exploreMs + 2 * opts.stepMs + BACKSTOP_MS, () => this.runaway());
  }

  private onDied(reason: { memory: boolean; message: string }): void {
    this.kill(
      // Her memory is the engine's, bounded inside the wall: a worker out of memory is the grader's own.
      reason.memory
        ? {
            kind: 'throw',
            message:
              "the grader's worker ran out of memory (its own, not the module's); the last call seen",
            ...this.where(),
          }
        : { kind: 'throw', message: `the sandbox stopped: ${reason.message}`, ...this.where() },
    );
  }

  private where(): { process?: number; t?: number; event?: string } {
    const last = this.last;
    return last ? { process: last.process, t: last.t, event: last.event } : {};
  }

  private enter(next: Phase): void {
    const now = this.run.opts.clock();
    this.run.addPhase(this.phase, now - this.phaseAt);
    this.phase = next;
    this.phaseAt = now;
  }

  private arm(ms: number, why: () => FaultInfo): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kill(why()), ms);
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The worker is done with (finished, failed to load, or stopped): no timer, no more news. */
  private stop(): void {
    this.dead = true;
    this.disarm();
    this.worker.terminate();
    this.enter(this.phase);
  }

  private kill(fault: FaultInfo): void {
    if (this.dead) return;
    this.stop();
    if (this.phase === 'start' || this.phase === 'load' || this.current === null)
      return this.run.finish(
        this.phase === 'start' ? { kind: 'load', message: fault.message } : fault,
      );
    this.run.stoppedIn(this.current, fault);
  }

  // In the explorer, news from the worker (a call, its clock) shows it is not wedged: the
  // backstop counts from the last news, never before the budget's end.
  private rearmExplore(): void {
    const { opts } = this.run;
    this.arm(Math.max(0, this.exploreEnd - opts.clock()) + 2 * opts.stepMs + BACKSTOP_MS, () =>
      this.runaway(),
    );
  }

  private runaway(): FaultInfo {
    if (this.phase === 'load')
      return {
        kind: 'runaway',
        message: `the module did not finish loading within ${this.run.loadMs} ms (an endless loop at the top level?); the sandbox was stopped`,
      };
    return {
      kind: 'runaway',
      message: `the sandbox stopped answering${this.phase === 'explore' ? ' in the explorer' : ''} (a call past ${2 * this.run.opts.stepMs} ms that the engine did not interrupt); it was stopped; the last call seen`,
      ...this.where(),
    };
  }
}

function label(phase: Phase): string {
  return {
    start: 'start the sandbox',
    load: 'load the module',
    cases: 'scenario cases',
    explore: 'explorer',
  }[phase];
}
