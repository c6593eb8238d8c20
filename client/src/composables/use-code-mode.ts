// Code mode (docs/STUDENT_MODULES.md): the editor's text, kept per lab and algorithm in this
// browser; "Run" makes her module this tab's process (a SandboxHost in a Web Worker replaces
// the lab's algorithm, the relay is told `mode: code`), "Back to the reference" undoes it, and
// "Grade" runs the grader in another worker and shows its report, the failing runs stored for
// the replay page and the summary sent to the relay for the class board.
import { onScopeDispose, ref, shallowRef, watch, type Ref } from 'vue';
import type { AlgorithmName } from '@shared/algorithms/algorithm.ts';
import type { GradeReport } from '@shared/grader/grading.ts';
import { runGrade, type SpawnWorker } from '@shared/grader/grade-runner.ts';
import { checkSource } from '@shared/grader/module-check.ts';
import { SandboxHost, type SandboxStatus, type SpawnSandbox } from '@shared/grader/sandbox-host.ts';
import type { FaultInfo } from '@shared/grader/module-fault.ts';
import { MAX_GRADE_TRACE_CHARS, type GradeSummary } from '@shared/protocol/grade-summary.ts';
import type { LabProcess } from '@shared/lab-client/lab-client.ts';
import type { ProcessConfig } from '@shared/protocol/frames.ts';
import { TEMPLATES } from '../utils/code-templates.ts';
import { storeTrace } from '../utils/stored-traces.ts';

/** Each call into her module may take this long in the live lab before the sandbox is replaced (ms). */
export const LIVE_STEP_MS = 500;
/** The grader's explorer budget in the tab (ms), and each call's bound there. */
const GRADE_EXPLORE_MS = 3000;
const GRADE_STEP_MS = 1000;
/** Her module's memory in the tab's grader, as npm run grade's default (the wall's engine limit). */
const GRADE_MEMORY_MB = 256;
const MAX_FAULTS = 50;

export type CodeStatus = 'reference' | SandboxStatus;

export interface ShownFault extends FaultInfo {
  n: number;
}

const spawnSandbox: SpawnSandbox = (on) => {
  const w = new Worker(new URL('../workers/sandbox-worker.ts', import.meta.url), {
    type: 'module',
  });
  w.onmessage = (e) => on.message(e.data);
  w.onerror = (e) => {
    e.preventDefault();
    on.died(e.message || 'the worker failed');
  };
  return { post: (m) => w.postMessage(m), terminate: () => w.terminate() };
};

const spawnGrader: SpawnWorker = (on) => {
  const w = new Worker(new URL('../workers/grade-worker.ts', import.meta.url), { type: 'module' });
  w.onmessage = (e) => on.message(e.data);
  w.onerror = (e) => {
    e.preventDefault();
    on.died({ memory: false, message: e.message || 'the worker failed' });
  };
  return { post: (m) => w.postMessage(m), terminate: () => w.terminate() };
};

const storageKey = (lab: string, algorithm: AlgorithmName) =>
  `election-lab:code:${lab}:${algorithm}`;

export function useCodeMode(opts: {
  lab: string;
  process: LabProcess;
  config: Ref<ProcessConfig | null>;
}) {
  const { source, algorithm, loadTemplate } = useSavedSource(opts.lab, opts.config);
  const status = ref<CodeStatus>('reference');
  const faults = shallowRef<ShownFault[]>([]);
  const notice = ref<string | null>(null);
  let counter = 0;

  function fault(f: FaultInfo): void {
    faults.value = [{ ...f, n: ++counter }, ...faults.value].slice(0, MAX_FAULTS);
  }

  /** Her module becomes this process (from its start); a module that does not load leaves the reference running. */
  function run(): void {
    const problems = checkSource(source.value);
    notice.value = null;
    if (problems.length > 0) {
      const p = problems[0]!;
      return fault({ kind: 'load', message: p.message, line: p.line, column: p.column });
    }
    const text = source.value;
    faults.value = [];
    opts.process.setMode(
      'code',
      (config, io, listener) =>
        new SandboxHost({
          spawn: spawnSandbox,
          source: text,
          algorithm: config.algorithm,
          seed: config.seed,
          stepMs: LIVE_STEP_MS,
          io,
          listener,
          onFault(f) {
            fault(f);
            if (f.kind === 'load' || f.kind === 'shape') {
              notice.value =
                'Your module did not start, so the lab’s own algorithm runs this process again.';
              backToReference();
            }
          },
          onStatus(s) {
            if (status.value !== 'reference') status.value = s;
          },
        }),
    );
    status.value = 'loading';
  }

  function backToReference(): void {
    status.value = 'reference';
    opts.process.setMode('auto');
  }

  return {
    source,
    algorithm,
    status,
    faults,
    notice,
    ...useModuleGrade(opts.process, algorithm, source),
    run,
    backToReference,
    loadTemplate,
  };
}

/** The editor's text, saved per lab and algorithm in this browser (400 ms after the last key). */
function useSavedSource(lab: string, config: Ref<ProcessConfig | null>) {
  const source = ref('');
  const algorithm = ref<AlgorithmName | null>(null);
  let saveTimer: ReturnType<typeof setTimeout> | null = null;
  // The lab's algorithm arrives with `joined`: then the saved text, or the template.
  watch(
    () => config.value?.algorithm ?? null,
    (name) => {
      if (!name || name === algorithm.value) return;
      algorithm.value = name;
      source.value = localStorage.getItem(storageKey(lab, name)) ?? TEMPLATES[name];
    },
    { immediate: true },
  );
  watch(source, (text) => {
    if (saveTimer !== null) clearTimeout(saveTimer);
    saveTimer = setTimeout(
      () => algorithm.value && localStorage.setItem(storageKey(lab, algorithm.value), text),
      400,
    );
  });
  onScopeDispose(() => {
    if (saveTimer !== null) clearTimeout(saveTimer);
  });
  function loadTemplate(): void {
    if (algorithm.value) source.value = TEMPLATES[algorithm.value];
  }
  return { source, algorithm, loadTemplate };
}

/** "Grade": the grader in a worker; its failing runs stored for replay, its summary sent to the relay. */
function useModuleGrade(
  process: LabProcess,
  algorithm: Ref<AlgorithmName | null>,
  source: Ref<string>,
) {
  const grading = ref(false);
  const gradeDone = ref(0);
  const report = shallowRef<GradeReport | null>(null);
  /** Case id -> key of its stored trace (the replay page's `?stored=`). */
  const traces = shallowRef<Record<string, string>>({});

  async function grade(): Promise<void> {
    if (!algorithm.value || grading.value) return;
    grading.value = true;
    gradeDone.value = 0;
    report.value = null;
    try {
      const r = await runGrade({
        spawn: spawnGrader,
        algorithm: algorithm.value,
        source: source.value,
        subject: 'your module',
        exploreMs: GRADE_EXPLORE_MS,
        stepMs: GRADE_STEP_MS,
        memoryMb: GRADE_MEMORY_MB,
        clock: () => performance.now(),
        onCase: () => gradeDone.value++,
      });
      const stored: Record<string, string> = {};
      for (const c of r.cases) {
        const key = c.trace ? storeTrace(c.trace) : null;
        if (key) stored[c.id] = key;
      }
      traces.value = stored;
      report.value = r;
      process.sendGrade(summarize(r), boardTrace(r));
    } finally {
      grading.value = false;
    }
  }
  return { grading, gradeDone, report, traces, grade };
}

/** The grade as the relay keeps it for the class board. */
export function summarize(r: GradeReport): GradeSummary {
  const failing = r.cases.find((c) => !c.pass);
  const reason = r.loadError ? `does not load: ${r.loadError.message}` : (failing?.reason ?? '');
  return {
    algorithm: r.algorithm,
    pass: r.pass,
    passed: r.cases.filter((c) => c.pass).length,
    total: r.cases.length,
    failing: r.loadError
      ? { id: 'load', title: 'the module loads', reason: reason.slice(0, 400) }
      : failing
        ? {
            id: failing.id.slice(0, 40),
            title: failing.title.slice(0, 200),
            reason: reason.slice(0, 400),
          }
        : null,
  };
}

/** The failing run the board can open: the explorer's shortest schedule if it found one, else the first failing run that fits a frame. */
function boardTrace(r: GradeReport): string | undefined {
  const fits = r.cases.filter((c) => !c.pass && c.trace && c.trace.length <= MAX_GRADE_TRACE_CHARS);
  return (fits.find((c) => c.id === 'explore') ?? fits[0])?.trace ?? undefined;
}
