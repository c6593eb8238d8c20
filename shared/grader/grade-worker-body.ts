// The grader's worker side, the same in a Node worker_thread (the command line) and a Web Worker
// (the tab's "Grade"): it loads her module's text behind the wall (student-wall.ts: QuickJS, where
// each call is bounded in time and memory on its own) and grades it case by case, telling its
// runner (grade-runner.ts) as it goes. Her code never runs in this realm: the verdict is computed
// here from what her calls return, and nothing else of hers reaches the runner.
import type { AlgorithmName, ProcessId } from '../algorithms/algorithm.ts';
import { getAlgorithm } from '../algorithms/registry.ts';
import { gradeAll } from './grading.ts';
import type { CaseResult } from './case-result.ts';
import { checkSource } from './module-check.ts';
import { ModuleFault, WallFault, type FaultInfo } from './module-fault.ts';
import { studentAlgorithm, type Beacon, type WireProblem } from './student.ts';
import { loadEngine, openWalled, type WalledModule } from './student-wall.ts';

export interface GradeRequest {
  kind: 'grade';
  algorithm: AlgorithmName;
  /** Her module's text; null grades the reference algorithm itself. */
  source: string | null;
  /** What the report calls it (a file name, "editor"). */
  subject: string;
  /** The explorer's budget, ms. */
  exploreMs: number;
  /** Each call into her code may take this long (ms). */
  stepMs: number;
  /** Her top-level code may take this long (ms). */
  loadMs: number;
  /** The engine's memory limit for her module (MB). */
  memoryMb: number;
  /** Case ids already graded by a worker that died: skipped. */
  skip: string[];
}

export type GradeProgress =
  /** The worker is up (its own code loaded). */
  | { kind: 'ready' }
  /** Loading her module: its top-level code runs now. */
  | { kind: 'loading' }
  | { kind: 'loaded' }
  | { kind: 'load-error'; fault: FaultInfo }
  /** A case (or 'wire', 'explore') starts. */
  | { kind: 'start'; id: string }
  /** A call into her code begins (before each in the cases; every so often in the explorer). */
  | { kind: 'call'; process: ProcessId; t: number; event: string }
  | { kind: 'case'; result: CaseResult }
  /** The grader's own work goes on (told from its clock, at most every ALIVE_EVERY_MS): not wedged. */
  | { kind: 'alive' }
  | { kind: 'done' };

interface WorkerHost {
  post(m: GradeProgress): void;
  clock(): number;
}

/** In the explorer, calls are told at most this often (ms): a message per call would slow it down. */
const EXPLORER_CALL_EVERY_MS = 50;
/**
 * The grader's own work (the explorer between her calls) tells the runner it is alive this often
 * (ms), from the clock it reads to keep its budgets: on a loaded machine the explorer's own work
 * can outlast the runner's backstop, and that is not her runaway (issue 26, "No false accusation").
 */
const ALIVE_EVERY_MS = 1000;

export async function runGradeRequest(req: GradeRequest, host: WorkerHost): Promise<void> {
  const { post, clock } = host;
  const skip = new Set(req.skip);
  if (req.source === null) {
    post({ kind: 'loaded' });
    gradeAll({
      algorithm: req.algorithm,
      subject: getAlgorithm(req.algorithm),
      compare: false,
      clock,
      subjectName: req.subject,
      exploreMs: req.exploreMs,
      wire: null,
      skip,
      onStart: (id) => post({ kind: 'start', id }),
      onCase: (result) => post({ kind: 'case', result }),
    });
    post({ kind: 'done' });
    return;
  }
  const problems = checkSource(req.source);
  if (problems.length > 0) {
    const p = problems[0]!;
    post({
      kind: 'load-error',
      fault: { kind: 'load', message: p.message, line: p.line, column: p.column },
    });
    return;
  }
  await loadEngine(req.memoryMb);
  post({ kind: 'loading' });
  let loaded: WalledModule;
  try {
    loaded = await openWalled(req.source, {
      memoryMb: req.memoryMb,
      stepMs: req.stepMs,
      loadMs: req.loadMs,
      clock,
    });
  } catch (err) {
    post({
      kind: 'load-error',
      fault:
        err instanceof WallFault
          ? err.info
          : { kind: 'load', message: `the module did not load: ${String(err)}` },
    });
    return;
  }
  post({ kind: 'loaded' });
  const precise: Beacon = {
    begin: (process, event, t) => post({ kind: 'call', process, t, event }),
    end() {},
  };
  let lastTold = -Infinity;
  const coarse: Beacon = {
    begin(process, event, t) {
      const now = clock();
      if (now - lastTold < EXPLORER_CALL_EVERY_MS) return;
      lastTold = now;
      post({ kind: 'call', process, t, event });
    },
    end() {},
  };
  const wire: WireProblem[] = [];
  let subject, exploreSubject;
  try {
    // The wall bounds each call's time and copies every state across as JSON: no stepMs or copyState here.
    const common = { algorithm: req.algorithm, url: loaded.url };
    subject = studentAlgorithm(loaded.exports, {
      ...common,
      checkState: true,
      beacon: precise,
      onWire: (p) => void (wire.length < 50 && wire.push(p)),
    });
    exploreSubject = studentAlgorithm(loaded.exports, { ...common, beacon: coarse });
  } catch (err) {
    post({
      kind: 'load-error',
      fault: err instanceof ModuleFault ? err.info : { kind: 'load', message: String(err) },
    });
    return;
  }
  let lastAlive = clock();
  const ticking = () => {
    const now = clock();
    if (now - lastAlive >= ALIVE_EVERY_MS) {
      lastAlive = now;
      post({ kind: 'alive' });
    }
    return now;
  };
  gradeAll({
    algorithm: req.algorithm,
    subject,
    exploreSubject,
    compare: true,
    clock: ticking,
    subjectName: req.subject,
    exploreMs: req.exploreMs,
    wire,
    skip,
    onStart: (id) => post({ kind: 'start', id }),
    onCase: (result) => post({ kind: 'case', result }),
  });
  loaded.dispose();
  post({ kind: 'done' });
}
