// Hand mode's runner: the student is the process. Deliveries, timer expiries and `elect`
// requests queue here and nothing answers them; what she clicks becomes effects carried out by
// the one effect executor (shared/sim/executor.ts) on the host's transport, so her messages go
// through the relay like any process's, and her report (role, belief, electing) follows her
// actions. The coach (coach.ts) runs the reference in shadow on the same events and judges each
// click; its deviations go to the relay with the click (`onHand`).
//
// Two things happen without a click, both plumbing the coach does not judge: the hop layer's
// bookkeeping (an ACK clears a wait; no ACK within UB marks the successor dead and queues a note)
// and, when she leaves the toggle on, the failure detector (auto-beat.ts): heartbeats or polls,
// and a queued "the coordinator is silent" that both she and the shadow see as `elect`.
import {
  roundTripBound,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type Effect,
  type Message,
  type ProcessId,
  type Report,
  type AnyAlgorithm,
} from '../algorithms/algorithm.ts';
import { execute, type EffectHandlers } from '../sim/executor.ts';
import type { TimerView } from '../sim/named-timers.ts';
import {
  RunnerShell,
  type HostEvent,
  type HostIO,
  type ProcessRunner,
} from '../sim/process-host.ts';
import { AutoBeat, usesSharedDetector } from './auto-beat.ts';
import { CoachFold, CoachStream, explain, type CoachView, type Deviation } from './coach.ts';
import { identify } from './identify.ts';
import {
  replies,
  successorChoices,
  timerWords,
  type HandCounters,
  type HandStep,
  type Offer,
} from './hand-kit.ts';
import { electionMove, moves } from './hand-moves.ts';
import { HandQueue, type QueuedItem } from './hand-queue.ts';
import { IDLE_COACH, type HandView } from './hand-view.ts';
import { HandWorkDriver } from './hand-work-driver.ts';
import { HandHop } from './hand-hop.ts';
import { heard, reportAfter, sent, startCounters } from './hand-counters.ts';
import { MootPass } from './hand-moot.ts';
import type { WorkJob } from '../work/work-job.ts';

export type { QueuedItem } from './hand-queue.ts';
export type { HandView, WorkView } from './hand-view.ts';

interface HandOptions {
  algorithm: AnyAlgorithm;
  io: HostIO;
  listener?: (e: HostEvent) => void;
  seed: number;
  autoBeat: boolean;
  /** Her click (`action` its label) or a deadline she let pass (`action` null), with the deviations found since. */
  onHand?: (action: string | null, deviations: { rule: string; text: string }[]) => void;
  onChange?: () => void;
  /** The lab's workload as a job (shared/work/work-job.ts): she plays her part of it by hand. */
  work?: WorkJob;
}

const COACH_TICK_MS = 500;
const START: Report = { role: 'follower', coordinator: null, electing: false };

export class HandRunner implements ProcessRunner {
  private config: AlgorithmConfig | null = null;
  private running = false;
  private last: Report = START;
  private readonly items = new HandQueue();
  private readonly moot = new MootPass();
  private readonly coachStream = new CoachStream(
    () => new CoachFold(this.opts.algorithm, this.config!, this.opts.seed),
  );
  private readonly shell: RunnerShell;
  private t0 = 0;
  private clicks = 0;
  private seq = 0;
  private counters: HandCounters = startCounters(null);
  private readonly hop: HandHop;
  private sent = new Set<string>();
  private view_: HandView | null = null;
  private tick: unknown = null;
  private autoBeat: AutoBeat;
  private readonly work: HandWorkDriver;

  constructor(private readonly opts: HandOptions) {
    this.shell = new RunnerShell(opts.io, opts.listener);
    this.hop = new HandHop({
      send: (to, message) => this.shell.send(to, message),
      setTimer: (name, after, fn) => this.shell.timers.set(name, after, fn),
      cancelTimer: (name) => this.shell.timers.cancel(name),
      ub: () => (this.config ? roundTripBound(this.config.timing) : null),
      successors: () => this.view().successors,
      successor: () => this.counters.successor,
      setSuccessor: (id) => (this.counters = { ...this.counters, successor: id }),
      timedOut: (name, note, offers) => {
        this.shell.received({ kind: 'timer', name });
        this.enqueue(null, null, note, offers);
      },
      changed: () => this.changed(),
    });
    this.work = new HandWorkDriver(opts.work, {
      transmit: (to, message) => this.transmit(to, message),
      setTimer: (name, after, fn) => this.shell.timers.set(name, after, fn),
      believes: () => this.last.coordinator,
      enqueue: (from, message, note) => this.enqueue(from, message, note),
      changed: () => this.changed(),
    });
    this.autoBeat = new AutoBeat(opts.autoBeat, {
      send: (to, message) => this.transmit(to, message),
      suspect: (leader) => {
        this.moot.suspect(leader, this.now());
        this.enqueueElect(`the coordinator ${leader} is silent: the detector suspects it`, true);
      },
      setTimer: (name, after, fn) => this.shell.timers.set(name, after, fn),
      cancelTimer: (name) => this.shell.timers.cancel(name),
    });
  }

  get isRunning(): boolean {
    return this.running;
  }
  get report(): Report | null {
    return this.running ? this.last : null;
  }
  get name(): string {
    return this.opts.algorithm.name;
  }

  timerList(): TimerView[] {
    return this.shell.timers.list();
  }

  /** Start (or restart): the queue, her timers and the shadow start over; the documents' start election is hers to hold. */
  start(config: AlgorithmConfig): void {
    this.stop();
    this.config = config;
    this.running = true;
    this.t0 = this.opts.io.now();
    this.coachStream.reset();
    this.moot.reset();
    this.items.reset();
    this.sent.clear();
    this.hop.reset();
    this.counters = startCounters(config);
    this.shell.started(config);
    this.emit({ kind: 'report', report: START });
    this.enqueue(
      null,
      null,
      'started: the documents say a process holds an election on start (003)',
      electionMove(this.opts.algorithm.name, this.config, this.counters),
    );
    this.autoBeat.configure(config, this.opts.algorithm.name);
    this.autoBeat.follow(null, null);
    this.work.start(config, this.opts.io.now());
    this.scheduleTick();
  }

  stop(): void {
    if (this.tick !== null) this.opts.io.clearTimer(this.tick);
    this.tick = null;
    this.shell.stopped(this.running);
    this.running = false;
    this.changed();
  }

  deliver(from: ProcessId, message: Message): void {
    if (!this.running || !message || typeof message.type !== 'string') return;
    this.shell.received({ kind: 'message', from, message });
    this.hop.heard(from);
    if (this.work.handles(message)) {
      // The shadow sees it; her tab keeps its books and answers the bookkeeping by itself.
      this.record({ kind: 'message', from, message });
      return this.work.deliver(from, message, this.now());
    }
    if (message.type === 'ACK' && typeof message.seq === 'number') {
      // The shadow sees the ACK too (its hop carried the same seq): bookkeeping, not a question for her.
      this.record({ kind: 'message', from, message });
      return this.hop.acked(from, message.seq);
    }
    // The shadow runs the lab's detector: it hears the heartbeats and PONGs the toggle handles.
    const detector =
      usesSharedDetector(this.opts.algorithm.name) &&
      (message.type === 'HEARTBEAT' || message.type === 'PONG');
    if (detector) this.record({ kind: 'message', from, message });
    if (this.autoBeat.hears(from, message)) return;
    if (!detector) this.record({ kind: 'message', from, message });
    const counters = heard(this.opts.algorithm.name, this.counters, message);
    const newTerm = counters.term !== this.counters.term;
    this.counters = counters;
    if (newTerm) this.reoffer();
    this.enqueue(from, message, `${message.type} from ${from}`);
  }

  elect(): void {
    if (this.running) this.enqueueElect('the instructor asks for an election');
  }

  setAutoBeat(on: boolean): void {
    this.autoBeat.toggle(on);
    this.changed();
  }

  setSuccessor(id: ProcessId): void {
    this.counters = { ...this.counters, successor: id };
    this.changed();
  }

  /** Her click: the offer's steps, in order, through the effect executor. */
  act(offer: Offer, item?: QueuedItem): void {
    if (!this.running || !this.config) return;
    // A second click on an answered item (before the page redrew) does nothing.
    if (item && this.items.done(item.n)) return;
    const self = this.config.self;
    const click = ++this.clicks;
    const at = this.now();
    const before = this.counters;
    const effects: Effect[] = [];
    let report = this.last;
    const taken: HandStep[] = [];
    let accepted = false;
    for (const s of offer.steps) {
      const step = this.resolve(s, at);
      const moved = this.work.step(step, at);
      // A compute is hers alone; an accept that takes nothing (a second click) is no action.
      if (step.kind === 'compute' || (step.kind === 'accept' && !moved)) continue;
      if (step.kind === 'accept') accepted = true;
      else if (step.kind === 'send') {
        this.counters = sent(this.opts.algorithm.name, this.counters, step.message, self);
        effects.push({ kind: 'send', to: step.to, message: step.message });
      } else if (step.kind === 'set-timer')
        effects.push({ kind: 'set-timer', name: step.name, after: step.after });
      report = reportAfter(this.opts.algorithm.name, report, step, self);
      if (step.kind !== 'set-timer')
        this.coachStream.add({ kind: 'action', at, click, action: step });
      taken.push(step);
    }
    if (offer.key === 'elect' || offer.key === 'vote')
      this.counters = { ...this.counters, elections: this.counters.elections + 1 };
    const believed = this.last.coordinator;
    if (report !== this.last) effects.push({ kind: 'report', report });
    // Her item, and every item this click answered another way (a hint, a batch), are answered.
    this.items.answer(item?.n ?? null, taken, offer.key);
    execute(this, effects, HandRunner.effects);
    // Her accepting shows on the wire at once: a status beat naming the task (the relay's coach reads it so).
    if (accepted) this.work.accepted(at);
    // The detector follows her belief; a click that leaves it alone leaves the detector alone.
    if (this.last.coordinator !== believed)
      this.autoBeat.follow(this.last.coordinator, this.config.self);
    // What waits is offered anew, once, from her counters and belief as the click left them (a
    // heartbeat from the one she now follows asks nothing; an Elect waiting since before she joined
    // no longer offers her own Elect).
    if (this.counters !== before || this.last.coordinator !== believed) this.reoffer();
    this.judge(offer.label);
  }

  /** What a reply's offers are made from: her counters and whom she believes now. */
  private offerCounters(): HandCounters {
    return { ...this.counters, believes: this.last.coordinator };
  }

  /** The offers of the messages still waiting, made again from her counters as they are now. */
  private reoffer(): void {
    const config = this.config!;
    const counters = this.offerCounters();
    this.items.reoffer((from, message) =>
      replies(this.opts.algorithm.name, config, from, message, counters),
    );
  }

  view(): HandView {
    if (this.view_ && !this.due()) return this.view_;
    this.expireItems();
    const config = this.config;
    const c = config ? this.coachNow() : null;
    this.view_ = {
      queue: this.items.items,
      moves: config ? moves(this.opts.algorithm.name, config, this.counters) : [],
      report: this.last,
      coach: c ?? IDLE_COACH,
      deviations: (c?.deviations ?? []).map((d) => ({ ...d, text: explain(d) })),
      successors: config ? successorChoices(config) : [],
      successor: this.counters.successor,
      down: this.hop.dead,
      autoBeat: this.autoBeat.on,
      clicks: this.clicks,
      dropped: this.items.dropped,
      expired: this.items.expired,
      now: this.now(),
      work: this.work.view(this.now()),
    };
    return this.view_;
  }

  /** The view drawn last is out of date by now: a deadline of the coach's or of an item passed since. */
  private due(): boolean {
    const ub = this.config ? roundTripBound(this.config.timing) : Infinity;
    return (
      this.running &&
      Math.min(this.coachStream.view?.next ?? Infinity, this.items.nextDeadline(ub)) <= this.now()
    );
  }

  /** Her message with the reference's identifying numbers where it is the same send (identify.ts). */
  private resolve(s: HandStep, at: number): HandStep {
    if (s.kind !== 'send') return s;
    // The coach looked at the click's own time: its steps go into the fold at that time, so a
    // deadline a millisecond later must not pass before them.
    const c = this.coachStream.look(at);
    return {
      ...s,
      message: identify(
        s.message,
        s.to,
        [...c.suggestions, ...c.late],
        () => 1_000_000 + ++this.seq,
      ),
    };
  }

  /** The reference in shadow with the lab's config as it is (detector included): it handles what she receives as the lab's processes do. */
  private coachNow(): CoachView {
    return this.coachStream.look(this.now());
  }

  /** Moot items go (hand-queue.ts), judged against what the coach still owes; true when any went. */
  private expireItems(): boolean {
    if (!this.config) return false;
    return this.moot.run(this.items, {
      coach: this.coachNow(),
      report: this.last,
      self: this.config.self,
      ub: roundTripBound(this.config.timing),
      now: this.now(),
    });
  }

  /** New deviations go to the relay: with her click, or alone when a deadline passed. */
  private judge(action: string | null): void {
    this.expireItems();
    this.changed();
    const fresh = this.view().deviations.filter((d) => !this.sent.has(key(d)));
    for (const d of fresh) this.sent.add(key(d));
    if (action !== null || fresh.length)
      this.opts.onHand?.(
        action,
        fresh.map((d) => ({ rule: d.rule, text: d.text })),
      );
  }

  private scheduleTick(): void {
    this.tick = this.opts.io.setTimer(() => {
      if (!this.running) return;
      // Nothing to judge while the coach's view stands and no item went moot.
      const before = this.coachStream.view;
      const stands = before !== null && this.coachNow() === before;
      if (this.expireItems() || !stands) this.judge(null);
      this.scheduleTick();
    }, COACH_TICK_MS);
  }

  private now(): number {
    return this.opts.io.now() - this.t0;
  }

  private record(event: AlgorithmEvent): void {
    this.coachStream.add({ kind: 'event', at: this.now(), event });
  }

  /**
   * An election is called for. The detector's suspicion reaches the shadow only when it holds no
   * election already, as the reference's own detector would (it elects only when not electing).
   */
  private enqueueElect(note: string, detector = false): void {
    // The log says what it was: the detector's silence timer, or the instructor's elect.
    this.shell.received(detector ? { kind: 'timer', name: 'auto:silence' } : { kind: 'elect' });
    // The shadow's own detector (the lab's) suspects the same silence: it is not told twice.
    const shadowDetects = detector && this.config?.detector !== 'none';
    if (!shadowDetects && !(detector && this.coachNow().report?.electing))
      this.record({ kind: 'elect' });
    this.enqueue(
      null,
      null,
      note,
      electionMove(this.opts.algorithm.name, this.config, this.counters),
    );
  }

  private enqueue(
    from: ProcessId | null,
    message: Message | null,
    note: string,
    extra: Offer[] = [],
  ): void {
    const config = this.config!;
    const offers = [
      ...(message && from !== null
        ? replies(this.opts.algorithm.name, config, from, message, this.offerCounters())
        : []),
      ...extra,
    ];
    this.items.push(this.now(), from, message, note, offers);
    this.changed();
  }

  private transmit(to: ProcessId, message: Message): void {
    this.hop.transmit(to, message);
  }

  private emit(e: { kind: 'report'; report: Report }): void {
    if (e.report.coordinator !== this.last.coordinator || e.report.electing !== this.last.electing)
      this.moot.settled(this.running ? this.now() : null);
    this.last = e.report;
    this.shell.report(e.report);
    this.changed();
  }

  private changed(): void {
    this.view_ = null;
    this.opts.onChange?.();
  }

  /** What her effects mean here: the host's transport, her own timers (queued when they fire), her report. */
  private static readonly effects: EffectHandlers<HandRunner> = {
    send: (h, to, message) => h.transmit(to, message),
    setTimer: (h, name, after) =>
      h.shell.timers.set(name, after, () => {
        h.shell.received({ kind: 'timer', name });
        h.record({ kind: 'timer', name });
        h.enqueue(null, null, timerWords(name, after));
      }),
    cancelTimer: (h, name) => h.shell.timers.cancel(name),
    report: (h, report) => h.emit({ kind: 'report', report }),
  };
}

const key = (d: Deviation) => `${d.rule}@${d.at}#${d.click}`;
