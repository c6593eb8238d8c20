// Runs one pure algorithm for real: executes its effects with a host-supplied scheduler and
// transport. The browser tab, the headless bot, the relay's server-side bots and the tests all
// drive an algorithm through this one class, so they cannot drift apart.
import type {
  AlgorithmConfig,
  AlgorithmEvent,
  Effect,
  Message,
  ProcessId,
  Report,
  AnyAlgorithm,
} from '../algorithms/algorithm.ts';
import type { ProcessConfig } from '../protocol/frames.ts';
import { execute, type EffectHandlers } from './executor.ts';
import { NamedTimers, type TimerView } from './named-timers.ts';
import type { Random } from './rng.ts';

/** An exception from the algorithm, caught by the host: what it said, and the event that caused it. */
export interface HostFault {
  error: string;
  /** `init`, `message:<TYPE>`, `timer:<name>` or `elect`. */
  event: string;
  /** False when the host gave up restarting (it threw again at once too often). */
  restarted: boolean;
}

/** A process that throws this often within FAULT_WINDOW_MS is stopped instead of restarted. */
export const MAX_FAULTS = 3;
export const FAULT_WINDOW_MS = 10_000;

export interface HostIO {
  /** The algorithm threw (the host restarted it from scratch, or gave up): tell whoever records it. */
  fault?(fault: HostFault): void;
  send(to: ProcessId, message: Message): void;
  report(report: Report): void;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  now(): number;
  random: Random;
}

/** What happened, for views that show an inbox, an outbox and a log. */
export type HostEvent =
  | { kind: 'in'; event: AlgorithmEvent }
  | { kind: 'out'; to: ProcessId; message: Message }
  | { kind: 'report'; report: Report }
  | { kind: 'started'; config: AlgorithmConfig }
  | { kind: 'stopped' }
  | { kind: 'fault'; fault: HostFault };

/**
 * What runs one process for its owner (LabProcess and the tab's views): ProcessHost here, or the
 * sandbox that runs a student's module in a worker (shared/grader/sandbox-host.ts).
 */
export interface ProcessRunner {
  readonly isRunning: boolean;
  readonly report: Report | null;
  readonly name: string;
  timerList(): TimerView[];
  start(config: AlgorithmConfig): void;
  stop(): void;
  deliver(from: ProcessId, message: Message): void;
  elect(): void;
  /** The instructor paused the process (SIGSTOP): freeze it until `resume`. A runner without them is held by the relay alone. */
  pause?(): void;
  resume?(): void;
}

/**
 * The skeleton every ProcessRunner shares (ProcessHost, hand mode's HandRunner, code mode's
 * SandboxHost): the process's named timers on the host's clock, and the one way out, to the host
 * and to the views that show an inbox, an outbox and a log. What a runner decides stays its own.
 */
export class RunnerShell {
  readonly timers: NamedTimers;

  constructor(
    private readonly io: Omit<HostIO, 'random'>,
    private readonly listener?: (e: HostEvent) => void,
  ) {
    this.timers = new NamedTimers(io);
  }

  /** An event reached the process (shown in its inbox). */
  received(event: AlgorithmEvent): void {
    this.listener?.({ kind: 'in', event });
  }

  send(to: ProcessId, message: Message): void {
    this.listener?.({ kind: 'out', to, message });
    this.io.send(to, message);
  }

  report(report: Report): void {
    this.listener?.({ kind: 'report', report });
    this.io.report(report);
  }

  started(config: AlgorithmConfig): void {
    this.listener?.({ kind: 'started', config });
  }

  /** Its timers go; the views hear of it if it was running. */
  stopped(wasRunning: boolean): void {
    this.timers.clear();
    if (wasRunning) this.listener?.({ kind: 'stopped' });
  }

  faulted(fault: HostFault): void {
    this.listener?.({ kind: 'fault', fault });
    this.io.fault?.(fault);
  }
}

export class ProcessHost implements ProcessRunner {
  private state: unknown = null;
  private running = false;
  private readonly shell: RunnerShell;
  private last: Report | null = null;
  private config: AlgorithmConfig | null = null;
  /** When the algorithm threw lately (io.now()), to stop a process that throws on every start. */
  private faults: number[] = [];
  /** Paused by the instructor: timers frozen, no event handled. */
  private paused = false;

  constructor(
    private readonly algorithm: AnyAlgorithm,
    private readonly io: HostIO,
    listener?: (e: HostEvent) => void,
  ) {
    this.shell = new RunnerShell(io, listener);
  }

  get isRunning(): boolean {
    return this.running;
  }

  get report(): Report | null {
    return this.last;
  }

  get name(): string {
    return this.algorithm.name;
  }

  /** Timers currently set, soonest first. */
  timerList(): TimerView[] {
    return this.shell.timers.list();
  }

  /** Start, or restart from scratch (state and timers are dropped first). */
  start(config: AlgorithmConfig): void {
    this.stop();
    this.config = config;
    this.running = true;
    this.shell.started(config);
    let out;
    try {
      out = this.algorithm.init(config, this.ctx());
    } catch (err) {
      return this.contain(err, 'init');
    }
    this.state = out.state;
    this.apply(out.effects);
  }

  /**
   * The algorithm threw: whatever the host runs (a tab, a bot, the relay's own bots), the
   * exception stops here. It is reported, and the process is restarted from scratch, as a crash
   * and a recovery; one that keeps throwing at once is stopped.
   */
  private contain(err: unknown, event: string): void {
    const now = this.io.now();
    this.faults = this.faults.filter((t) => now - t < FAULT_WINDOW_MS);
    this.faults.push(now);
    const restarted = this.faults.length < MAX_FAULTS && this.config !== null;
    const message = err instanceof Error ? err.message : String(err);
    const fault: HostFault = {
      error: message.slice(0, 200) || 'exception',
      event: event.slice(0, 64),
      restarted,
    };
    const config = this.config;
    this.stop();
    this.shell.faulted(fault);
    if (restarted && config) this.start(config);
  }

  /** Crash or leave: the algorithm's state and every timer go. */
  stop(): void {
    this.paused = false;
    this.shell.stopped(this.running);
    this.running = false;
    this.state = null;
  }

  /** SIGSTOP: timers stand still with their time left; events are not handled (the relay holds its messages). */
  pause(): void {
    this.paused = true;
    this.shell.timers.freeze();
  }

  /** SIGCONT: timers run on from where they stopped. */
  resume(): void {
    this.paused = false;
    this.shell.timers.thaw();
  }

  deliver(from: ProcessId, message: Message): void {
    this.feed({ kind: 'message', from, message });
  }

  elect(): void {
    this.feed({ kind: 'elect' });
  }

  private feed(event: AlgorithmEvent): void {
    if (!this.running || this.paused) return;
    this.shell.received(event);
    let out;
    try {
      out = this.algorithm.step(this.state, event, this.ctx());
      if (!out || !Array.isArray(out.effects))
        throw new Error('step returned no { state, effects }');
    } catch (err) {
      return this.contain(err, eventLabel(event));
    }
    this.state = out.state;
    this.apply(out.effects);
  }

  private ctx() {
    return { now: this.io.now(), random: this.io.random };
  }

  private apply(effects: Effect[]): void {
    execute(this, effects, ProcessHost.effects);
  }

  /** What the effects mean here (shared/sim/executor.ts): the host's transport and real timers. */
  private static readonly effects: EffectHandlers<ProcessHost> = {
    send(h, to, message) {
      h.shell.send(to, message);
    },
    setTimer(h, name, after) {
      h.shell.timers.set(name, after, () => h.feed({ kind: 'timer', name }));
    },
    cancelTimer(h, name) {
      h.shell.timers.cancel(name);
    },
    report(h, report) {
      h.last = report;
      h.shell.report(report);
    },
  };
}

function eventLabel(e: AlgorithmEvent): string {
  if (e.kind === 'message')
    return `message:${typeof e.message?.type === 'string' ? e.message.type : '?'}`;
  if (e.kind === 'timer') return `timer:${e.name}`;
  return e.kind;
}

/** The algorithm's view of a lab's process config. */
export function algorithmConfig(config: ProcessConfig, self: ProcessId): AlgorithmConfig {
  return {
    self,
    ids: [...config.ids].sort((a, b) => a - b),
    ring: config.ring.length ? config.ring : [...config.ids].sort((a, b) => a - b),
    timing: config.timing,
    detector: config.detector,
    options: config.options,
    ...(config.coordinator !== undefined ? { initialCoordinator: config.coordinator } : {}),
  };
}
