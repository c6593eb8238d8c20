// The tab's side of code mode: a student's module runs as this tab's process, in a sandbox worker
// (sandbox-worker-body.ts). This host keeps what ProcessHost keeps, through the same RunnerShell
// (real timers, the report, the inbox and outbox for the page) and hands the worker one event at a time. A call the wall stops
// (past `stepMs`, twice) restarts her process afresh in the same worker (as after a crash); a
// worker that stops answering past the wall's bounds is terminated and replaced; either is
// reported to the page, and three in a minute stop her module until she runs it again. Whatever
// the worker answers is checked again here before anything reaches the relay: sends only to ids
// of the lab, JSON of a known type that the lab's bots understand, timers with names and delays,
// reports that are reports.
import type {
  AlgorithmConfig,
  AlgorithmEvent,
  AlgorithmName,
  Effect,
  Message,
  ProcessId,
  Report,
} from '../algorithms/algorithm.ts';
import { ReportSchema } from '../protocol/payloads.ts';
import type { TimerView } from '../sim/named-timers.ts';
import {
  RunnerShell,
  type HostEvent,
  type HostIO,
  type ProcessRunner,
} from '../sim/process-host.ts';
import type { SandboxReply, SandboxRequest } from './sandbox-worker-body.ts';
import { checkEffects, HOST_DETECTOR, maxSendsPerStep, wireProblem } from './effect-check.ts';
import { describeAlgorithmEvent, type FaultInfo } from './module-fault.ts';

interface SandboxWorker {
  post(m: SandboxRequest): void;
  terminate(): void;
}

export type SpawnSandbox = (on: {
  message(m: SandboxReply): void;
  died(message: string): void;
}) => SandboxWorker;

export type SandboxStatus = 'loading' | 'running' | 'stopped';

interface SandboxHostOptions {
  spawn: SpawnSandbox;
  source: string;
  algorithm: AlgorithmName;
  /** The lab's seed: her ctx.random is seeded from it and her id, as a bot's would be. */
  seed: number;
  /** Each call may take this long (ms): the wall interrupts it, runs it once more, then calls it a runaway. */
  stepMs: number;
  /** Her module's memory limit (MB), everything it allocates. */
  memoryMb?: number;
  io: Omit<HostIO, 'random'>;
  listener?: (e: HostEvent) => void;
  /** Every fault: an exception, effects refused, a call stopped, a module that does not load. */
  onFault(f: FaultInfo): void;
  onStatus?(s: SandboxStatus): void;
}

/** Events waiting for the worker at most; beyond, the oldest are dropped (her process falls behind). */
const MAX_QUEUE = 500;
const RUNAWAYS_BEFORE_STOP = 3;
const RUNAWAY_WINDOW_MS = 60_000;
const DETECTOR_TYPES = ['HEARTBEAT', 'PING', 'PONG'];
const MEMORY_MB = 256;
/** The worker must answer within the wall's bounds (two tries of stepMs) and this much more, or it is replaced. */
const BACKSTOP_MS = 3000;

export class SandboxHost implements ProcessRunner {
  private worker: SandboxWorker | null = null;
  private config: AlgorithmConfig | null = null;
  private status: SandboxStatus = 'stopped';
  private readonly shell: RunnerShell;
  private last: Report | null = null;
  private queue: AlgorithmEvent[] = [];
  /** The event the worker is working on (null: idle), and its watchdog. */
  private busy: AlgorithmEvent | 'init' | null = null;
  private watchdog: ReturnType<typeof setTimeout> | null = null;
  private types = new Set<string>();
  private runaways: number[] = [];
  private generation = 0;
  /** Her process's run: bumped at every start, so a timer of an earlier run never fires into a later one. */
  private epoch = 0;

  constructor(private readonly opts: SandboxHostOptions) {
    this.shell = new RunnerShell(opts.io, opts.listener);
  }

  get isRunning(): boolean {
    return this.status !== 'stopped';
  }

  get report(): Report | null {
    return this.last;
  }

  get name(): string {
    return this.opts.algorithm;
  }

  timerList(): TimerView[] {
    return this.shell.timers.list();
  }

  start(config: AlgorithmConfig): void {
    this.stop();
    this.config = config;
    this.shell.started(config);
    this.launch();
  }

  stop(): void {
    this.generation++;
    this.clearWatchdog();
    this.worker?.terminate();
    this.worker = null;
    this.queue = [];
    this.busy = null;
    this.shell.stopped(this.status !== 'stopped');
    this.setStatus('stopped');
  }

  deliver(from: ProcessId, message: Message): void {
    this.enqueue({ kind: 'message', from, message });
  }

  elect(): void {
    this.enqueue({ kind: 'elect' });
  }

  private setStatus(s: SandboxStatus): void {
    if (this.status === s) return;
    this.status = s;
    this.opts.onStatus?.(s);
  }

  /** A fresh worker, her module loaded and started from init (a first start, or after a runaway). */
  private launch(): void {
    const generation = ++this.generation;
    this.worker = this.opts.spawn({
      message: (m) => generation === this.generation && this.onReply(m),
      died: (message) =>
        generation === this.generation && this.runaway(`the sandbox stopped: ${message}`),
    });
    this.load();
  }

  /** Her module loaded into the worker (a fresh runtime behind the wall) and started from init. */
  private load(): void {
    const config = this.config!;
    this.epoch++;
    this.setStatus('loading');
    this.busy = 'init';
    this.arm();
    this.worker?.post({
      kind: 'load',
      source: this.opts.source,
      algorithm: this.opts.algorithm,
      config,
      seed: this.opts.seed,
      now: this.opts.io.now(),
      stepMs: this.opts.stepMs,
      memoryMb: this.opts.memoryMb ?? MEMORY_MB,
    });
  }

  private enqueue(e: AlgorithmEvent): void {
    if (this.status === 'stopped') return;
    this.queue.push(e);
    if (this.queue.length > MAX_QUEUE) {
      this.queue.splice(0, this.queue.length - MAX_QUEUE);
      this.opts.onFault({
        kind: 'slow',
        message: `more than ${MAX_QUEUE} events waiting for your module: the oldest were dropped`,
        process: this.config?.self,
      });
    }
    this.pump();
  }

  private pump(): void {
    if (this.busy !== null || this.status !== 'running' || !this.worker) return;
    const e = this.queue.shift();
    if (!e) return;
    this.busy = e;
    this.shell.received(e);
    this.arm();
    this.worker.post({ kind: 'event', event: e, now: this.opts.io.now() });
  }

  private arm(): void {
    this.clearWatchdog();
    // Loading includes compiling her module and the worker's own start: give it longer.
    const ms =
      this.busy === 'init'
        ? Math.max(5000, 4 * this.opts.stepMs) + BACKSTOP_MS
        : 2 * this.opts.stepMs + BACKSTOP_MS;
    this.watchdog = setTimeout(() => this.runaway(null), ms);
  }

  private clearWatchdog(): void {
    if (this.watchdog !== null) clearTimeout(this.watchdog);
    this.watchdog = null;
  }

  private onReply(m: SandboxReply): void {
    switch (m.kind) {
      case 'ready':
        return;
      case 'load-error':
        this.opts.onFault({ ...m.fault, process: this.config?.self });
        return this.stop();
      case 'loaded':
        this.types = new Set([
          ...m.messageTypes,
          ...(HOST_DETECTOR.includes(this.opts.algorithm) ? DETECTOR_TYPES : []),
        ]);
        this.clearWatchdog();
        this.busy = null;
        this.setStatus('running');
        this.apply(m.effects, 'init');
        return this.pump();
      case 'stepped':
      case 'fault': {
        // A runaway the wall stopped: her process starts afresh, in the same worker (the wall held).
        if (m.kind === 'fault' && m.fault.kind === 'runaway')
          return this.runaway(m.fault.message, true);
        const event = this.busy;
        this.clearWatchdog();
        this.busy = null;
        if (m.kind === 'fault') this.opts.onFault(m.fault);
        else
          this.apply(
            m.effects,
            event === null || event === 'init' ? 'init' : describeAlgorithmEvent(event),
          );
        return this.pump();
      }
    }
  }

  /** A call did not return in time (told by the wall, or the worker stopped answering, or died): replace the worker and start her process afresh. */
  private runaway(died: string | null, wallHeld = false): void {
    const event = this.busy;
    const now = this.opts.io.now();
    this.opts.onFault({
      kind: 'runaway',
      message: died
        ? `${died}: ${wallHeld ? 'your process started afresh' : 'the sandbox was replaced and your process started afresh'}`
        : event === 'init'
          ? `loading and init did not finish within ${Math.max(5000, 4 * this.opts.stepMs)} ms`
          : `the sandbox did not answer within ${2 * this.opts.stepMs + BACKSTOP_MS} ms: it was replaced and your process started afresh`,
      process: this.config?.self,
      t: now,
      event: event === null ? undefined : event === 'init' ? 'init' : describeAlgorithmEvent(event),
    });
    this.runaways = [...this.runaways.filter((t) => now - t < RUNAWAY_WINDOW_MS), now];
    const config = this.config;
    if (wallHeld && this.worker && config && this.runaways.length < RUNAWAYS_BEFORE_STOP) {
      // The worker is idle and sound (the wall stopped her call): only her process starts afresh.
      this.clearWatchdog();
      this.queue = [];
      this.busy = null;
      this.shell.stopped(true);
      this.setStatus('stopped');
      this.shell.started(config);
      return this.load();
    }
    this.stop();
    if (this.runaways.length >= RUNAWAYS_BEFORE_STOP || !config) {
      this.opts.onFault({
        kind: 'runaway',
        message: `stopped: ${this.runaways.length} runaways in a minute, each restarting your process. Fix the module and run it again`,
        process: config?.self,
      });
      return;
    }
    this.config = config;
    this.shell.started(config);
    this.launch();
  }

  /** Her effects, checked again (the worker is hers): what passes is carried out, what does not is told. */
  private apply(effects: Effect[], event: string): void {
    const config = this.config!;
    const fault = (message: string) =>
      this.opts.onFault({
        kind: 'effects',
        message,
        process: config.self,
        t: this.opts.io.now(),
        event,
      });
    if (!Array.isArray(effects)) return fault('the sandbox answered no effects');
    const rules = {
      self: config.self,
      ids: new Set(config.ids),
      types: this.types,
      reservedTypes: new Set<string>(),
      reservedTimers: false,
      maxSends: maxSendsPerStep(config.ids.length) + config.ids.length,
    };
    if (effects.filter((e) => e?.kind === 'send').length > rules.maxSends)
      return fault(`more than ${rules.maxSends} sends in one step: none sent`);
    for (const e of effects) {
      if (e?.kind === 'report') {
        const r = ReportSchema.safeParse(e.report);
        if (!r.success) fault('a report that is not one: not sent');
        else this.reportNow(r.data as Report);
        continue;
      }
      let checked: Effect;
      try {
        checked = checkEffects([e], rules)[0]!;
      } catch (err) {
        fault(`${(err as Error).message}: not carried out`);
        continue;
      }
      switch (checked.kind) {
        case 'send': {
          const problem = wireProblem(this.opts.algorithm, checked.message);
          if (problem) {
            fault(`not sent to ${checked.to}: the lab's bots would not understand it (${problem})`);
            break;
          }
          this.shell.send(checked.to, checked.message);
          break;
        }
        case 'set-timer': {
          const name = checked.name;
          const epoch = this.epoch;
          this.shell.timers.set(name, checked.after, () => {
            if (epoch === this.epoch) this.enqueue({ kind: 'timer', name });
          });
          break;
        }
        case 'cancel-timer': {
          this.shell.timers.cancel(checked.name);
          break;
        }
      }
    }
  }

  private reportNow(r: Report): void {
    this.last = r;
    this.shell.report(r);
  }
}
