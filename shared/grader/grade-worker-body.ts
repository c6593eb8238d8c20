// The grader's worker side, the same in a Node worker_thread (the command line) and a Web Worker
// (the tab's "Grade"): it loads her module's text behind the wall (student-wall.ts: QuickJS, where
// each call is bounded in time and memory on its own) and grades it case by case, telling its
// runner (grade-runner.ts) as it goes. Her code never runs in this realm: the verdict is computed
// here from what her calls return, and nothing else of hers reaches the runner.
import type { Algorithm, AlgorithmName, ProcessId } from '../algorithms/algorithm.ts';
import { getAlgorithm } from '../algorithms/registry.ts';
import { gradeAll } from './grading.ts';
import type { CaseResult } from './case-result.ts';
import { checkSource } from './module-check.ts';
import { ModuleFault, WallFault, type FaultInfo } from './module-fault.ts';
import { studentAlgorithm, type Beacon, type Boxed, type WireProblem } from './student.ts';
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
  const { post } = host;
  const skip = new Set(req.skip);
  const common = {
    algorithm: req.algorithm,
    subjectName: req.subject,
    exploreMs: req.exploreMs,
    skip,
    onStart: (id: string) => post({ kind: 'start', id }),
    onCase: (result: CaseResult) => post({ kind: 'case', result }),
  };
  if (req.source === null) {
    post({ kind: 'loaded' });
    const subject = getAlgorithm(req.algorithm);
    gradeAll({ ...common, subject, compare: false, clock: host.clock, wire: null });
    post({ kind: 'done' });
    return;
  }
  const loaded = await loadStudent(req, req.source, host);
  if (!loaded) return;
  const wire: WireProblem[] = [];
  const subjects = wrapStudent(req, loaded, wire, host);
  if (!subjects) return;
  gradeAll({ ...common, ...subjects, compare: true, clock: aliveClock(host), wire });
  loaded.dispose();
  post({ kind: 'done' });
}

/** Her module checked and loaded behind the wall; null (a `load-error` told) when it does not load. */
async function loadStudent(
  req: GradeRequest,
  source: string,
  { post, clock }: WorkerHost,
): Promise<WalledModule | null> {
  const problems = checkSource(source);
  if (problems.length > 0) {
    const p = problems[0]!;
    post({
      kind: 'load-error',
      fault: { kind: 'load', message: p.message, line: p.line, column: p.column },
    });
    return null;
  }
  await loadEngine(req.memoryMb);
  post({ kind: 'loading' });
  let loaded: WalledModule;
  try {
    loaded = await openWalled(source, {
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
    return null;
  }
  post({ kind: 'loaded' });
  return loaded;
}

/**
 * Her exports as the cases' subject (every call told, states checked, wire problems kept) and the
 * explorer's (calls told at most every EXPLORER_CALL_EVERY_MS); null (a `load-error` told) when
 * they do not meet the contract.
 */
function wrapStudent(
  req: GradeRequest,
  loaded: WalledModule,
  wire: WireProblem[],
  { post, clock }: WorkerHost,
): { subject: Algorithm<Boxed>; exploreSubject: Algorithm<Boxed> } | null {
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
  try {
    // The wall bounds each call's time and copies every state across as JSON: no stepMs or copyState here.
    const common = { algorithm: req.algorithm, url: loaded.url };
    const subject = studentAlgorithm(loaded.exports, {
      ...common,
      checkState: true,
      beacon: precise,
      onWire: (p) => void (wire.length < 50 && wire.push(p)),
    });
    return {
      subject,
      exploreSubject: studentAlgorithm(loaded.exports, { ...common, beacon: coarse }),
    };
  } catch (err) {
    post({
      kind: 'load-error',
      fault: err instanceof ModuleFault ? err.info : { kind: 'load', message: String(err) },
    });
    return null;
  }
}

/** The grader's clock, which also tells the runner it is alive (at most every ALIVE_EVERY_MS). */
function aliveClock({ post, clock }: WorkerHost): () => number {
  let lastAlive = clock();
  return () => {
    const now = clock();
    if (now - lastAlive >= ALIVE_EVERY_MS) {
      lastAlive = now;
      post({ kind: 'alive' });
    }
    return now;
  };
}
