// One lab process run by a Maelstrom-protocol executable (docs/MAELSTROM.md). LabProcess
// (shared/lab-client/lab-client.ts) makes one of these per start, as it makes a ProcessHost for a
// bot: `start` spawns the executable in its own process group and sends it `init`; `deliver`
// writes a lab message to its stdin; each stdout line is read by readNodeLine and only a valid
// message or report reaches the relay; `stop` (the instructor's crash, a restart, leaving) kills
// the group with SIGKILL. Every bound here is in bytes or lines a second, and every drop counted.
import { spawn, type ChildProcess } from 'node:child_process';
import type { AlgorithmConfig, Message, ProcessId, Report } from '@shared/algorithms/algorithm.ts';
import { MESSAGE_SCHEMAS } from '@shared/algorithms/registry.ts';
import { parseMessage } from '@shared/algorithms/messages.ts';
import { MAX_FRAME_BYTES, type ProcessConfig } from '@shared/protocol/frames.ts';
import {
  electLine,
  initLine,
  messageLine,
  nodeName,
  readNodeLine,
  type LineContext,
  type MaelstromLine,
} from '@shared/protocol/maelstrom.ts';
import {
  FAULT_WINDOW_MS,
  MAX_FAULTS,
  type HostEvent,
  type HostIO,
  type ProcessRunner,
} from '@shared/sim/process-host.ts';
import { DEFAULT_RATE_LIMITS, TokenBucket } from '../../server/lab/rate-limit.ts';
import { LineReader, type LineEvent } from './line-reader.ts';

/** A stderr line of the node longer than this is not shown (its length is). */
const MAX_STDERR_LINE = 4096;
/** Bytes waiting in the node's stdin (a node that stopped reading): past it, lab messages are dropped. */
const MAX_STDIN_BYTES = 1024 * 1024;
/** Lines this host writes to its stderr a second (the node's own and its reports together). */
const LOG_LIMITS = { rate: 200, burst: 1000 };

export interface NodeSpec {
  command: string;
  args: string[];
  /** How long `init_ok` may take, ms. */
  initTimeoutMs: number;
}

/** Counted across every run of the node (a recovery is a new run). */
export interface NodeCounters {
  runs: number;
  /** stdout lines read. */
  lines: number;
  sent: number;
  reports: number;
  /** stdout lines refused: not JSON, not a message, a message the lab's algorithm does not have... */
  refused: number;
  /** stdout lines longer than the relay's frame limit, skipped unread. */
  overlong: number;
  /** stdout lines past the relay's rate limit, dropped here rather than refused there. */
  rateLimited: number;
  /** Lab messages not given to the node: it had not answered `init` yet. */
  beforeInit: number;
  /** Lab messages not given to the node: its stdin held MAX_STDIN_BYTES unread. */
  stdinFull: number;
  /** Lab messages that did not fit the algorithm's schemas (a peer's garbage), not given to the node. */
  ignored: number;
  /** Host lines not shown on stderr (past LOG_LIMITS). */
  logsSuppressed: number;
}

export const newCounters = (): NodeCounters => ({
  runs: 0,
  lines: 0,
  sent: 0,
  reports: 0,
  refused: 0,
  overlong: 0,
  rateLimited: 0,
  beforeInit: 0,
  stdinFull: 0,
  ignored: 0,
  logsSuppressed: 0,
});

export interface RunnerHooks {
  counters: NodeCounters;
  /** One line for the operator's stderr. */
  log(line: string): void;
  /** The node cannot take part (no `init_ok`, it cannot be started, it keeps exiting): the host leaves with this exit code. */
  fatal(message: string, code: number): void;
}

/** Exit codes of `npm run maelstrom` (docs/MAELSTROM.md). */
export const EXIT = { refused: 1, noInitOk: 3, keepsExiting: 4, cannotStart: 5 } as const;

export class MaelstromRunner implements ProcessRunner {
  private child: ChildProcess | null = null;
  private self: ProcessId = -1;
  private ctx: LineContext | null = null;
  private initialised = false;
  private initTimer: ReturnType<typeof setTimeout> | null = null;
  /** When the init timer fires (performance.now()), so a pause can keep its time left. */
  private initDue = 0;
  /** Time the init timer had left when the node was paused; null when not paused. */
  private pausedInitLeft: number | null = null;
  private last: Report | null = null;
  private running = false;
  private exits: number[] = [];
  private readonly rate = new TokenBucket(DEFAULT_RATE_LIMITS, () => performance.now());
  private readonly logRate = new TokenBucket(LOG_LIMITS, () => performance.now());
  /** The msg_id of the `init` the node must answer. */
  private pendingInit = 0;
  private msgIds = 0;
  /** Host lines not shown since the last one shown. */
  private unshown = 0;

  constructor(
    private readonly spec: NodeSpec,
    private readonly lab: ProcessConfig,
    private readonly io: HostIO,
    private readonly hooks: RunnerHooks,
    private readonly listener?: (e: HostEvent) => void,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  get report(): Report | null {
    return this.last;
  }

  get name(): string {
    return `maelstrom: ${this.spec.command}`;
  }

  /** The node's timers are its own business. */
  timerList() {
    return [];
  }

  start(config: AlgorithmConfig): void {
    this.stop();
    this.self = config.self;
    this.ctx = {
      self: config.self,
      ids: new Set(config.ids),
      schemas: MESSAGE_SCHEMAS[this.lab.algorithm],
    };
    this.running = true;
    this.listener?.({ kind: 'started', config });
    this.spawn();
  }

  private spawn(): void {
    const c = this.hooks.counters;
    c.runs++;
    const run = c.runs;
    let child: ChildProcess;
    try {
      // Its own process group, so a crash kills whatever the executable started too (npx, a shell).
      child = spawn(this.spec.command, this.spec.args, {
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
      });
    } catch (err) {
      return this.giveUp(
        `cannot start ${this.spec.command}: ${(err as Error).message}`,
        EXIT.cannotStart,
      );
    }
    this.child = child;
    this.initialised = false;
    const id = nodeName(this.self);
    child.on(
      'error',
      (err) =>
        child === this.child &&
        this.giveUp(`cannot start ${this.spec.command}: ${err.message}`, EXIT.cannotStart),
    );
    // A node that died or closed its stdin: the write fails later, and is not ours to crash on.
    child.stdin!.on('error', () => {});
    const out = new LineReader(
      MAX_FRAME_BYTES,
      (e) => child === this.child && this.onStdout(e, run),
    );
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stdout!.on('end', () => out.end());
    const err = new LineReader(MAX_STDERR_LINE, (e) =>
      this.say(
        e.kind === 'line'
          ? `[${id}] ${e.text}`
          : `[${id}] (stderr line ${e.n}: ${e.bytes} bytes, not shown)`,
      ),
    );
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    child.stderr!.on('end', () => err.end());
    child.on('exit', (code, sig) => child === this.child && this.onExit(child, code, sig));
    const msgId = ++this.msgIds;
    this.pendingInit = msgId;
    this.write(initLine(this.self, this.lab, msgId));
    this.armInit(this.spec.initTimeoutMs);
  }

  private armInit(ms: number): void {
    const child = this.child;
    this.initDue = performance.now() + ms;
    this.initTimer = setTimeout(() => {
      if (child !== this.child || this.initialised) return;
      this.giveUp(
        `${nodeName(this.self)} (${this.spec.command}) did not answer init with init_ok within ${this.spec.initTimeoutMs} ms`,
        EXIT.noInitOk,
      );
    }, ms);
  }

  /**
   * The instructor paused the process: SIGSTOP to the node's process group (where the OS has
   * it; elsewhere the relay's hold alone pauses it). The wait for init_ok stands still too.
   */
  pause(): void {
    if (this.pausedInitLeft !== null || !this.child) return;
    this.pausedInitLeft = this.initTimer ? Math.max(0, this.initDue - performance.now()) : 0;
    if (this.initTimer) clearTimeout(this.initTimer);
    this.initTimer = null;
    if (process.platform !== 'win32') signal(this.child, 'SIGSTOP');
  }

  /** SIGCONT: the node runs on; what the relay held for it follows. */
  resume(): void {
    const left = this.pausedInitLeft;
    if (left === null) return;
    this.pausedInitLeft = null;
    if (!this.child) return;
    if (process.platform !== 'win32') signal(this.child, 'SIGCONT');
    if (!this.initialised) this.armInit(left);
  }

  /** Crash, restart or leave: the executable and everything it started are killed at once. */
  stop(): void {
    if (this.initTimer) clearTimeout(this.initTimer);
    this.initTimer = null;
    this.pausedInitLeft = null;
    const child = this.child;
    this.child = null;
    if (child) signal(child, 'SIGKILL');
    if (this.running) this.listener?.({ kind: 'stopped' });
    this.running = false;
    this.initialised = false;
  }

  deliver(from: ProcessId, message: Message): void {
    if (!this.running) return;
    // The node sees only what the lab's algorithm would accept: a peer's garbage stops here.
    const m = this.ctx && parseMessage(this.ctx.schemas, message);
    if (!m) return void this.hooks.counters.ignored++;
    this.listener?.({ kind: 'in', event: { kind: 'message', from, message: m } });
    this.toNode(messageLine(from, this.self, m));
  }

  elect(): void {
    if (!this.running) return;
    this.listener?.({ kind: 'in', event: { kind: 'elect' } });
    this.toNode(electLine(this.self));
  }

  /** A message for a node that answered `init`; before that, or with its stdin full, it is dropped and counted. */
  private toNode(line: MaelstromLine): void {
    const c = this.hooks.counters;
    if (!this.initialised) return void c.beforeInit++;
    if ((this.child?.stdin?.writableLength ?? 0) > MAX_STDIN_BYTES) return void c.stdinFull++;
    this.write(line);
  }

  private write(line: MaelstromLine): void {
    const stdin = this.child?.stdin;
    if (stdin && !stdin.destroyed) stdin.write(JSON.stringify(line) + '\n');
  }

  private onStdout(e: LineEvent, run: number): void {
    const c = this.hooks.counters;
    const where = `${nodeName(this.self)} stdout line ${e.n}${run > 1 ? ` (run ${run})` : ''}`;
    c.lines++;
    if (e.kind === 'overlong') {
      c.overlong++;
      return this.say(
        `${where}: refused, ${e.bytes} bytes is longer than the relay's frame limit (${MAX_FRAME_BYTES})`,
      );
    }
    if (!this.rate.take()) {
      c.rateLimited++;
      return this.say(
        `${where}: dropped, more than ${DEFAULT_RATE_LIMITS.rate} lines a second (the relay's rate limit)`,
      );
    }
    const r = readNodeLine(e.text, this.ctx!);
    switch (r.kind) {
      case 'refused':
        c.refused++;
        return this.say(`${where}: refused, ${r.reason}`);
      case 'init_ok':
        if (r.inReplyTo !== this.pendingInit) {
          c.refused++;
          return this.say(
            `${where}: refused, init_ok must have in_reply_to ${this.pendingInit} (the init's msg_id)`,
          );
        }
        if (this.initTimer) clearTimeout(this.initTimer);
        this.initTimer = null;
        this.initialised = true;
        return;
      case 'report':
        c.reports++;
        this.last = r.report;
        this.listener?.({ kind: 'report', report: r.report });
        return this.io.report(r.report);
      case 'send':
        c.sent++;
        this.listener?.({ kind: 'out', to: r.to, message: r.message });
        return this.io.send(r.to, r.message);
    }
  }

  /** The node cannot take part: it is stopped (so nothing of it is heard again) and the host told once. */
  private giveUp(message: string, code: number): void {
    this.stop();
    this.hooks.fatal(message, code);
  }

  /** The node exited on its own: restarted afresh as ProcessHost restarts an algorithm that threw, up to MAX_FAULTS in FAULT_WINDOW_MS. */
  private onExit(child: ChildProcess, code: number | null, sig: NodeJS.Signals | null): void {
    if (this.initTimer) clearTimeout(this.initTimer);
    this.child = null;
    // What it started goes with it, as in a crash.
    signal(child, 'SIGKILL');
    const now = performance.now();
    this.exits = this.exits.filter((t) => now - t < FAULT_WINDOW_MS);
    this.exits.push(now);
    const restarted = this.exits.length < MAX_FAULTS;
    const error = sig ? `the node was killed by ${sig}` : `the node exited with code ${code}`;
    this.say(`${nodeName(this.self)}: ${error}${restarted ? '; starting it afresh' : ''}`);
    this.io.fault?.({ error, event: 'exit', restarted });
    if (restarted) return this.spawn();
    this.giveUp(
      `${nodeName(this.self)} (${this.spec.command}) exited ${MAX_FAULTS} times within ${FAULT_WINDOW_MS / 1000} s`,
      EXIT.keepsExiting,
    );
  }

  /** A line on the host's stderr, at most LOG_LIMITS a second; the rest are counted, and how many went unshown is said before the next. */
  private say(line: string): void {
    if (!this.logRate.take()) {
      this.hooks.counters.logsSuppressed++;
      return void this.unshown++;
    }
    if (this.unshown)
      this.hooks.log(
        `(${this.unshown} lines not shown here: more than ${LOG_LIMITS.rate} a second)`,
      );
    this.hooks.log(line);
    this.unshown = 0;
  }
}

/** Signals the node's process group (where the OS has them), else the node alone. */
function signal(child: ChildProcess, sig: NodeJS.Signals): void {
  try {
    if (process.platform !== 'win32' && child.pid) process.kill(-child.pid, sig);
    else child.kill(sig);
  } catch {
    // Already gone.
  }
}
