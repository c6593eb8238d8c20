// A client of the relay for processes and observers, the same in Node (bots, tests) and the
// browser. The transport is a `ChannelFactory` (channels.ts: socket.io or a plain WebSocket,
// re-exported here for the client's users). A process joins a lab, runs the lab's algorithm in
// a ProcessHost with real timers, sends and reports through the relay, obeys crashed /
// recovered / restart / elect, and after a dropped connection rejoins with its resume token.
import type { Channel, ChannelFactory } from './channels.ts';
import type {
  AlgorithmName,
  AnyAlgorithm,
  Message,
  ProcessId,
  Report,
} from '../algorithms/algorithm.ts';
import { withWorkload } from '../work/with-work.ts';
import { getAlgorithm } from '../algorithms/registry.ts';
import type { ErrorFrame } from '../protocol/errors.ts';
import {
  algorithmConfig,
  ProcessHost,
  type HostEvent,
  type HostIO,
  type ProcessRunner,
} from '../sim/process-host.ts';
import type { ClientFrame, ProcessConfig, ProcessKind, ServerFrame } from '../protocol/frames.ts';
import type { GradeSummary, ProcessMode } from '../protocol/grade-summary.ts';
import { handFrames } from '../protocol/class-play.ts';
import { DEFAULT_PLAY, type Play } from '../protocol/lab-config.ts';
import { createRng, deriveSeed } from '../sim/rng.ts';

export {
  socketIoChannel,
  wsChannel,
  type ChannelFactory,
  type WebSocketConstructor,
} from './channels.ts';

const JOIN_REF = 'lab-client-join';
/** Tells the relay's verdict on a lesson answer apart from errors about other frames. */
const ANSWER_REF = 'lab-client-answer';

/** `paused`: the instructor paused it (SIGSTOP); its runner is frozen until resumed. */
export type LabProcessStatus =
  'connecting' | 'up' | 'paused' | 'crashed' | 'left' | 'refused' | 'closed';

export type LabProcessEvent =
  | { kind: 'status'; status: LabProcessStatus }
  | { kind: 'joined'; id: ProcessId; config: ProcessConfig }
  | { kind: 'error'; error: ErrorFrame }
  | { kind: 'host'; event: HostEvent }
  | { kind: 'deliver'; from: ProcessId; msg: number; message: Message }
  /** The lab's play settings (on join and when the instructor changes them): hand mode, hints. */
  | { kind: 'play'; play: Play }
  /** The relay said the lab lives elsewhere (a cluster); followed at once when `follow` is set. */
  | { kind: 'moved'; url: string }
  /** What became of a lesson answer (`sendAnswer`): stored (`answered`), or refused with why. */
  | { kind: 'answer'; step: number; value: number | null; error: ErrorFrame | null };

interface LabProcessOptions {
  channel: ChannelFactory;
  lab: string;
  /** The id to claim; absent: the next free one. */
  id?: ProcessId;
  name?: string;
  kind?: ProcessKind;
  /** The algorithm registry; tests may pass their own. */
  algorithms?: (name: AlgorithmName) => AnyAlgorithm;
  /**
   * A cluster (docs/SCALING.md): a channel to another relay, given its public address. With it
   * the process follows `moved` answers, and tries `relays` in turn while its relay is down.
   */
  follow?: (url: string) => ChannelFactory;
  /** Other relays of the cluster, tried round-robin when the current one stays unreachable. */
  relays?: string[];
  /** How long a lost connection may stay down before the next relay is tried, ms (default 1500). */
  failoverMs?: number;
  onEvent?: (e: LabProcessEvent) => void;
}

/**
 * Runs the process instead of a ProcessHost over the registry's algorithm: code mode's sandbox
 * (shared/grader/sandbox-host.ts). Given the lab's config and the host's I/O.
 */
type RunnerFactory = (
  config: ProcessConfig,
  io: HostIO,
  listener: ((e: HostEvent) => void) | undefined,
) => ProcessRunner;

/** One process of a lab. */
export class LabProcess {
  status: LabProcessStatus = 'closed';
  id: ProcessId | null = null;
  config: ProcessConfig | null = null;
  host: ProcessRunner | null = null;
  /** What the tab runs (told to the relay on every join); `code` comes with a runner factory. */
  private mode: ProcessMode = 'auto';
  private runner: RunnerFactory | null = null;
  private channel: Channel | null = null;
  private resume: string | null = null;
  private joinWaiters: {
    resolve: (id: ProcessId) => void;
    reject: (e: ErrorFrame) => void;
  } | null = null;
  private readonly t0 = performance.now();
  /** Bumped on every channel switch, so a closed channel's late events are ignored. */
  private generation = 0;
  private failover: ReturnType<typeof setTimeout> | null = null;
  private nextRelay = 0;
  /** Relay addresses this process was moved to or tried (for the bots' status line and tests). */
  readonly hops: string[] = [];

  constructor(private readonly opts: LabProcessOptions) {}

  get report(): Report | null {
    return this.host?.report ?? null;
  }

  /** Connects and joins; resolves with the id the relay gave, rejects with the relay's error frame. */
  start(): Promise<ProcessId> {
    this.setStatus('connecting');
    const joined = new Promise<ProcessId>(
      (resolve, reject) => (this.joinWaiters = { resolve, reject }),
    );
    this.connect(this.opts.channel);
    return joined;
  }

  private connect(factory: ChannelFactory): void {
    const gen = ++this.generation;
    this.channel = factory({
      open: () => {
        if (gen !== this.generation) return;
        this.clearFailover();
        this.join();
      },
      frame: (f) => gen === this.generation && this.onFrame(f),
      close: () => gen === this.generation && this.onClose(),
    });
  }

  /** Leaves the current relay's connection for another relay's (a `moved` answer or a failover). */
  private switchTo(url: string): void {
    if (!this.opts.follow) return;
    this.clearFailover();
    this.hops.push(url);
    this.channel?.close();
    this.connect(this.opts.follow(url));
  }

  private clearFailover(): void {
    if (this.failover) clearTimeout(this.failover);
    this.failover = null;
  }

  /** Leaves the lab (the id is free at once) and disconnects. */
  stop(): void {
    this.clearFailover();
    this.generation++;
    this.host?.stop();
    this.channel?.send({ type: 'leave' });
    this.channel?.close();
    this.channel = null;
    this.setStatus('closed');
  }

  /** Drops the connection without leaving (the relay keeps the id for the resume token for a while). */
  disconnect(): void {
    this.clearFailover();
    this.generation++;
    this.host?.stop();
    this.channel?.close();
    this.channel = null;
    this.setStatus('closed');
  }

  private join(): void {
    const frame: ClientFrame = { type: 'join', lab: this.opts.lab };
    const id = this.id ?? this.opts.id;
    if (id !== undefined) frame.id = id;
    if (this.resume) frame.resume = this.resume;
    if (this.opts.name) frame.name = this.opts.name;
    frame.kind = this.opts.kind ?? 'bot';
    // The ref tells a refusal of this join apart from errors about other frames.
    frame.ref = JOIN_REF;
    this.channel?.send(frame);
  }

  private onFrame(f: ServerFrame): void {
    switch (f.type) {
      case 'joined': {
        const changed = JSON.stringify(f.config) !== JSON.stringify(this.config);
        this.id = f.id;
        this.resume = f.resume;
        this.config = f.config;
        this.emit({ kind: 'joined', id: f.id, config: f.config });
        this.emit({ kind: 'play', play: f.play ?? DEFAULT_PLAY });
        this.joinWaiters?.resolve(f.id);
        this.joinWaiters = null;
        if (f.status === 'crashed') {
          this.host?.stop();
          return this.setStatus('crashed');
        }
        this.setStatus('up');
        if (this.mode !== 'auto') this.channel?.send({ type: 'mode', mode: this.mode });
        // A resumed process whose lab did not change carries on; its report was cleared on disconnect.
        if (changed || !this.host?.isRunning) this.restart(f.config);
        else if (this.host.report && !f.paused)
          this.channel?.send({ type: 'report', report: this.host.report });
        if (f.paused) this.pauseHost();
        else this.host?.resume?.(); // resumed while it was away
        return;
      }
      case 'paused':
        return this.pauseHost();
      case 'resumed':
        if (this.status !== 'paused') return;
        this.setStatus('up');
        return this.host?.resume?.();
      case 'deliver':
        this.emit({ kind: 'deliver', from: f.from, msg: f.msg, message: f.message });
        return this.host?.deliver(f.from, f.message);
      case 'crashed':
        this.host?.stop();
        return this.setStatus('crashed');
      case 'recovered':
      case 'restart':
        this.config = f.config;
        this.setStatus('up');
        return this.restart(f.config);
      case 'elect':
        if (this.status === 'paused') return;
        return this.host?.elect();
      case 'play':
        return this.emit({ kind: 'play', play: f.play });
      case 'moved':
        // The lab lives on another relay (a cluster): rejoin there with the same id and token.
        this.emit({ kind: 'moved', url: f.url });
        return this.switchTo(f.url);
      case 'left':
        this.host?.stop();
        this.channel?.close();
        this.channel = null;
        return this.setStatus('left');
      case 'answered':
        return this.emit({ kind: 'answer', step: f.step, value: f.value, error: null });
      case 'error':
        if (f.ref === ANSWER_REF)
          return this.emit({ kind: 'answer', step: -1, value: null, error: f });
        this.emit({ kind: 'error', error: f });
        // A refused join (first or after a reconnect, e.g. the id went to someone else) ends this process.
        if (f.ref === JOIN_REF) {
          this.joinWaiters?.reject(f);
          this.joinWaiters = null;
          this.host?.stop();
          this.channel?.close();
          this.channel = null;
          this.setStatus('refused');
        }
        return;
      default:
        return;
    }
  }

  /** SIGSTOP: the runner freezes (ProcessHost: its timers keep their time left) until `resumed`. */
  private pauseHost(): void {
    if (this.status === 'paused') return;
    this.host?.pause?.();
    this.setStatus('paused');
  }

  private onClose(): void {
    // A paused runner stays frozen while reconnecting; the relay's `joined` says whether it still is.
    if (this.status === 'up' || this.status === 'paused' || this.status === 'crashed')
      this.setStatus('connecting');
    // The relay may be gone for good (a cluster member killed): after a while try the others,
    // which answer `moved` to whoever owns the lab now.
    const relays = this.opts.relays ?? [];
    if (
      !this.opts.follow ||
      relays.length === 0 ||
      this.failover ||
      this.status === 'closed' ||
      this.status === 'left'
    )
      return;
    this.failover = setTimeout(() => {
      this.failover = null;
      const url = relays[this.nextRelay++ % relays.length]!;
      this.switchTo(url);
    }, this.opts.failoverMs ?? 1500);
  }

  /**
   * Switches what runs this process: `code` with the runner of her module, `hand` with hand
   * mode's runner (shared/coach/hand-runner.ts), `auto` back to the lab's algorithm. The relay is told; a running process starts afresh under the new runner.
   */
  setMode(mode: ProcessMode, runner: RunnerFactory | null = null): void {
    this.mode = mode;
    this.runner = runner;
    this.channel?.send({ type: 'mode', mode });
    if (this.status === 'up' && this.config) this.restart(this.config);
  }

  /** Hand mode: her click (or a deadline she let pass) and the coach's deviations, for the class board and the trace. */
  sendHand(action: string | null, deviations: { rule: string; text: string }[]): void {
    for (const f of handFrames(action, deviations)) this.channel?.send({ type: 'hand', ...f });
  }

  /** Tells the relay her latest grade (code mode); the failing run's trace rides along when it fits. */
  /** Her answer to the lab's open lesson question (docs/PROTOCOL.md, `answer`); the verdict comes as an `answer` event. */
  sendAnswer(step: number, value: number): void {
    this.channel?.send({ type: 'answer', step, value, ref: ANSWER_REF });
  }

  sendGrade(summary: GradeSummary, trace?: string): void {
    this.channel?.send({ type: 'grade', summary, ...(trace !== undefined ? { trace } : {}) });
  }

  private restart(config: ProcessConfig): void {
    const id = this.id!;
    this.host?.stop();
    const io: HostIO = {
      send: (to, message) => this.channel?.send({ type: 'send', to, message }),
      fault: (f) =>
        this.channel?.send({
          type: 'fault',
          error: f.error,
          event: f.event,
          restarted: f.restarted,
        }),
      report: (report) => this.channel?.send({ type: 'report', report }),
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
      now: () => performance.now() - this.t0,
      random: createRng(deriveSeed(config.seed, id)),
    };
    const listener = this.opts.onEvent
      ? (event: HostEvent) => this.emit({ kind: 'host', event })
      : undefined;
    this.host = this.runner
      ? this.runner(config, io, listener)
      : new ProcessHost(
          withWorkload((this.opts.algorithms ?? getAlgorithm)(config.algorithm), config.workload),
          io,
          listener,
        );
    this.host.start(algorithmConfig(config, id));
  }

  private setStatus(status: LabProcessStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.emit({ kind: 'status', status });
  }

  private emit(e: LabProcessEvent): void {
    this.opts.onEvent?.(e);
  }
}
