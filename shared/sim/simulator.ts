// Deterministic discrete-event simulator: any algorithm over N processes on a virtual clock, on
// the same network model as the relay (shared/sim/network.ts: per-link delay, jitter, loss and
// duplication, partitions, FIFO links), with crashes and recoveries at given times and a seeded
// random source. The same spec and seed give the same trace, event for event, and the same rules
// and seed give the same message fates as the relay under the same sends.
import {
  DEFAULT_TIMING,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type DetectorMode,
  type Message,
  type ProcessId,
  type Report,
  type StepContext,
  type Timing,
  type AnyAlgorithm,
} from '../algorithms/algorithm.ts';
import { DEFAULT_LINK, type LinkOverride } from '../protocol/lab-config.ts';
import { TimeQueue, type DistributiveOmit } from './event-queue.ts';
import { startProcess, stepProcess, TimerGenerations, type StateHandlers } from './executor.ts';
import { LOST, Network, networkRandom, PARTITIONED, type NetworkRules } from './network.ts';
import { createRng, deriveSeed, type Random } from './rng.ts';
import type { DropReason, TraceEvent } from '../protocol/trace.ts';

export interface LinkModel {
  delay: number;
  jitter: number;
  drop: number;
  /** Probability that a delivered message arrives twice (as the relay's fabric can): the copy gets its own delay. */
  duplicate: number;
}

export interface SimulationSpec {
  algorithm: AnyAlgorithm;
  ids: readonly ProcessId[];
  ring?: readonly ProcessId[];
  timing?: Partial<Timing>;
  detector?: DetectorMode;
  options?: Record<string, unknown>;
  /** Default: the highest id (a steady start). `null`: every process starts fresh and holds an election. */
  initialCoordinator?: ProcessId | null;
  link?: Partial<LinkModel>;
  /** Directed per-link overrides, keyed `"from->to"`. */
  links?: Record<string, Partial<LinkModel>>;
  /**
   * The network as a lab's fabric states it (burst loss, time scale, reordering, directed
   * overrides): the relay's rules, run as they are. `link` and `links` are then ignored.
   */
  network?: NetworkRules;
  /** From `at` on, `link` and `links` are replaced by these (e.g. slow links that come back within bounds). */
  linkChanges?: {
    at: number;
    link?: Partial<LinkModel>;
    links?: Record<string, Partial<LinkModel>>;
  }[];
  crashes?: { id: ProcessId; at: number }[];
  recoveries?: { id: ProcessId; at: number }[];
  /** `elect` events: the initiator's failure detector firing (or the instructor asking). */
  elections?: { id: ProcessId; at: number }[];
  /**
   * Partition changes; `groups: null` heals. Ids in no group share one implicit group. As in the
   * relay, a message in flight when a cut separates its ends is dropped when it comes due.
   */
  partitions?: { at: number; groups: ProcessId[][] | null }[];
  /** Loss and duplication stop at this virtual time (for "agree after faults stop" properties). */
  dropUntil?: number;
  seed?: number;
  /**
   * Sees every process's state as it is stored after each step, and `null` when it crashes:
   * for layers whose figures live in the states (the work schedule's audit, shared/work/).
   */
  observe?: (id: ProcessId, state: unknown, now: number) => void;
  until?: number;
  maxEvents?: number;
  trace?: boolean;
}

export interface SimulationResult {
  seed: number;
  endTime: number;
  events: number;
  /** True when the run stopped at `until` or `maxEvents` rather than running out of events. */
  truncated: boolean;
  trace: TraceEvent[];
  live: ProcessId[];
  reports: Record<ProcessId, Report>;
  coordinatorByNode: Record<ProcessId, ProcessId | null>;
  messages: { total: number; byType: Record<string, number>; delivered: number; dropped: number };
  electionTime: number | null;
}

type QueueEntry =
  | { at: number; kind: 'deliver'; msg: number; from: ProcessId; to: ProcessId; message: Message }
  | { at: number; kind: 'timer'; node: ProcessId; name: string; gen: number }
  | { at: number; kind: 'crash' | 'recover' | 'elect'; node: ProcessId }
  | { at: number; kind: 'partition'; groups: ProcessId[][] | null }
  | { at: number; kind: 'links'; rules: NetworkRules };

interface Node {
  id: ProcessId;
  up: boolean;
  state: unknown;
  timers: TimerGenerations;
  report: Report | null;
  random: Random;
  /** When this process's report last changed coordinator or election state. */
  settledAt: number;
}

const DEFAULT_SIM_LINK: LinkModel = { delay: 100, jitter: 0, drop: 0, duplicate: 0 };

/** The simulator's link settings as network rules (the relay's fabric, with FIFO links and real time). */
function rulesOf(link: LinkModel, links: Record<string, Partial<LinkModel>>): NetworkRules {
  const overrides: LinkOverride[] = [];
  for (const [key, l] of Object.entries(links)) {
    const [from, to] = key.split('->').map(Number) as [number, number];
    overrides.push({
      from,
      to,
      delay: l.delay,
      jitter: l.jitter,
      loss: l.drop,
      duplicate: l.duplicate,
    });
  }
  return {
    link: {
      ...DEFAULT_LINK,
      delay: link.delay,
      jitter: link.jitter,
      loss: link.drop,
      duplicate: link.duplicate,
    },
    links: overrides,
    reorder: false,
    timeScale: 1,
  };
}

export function simulate(spec: SimulationSpec): SimulationResult {
  return new Simulation(spec).run();
}

/** One run: the queue, the processes, the network and the counters (simulate() is its only user). */
class Simulation implements StateHandlers<Node> {
  private readonly seed: number;
  private readonly ids: ProcessId[];
  private readonly ring: readonly ProcessId[];
  private readonly timing: Timing;
  private readonly detector: DetectorMode;
  private readonly initialCoordinator: ProcessId | null;
  private readonly recording: boolean;
  private readonly algo: AnyAlgorithm;
  private readonly network: Network;
  private readonly queue = new TimeQueue<QueueEntry>();
  private readonly nodes = new Map<ProcessId, Node>();
  private readonly trace: TraceEvent[] = [];
  private readonly byType: Record<string, number> = {};
  private total = 0;
  private delivered = 0;
  private dropped = 0;
  private nextMsg = 1;
  private seq = 0;
  private now = 0;
  private electionStart: number | null = null;

  constructor(private readonly spec: SimulationSpec) {
    this.seed = spec.seed ?? 1;
    this.ids = [...spec.ids].sort((a, b) => a - b);
    this.ring = spec.ring ? [...spec.ring] : this.ids;
    const link: LinkModel = { ...DEFAULT_SIM_LINK, ...spec.link };
    const rules = spec.network ?? rulesOf(link, spec.links ?? {});
    const transmission = spec.network
      ? (rules.link.delay + rules.link.jitter) * rules.timeScale
      : link.delay + link.jitter;
    this.timing = { ...DEFAULT_TIMING, transmission, ...spec.timing };
    this.detector = spec.detector ?? 'heartbeat';
    this.initialCoordinator =
      spec.initialCoordinator === undefined
        ? this.ids[this.ids.length - 1]!
        : spec.initialCoordinator;
    this.recording = spec.trace ?? true;
    this.algo = spec.algorithm;
    this.network = new Network(rules, networkRandom(this.seed));
  }

  run(): SimulationResult {
    const { spec } = this;
    for (const id of this.ids) {
      this.nodes.set(id, {
        id,
        up: false,
        state: null,
        timers: new TimerGenerations(),
        report: null,
        random: createRng(deriveSeed(this.seed, id)),
        settledAt: 0,
      });
    }
    for (const id of this.ids) this.start(this.nodes.get(id)!, false);
    for (const c of spec.crashes ?? []) this.queue.push({ at: c.at, kind: 'crash', node: c.id });
    for (const r of spec.recoveries ?? [])
      this.queue.push({ at: r.at, kind: 'recover', node: r.id });
    for (const e of spec.elections ?? []) this.queue.push({ at: e.at, kind: 'elect', node: e.id });
    for (const p of spec.partitions ?? [])
      this.queue.push({ at: p.at, kind: 'partition', groups: p.groups });
    for (const c of spec.linkChanges ?? []) {
      this.queue.push({
        at: c.at,
        kind: 'links',
        rules: rulesOf({ ...DEFAULT_SIM_LINK, ...c.link }, c.links ?? {}),
      });
    }
    const until = spec.until ?? 60_000;
    const maxEvents = spec.maxEvents ?? 50_000_000;
    let events = 0;
    let truncated = false;
    for (;;) {
      const next = this.queue.peek();
      if (!next) break;
      if (next.at > until || events >= maxEvents) {
        truncated = true;
        break;
      }
      this.queue.pop();
      events++;
      this.now = next.at;
      this.handle(next);
    }
    return this.result(events, truncated);
  }

  private handle(next: QueueEntry): void {
    switch (next.kind) {
      case 'deliver':
        return this.deliver(next);
      case 'timer': {
        const n = this.nodes.get(next.node)!;
        if (!n.up || !n.timers.fire(next.name, next.gen)) return;
        this.record({ kind: 'timer', node: n.id, name: next.name });
        return this.feed(n, { kind: 'timer', name: next.name });
      }
      case 'elect': {
        const n = this.nodes.get(next.node);
        if (!n?.up) return;
        if (this.electionStart === null) this.electionStart = this.now;
        this.record({ kind: 'elect', node: n.id });
        return this.feed(n, { kind: 'elect' });
      }
      case 'crash': {
        const n = this.nodes.get(next.node);
        if (!n?.up) return;
        n.up = false;
        n.state = null;
        n.report = null;
        this.spec.observe?.(n.id, null, this.now);
        this.record({ kind: 'crash', node: n.id });
        return;
      }
      case 'recover': {
        const n = this.nodes.get(next.node);
        if (!n || n.up) return;
        this.record({ kind: 'recover', node: n.id });
        return this.start(n, true);
      }
      case 'partition':
        this.network.setPartition(next.groups);
        this.record({ kind: 'partition', groups: next.groups });
        return;
      case 'links':
        this.network.configure(next.rules);
        this.record({ kind: 'control', action: 'fabric' });
        return;
    }
  }

  private deliver(d: Extract<QueueEntry, { kind: 'deliver' }>): void {
    const n = this.nodes.get(d.to)!;
    if (!n.up) return this.drop(d.msg, d.from, d.to, d.message.type, 'receiver-crashed');
    if (this.network.partitioned(d.from, d.to))
      return this.drop(d.msg, d.from, d.to, d.message.type, 'partition');
    this.delivered++;
    if (this.recording)
      this.record({ kind: 'deliver', msg: d.msg, from: d.from, to: d.to, type: d.message.type });
    this.feed(n, { kind: 'message', from: d.from, message: d.message });
  }

  private ctxOf(n: Node): StepContext {
    return { now: this.now, random: n.random };
  }

  private start(n: Node, fresh: boolean): void {
    n.up = true;
    n.timers.invalidate();
    startProcess(this.algo, this.configFor(n.id, fresh), this.ctxOf(n), n, this);
  }

  private feed(n: Node, event: AlgorithmEvent): void {
    stepProcess(this.algo, n.state, event, this.ctxOf(n), n, this);
  }

  private configFor(id: ProcessId, fresh: boolean): AlgorithmConfig {
    const { ids, ring, timing, detector, initialCoordinator } = this;
    return {
      self: id,
      ids,
      ring,
      timing,
      detector,
      options: this.spec.options,
      ...(fresh || initialCoordinator === null ? {} : { initialCoordinator }),
    };
  }

  // --- the effect handlers (shared/sim/executor.ts) ---------------------------------------------

  commit(n: Node, state: unknown): void {
    n.state = state;
    this.spec.observe?.(n.id, state, this.now);
  }

  send(n: Node, to: ProcessId, message: Message): void {
    const msg = this.nextMsg++;
    const type = message.type;
    const from = n.id;
    this.total++;
    this.byType[type] = (this.byType[type] ?? 0) + 1;
    if (this.recording) this.record({ kind: 'send', msg, from, to, type, message });
    if (!this.nodes.has(to)) return this.drop(msg, from, to, type, 'unknown-destination');
    const faulty = this.spec.dropUntil === undefined || this.now < this.spec.dropUntil;
    const at = this.network.decideAt(from, to, this.now, faulty);
    if (at === PARTITIONED) return this.drop(msg, from, to, type, 'partition');
    if (at === LOST) return this.drop(msg, from, to, type, 'loss');
    this.queue.push({ at, kind: 'deliver', msg, from, to, message });
    const dupAt = this.network.dupAt;
    if (dupAt !== null) {
      const copy = this.nextMsg++;
      this.record({ kind: 'duplicate', msg: copy, of: msg, from, to, type });
      this.queue.push({ at: dupAt, kind: 'deliver', msg: copy, from, to, message });
    }
  }

  setTimer(n: Node, name: string, after: number): void {
    this.queue.push({
      at: this.now + after,
      kind: 'timer',
      node: n.id,
      name,
      gen: n.timers.set(name),
    });
  }

  cancelTimer(n: Node, name: string): void {
    n.timers.cancel(name);
  }

  report(n: Node, report: Report): void {
    const prev = n.report;
    n.report = report;
    if (!prev || prev.coordinator !== report.coordinator || prev.electing !== report.electing)
      n.settledAt = this.now;
    if (report.electing && this.electionStart === null) this.electionStart = this.now;
    if (this.recording) this.record({ kind: 'report', node: n.id, report });
  }

  // --- bookkeeping ------------------------------------------------------------------------------

  private record(e: DistributiveOmit<TraceEvent, 'seq' | 't'>): void {
    if (this.recording) this.trace.push({ seq: this.seq++, t: this.now, ...e } as TraceEvent);
  }

  private drop(
    msg: number,
    from: ProcessId,
    to: ProcessId,
    type: string,
    reason: DropReason,
  ): void {
    this.dropped++;
    if (this.recording) this.record({ kind: 'drop', msg, from, to, type, reason });
  }

  private result(events: number, truncated: boolean): SimulationResult {
    const live = this.ids.filter((id) => this.nodes.get(id)!.up);
    const reports: Record<ProcessId, Report> = {};
    const coordinatorByNode: Record<ProcessId, ProcessId | null> = {};
    let settled = 0;
    for (const id of live) {
      const n = this.nodes.get(id)!;
      if (n.report) reports[id] = n.report;
      coordinatorByNode[id] = n.report?.coordinator ?? null;
      settled = Math.max(settled, n.settledAt);
    }
    return {
      seed: this.seed,
      endTime: this.now,
      events,
      truncated,
      trace: this.trace,
      live,
      reports,
      coordinatorByNode,
      messages: {
        total: this.total,
        byType: this.byType,
        delivered: this.delivered,
        dropped: this.dropped,
      },
      electionTime: this.electionStart === null ? null : Math.max(0, settled - this.electionStart),
    };
  }
}
