// Deterministic discrete-event simulator: any algorithm over N processes on a virtual clock,
// with per-link delay, jitter, loss and duplication, partitions, crashes and recoveries at given
// times, and a seeded random source. The same spec and seed give the same trace, event for event.
import {
  DEFAULT_TIMING,
  type Algorithm,
  type AlgorithmConfig,
  type DetectorMode,
  type Effect,
  type Message,
  type ProcessId,
  type Report,
  type StepContext,
  type Timing,
} from '../algorithms/algorithm.ts';
import { EventQueue, type DistributiveOmit } from './event-queue.ts';
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
  algorithm: Algorithm<any, any>;
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
  /** From `at` on, `link` and `links` are replaced by these (e.g. slow links that come back within bounds). */
  linkChanges?: { at: number; link?: Partial<LinkModel>; links?: Record<string, Partial<LinkModel>> }[];
  crashes?: { id: ProcessId; at: number }[];
  recoveries?: { id: ProcessId; at: number }[];
  /** `elect` events: the initiator's failure detector firing (or the instructor asking). */
  elections?: { id: ProcessId; at: number }[];
  /** Partition changes; `groups: null` heals. Ids in no group share one implicit group. */
  partitions?: { at: number; groups: ProcessId[][] | null }[];
  /** Loss and duplication stop at this virtual time (for "agree after faults stop" properties). */
  dropUntil?: number;
  seed?: number;
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
  | { at: number; seq: number; kind: 'deliver'; msg: number; from: ProcessId; to: ProcessId; message: Message }
  | { at: number; seq: number; kind: 'timer'; node: ProcessId; name: string; gen: number }
  | { at: number; seq: number; kind: 'crash' | 'recover' | 'elect'; node: ProcessId }
  | { at: number; seq: number; kind: 'partition'; groups: ProcessId[][] | null }
  | { at: number; seq: number; kind: 'links'; link: LinkModel; links: Record<string, Partial<LinkModel>> };

interface Node {
  id: ProcessId;
  up: boolean;
  state: unknown;
  timers: Map<string, number>;
  report: Report | null;
  random: Random;
  /** When this process's report last changed coordinator or election state. */
  settledAt: number;
}

export function simulate(spec: SimulationSpec): SimulationResult {
  const seed = spec.seed ?? 1;
  const ids = [...spec.ids].sort((a, b) => a - b);
  const ring = spec.ring ? [...spec.ring] : ids;
  let link: LinkModel = { delay: 100, jitter: 0, drop: 0, duplicate: 0, ...spec.link };
  let links = spec.links ?? {};
  const timing: Timing = { ...DEFAULT_TIMING, transmission: link.delay + link.jitter, ...spec.timing };
  const detector = spec.detector ?? 'heartbeat';
  const initialCoordinator = spec.initialCoordinator === undefined ? ids[ids.length - 1]! : spec.initialCoordinator;
  const until = spec.until ?? 60_000;
  const maxEvents = spec.maxEvents ?? 50_000_000;
  const recording = spec.trace ?? true;
  const algo = spec.algorithm;

  const net = createRng(deriveSeed(seed, -1));
  const queue = new EventQueue<QueueEntry>();
  const nodes = new Map<ProcessId, Node>();
  const lastArrival = new Map<string, number>();
  const linkCache = new Map<string, LinkModel>();
  const trace: TraceEvent[] = [];
  const byType: Record<string, number> = {};
  let total = 0;
  let delivered = 0;
  let dropped = 0;
  let nextMsg = 1;
  let seq = 0;
  let now = 0;
  let electionStart: number | null = null;
  let groupOf: Map<ProcessId, number> | null = null;

  const record = (e: DistributiveOmit<TraceEvent, 'seq' | 't'>) => {
    if (recording) trace.push({ seq: seq++, t: now, ...e } as TraceEvent);
  };
  const ctxOf = (n: Node): StepContext => ({ now, random: n.random });
  const linkOf = (from: ProcessId, to: ProcessId): LinkModel => {
    const key = `${from}->${to}`;
    let l = linkCache.get(key);
    if (!l) {
      l = links[key] ? { ...link, ...links[key] } : link;
      linkCache.set(key, l);
    }
    return l;
  };

  const configFor = (id: ProcessId, fresh: boolean): AlgorithmConfig => ({
    self: id,
    ids,
    ring,
    timing,
    detector,
    options: spec.options,
    ...(fresh || initialCoordinator === null ? {} : { initialCoordinator }),
  });

  const drop = (msg: number, from: ProcessId, to: ProcessId, type: string, reason: DropReason) => {
    dropped++;
    record({ kind: 'drop', msg, from, to, type, reason });
  };

  const apply = (n: Node, effects: Effect[]) => {
    for (const e of effects) {
      switch (e.kind) {
        case 'send': {
          const msg = nextMsg++;
          const type = e.message.type;
          total++;
          byType[type] = (byType[type] ?? 0) + 1;
          record({ kind: 'send', msg, from: n.id, to: e.to, type, message: e.message });
          if (!nodes.has(e.to)) drop(msg, n.id, e.to, type, 'unknown-destination');
          else if (groupOf && (groupOf.get(n.id) ?? -1) !== (groupOf.get(e.to) ?? -1)) drop(msg, n.id, e.to, type, 'partition');
          else {
            const l = linkOf(n.id, e.to);
            const faulty = spec.dropUntil === undefined || now < spec.dropUntil;
            if (faulty && l.drop > 0 && net() < l.drop) drop(msg, n.id, e.to, type, 'loss');
            else {
              // Per-link FIFO: a message never overtakes an earlier one on the same link.
              const key = `${n.id}->${e.to}`;
              const arrival = () => {
                const at = Math.max(now + l.delay + (l.jitter > 0 ? net() * l.jitter : 0), lastArrival.get(key) ?? 0);
                lastArrival.set(key, at);
                return at;
              };
              queue.push({ at: arrival(), kind: 'deliver', msg, from: n.id, to: e.to, message: e.message });
              // Checked only when the link duplicates, so runs without duplication draw the same numbers as before.
              if (faulty && l.duplicate > 0 && net() < l.duplicate) {
                const copy = nextMsg++;
                record({ kind: 'duplicate', msg: copy, of: msg, from: n.id, to: e.to, type });
                queue.push({ at: arrival(), kind: 'deliver', msg: copy, from: n.id, to: e.to, message: e.message });
              }
            }
          }
          break;
        }
        case 'set-timer': {
          const gen = (n.timers.get(e.name) ?? 0) + 1;
          n.timers.set(e.name, gen);
          queue.push({ at: now + e.after, kind: 'timer', node: n.id, name: e.name, gen });
          break;
        }
        case 'cancel-timer':
          // Bump the generation so the queued entry is ignored when it comes due.
          if (n.timers.has(e.name)) n.timers.set(e.name, n.timers.get(e.name)! + 1);
          break;
        case 'report': {
          const prev = n.report;
          n.report = e.report;
          if (!prev || prev.coordinator !== e.report.coordinator || prev.electing !== e.report.electing) n.settledAt = now;
          if (e.report.electing && electionStart === null) electionStart = now;
          record({ kind: 'report', node: n.id, report: e.report });
          break;
        }
      }
    }
  };

  const start = (n: Node, fresh: boolean) => {
    n.up = true;
    n.timers = new Map([...n.timers].map(([k, g]) => [k, g + 1]));
    const out = algo.init(configFor(n.id, fresh), ctxOf(n));
    n.state = out.state;
    apply(n, out.effects);
  };

  for (const id of ids) {
    nodes.set(id, { id, up: false, state: null, timers: new Map(), report: null, random: createRng(deriveSeed(seed, id)), settledAt: 0 });
  }
  for (const id of ids) start(nodes.get(id)!, false);
  for (const c of spec.crashes ?? []) queue.push({ at: c.at, kind: 'crash', node: c.id });
  for (const r of spec.recoveries ?? []) queue.push({ at: r.at, kind: 'recover', node: r.id });
  for (const e of spec.elections ?? []) queue.push({ at: e.at, kind: 'elect', node: e.id });
  for (const p of spec.partitions ?? []) queue.push({ at: p.at, kind: 'partition', groups: p.groups });
  for (const c of spec.linkChanges ?? []) {
    queue.push({ at: c.at, kind: 'links', link: { delay: 100, jitter: 0, drop: 0, duplicate: 0, ...c.link }, links: c.links ?? {} });
  }

  let events = 0;
  let truncated = false;
  for (;;) {
    const next = queue.peek();
    if (!next) break;
    if (next.at > until || events >= maxEvents) {
      truncated = true;
      break;
    }
    queue.pop();
    events++;
    now = next.at;
    switch (next.kind) {
      case 'deliver': {
        const n = nodes.get(next.to)!;
        if (!n.up) {
          drop(next.msg, next.from, next.to, next.message.type, 'receiver-crashed');
          break;
        }
        delivered++;
        record({ kind: 'deliver', msg: next.msg, from: next.from, to: next.to, type: next.message.type });
        const out = algo.step(n.state, { kind: 'message', from: next.from, message: next.message }, ctxOf(n));
        n.state = out.state;
        apply(n, out.effects);
        break;
      }
      case 'timer': {
        const n = nodes.get(next.node)!;
        if (!n.up || n.timers.get(next.name) !== next.gen) break;
        // Fired: bump the generation rather than forget it, so a later set-timer of this name
        // never reuses a generation an older, replaced entry still in the queue carries.
        n.timers.set(next.name, next.gen + 1);
        record({ kind: 'timer', node: n.id, name: next.name });
        const out = algo.step(n.state, { kind: 'timer', name: next.name }, ctxOf(n));
        n.state = out.state;
        apply(n, out.effects);
        break;
      }
      case 'elect': {
        const n = nodes.get(next.node);
        if (!n?.up) break;
        if (electionStart === null) electionStart = now;
        record({ kind: 'elect', node: n.id });
        const out = algo.step(n.state, { kind: 'elect' }, ctxOf(n));
        n.state = out.state;
        apply(n, out.effects);
        break;
      }
      case 'crash': {
        const n = nodes.get(next.node);
        if (!n?.up) break;
        n.up = false;
        n.state = null;
        n.report = null;
        record({ kind: 'crash', node: n.id });
        break;
      }
      case 'recover': {
        const n = nodes.get(next.node);
        if (!n || n.up) break;
        record({ kind: 'recover', node: n.id });
        start(n, true);
        break;
      }
      case 'partition':
        groupOf = next.groups ? new Map(next.groups.flatMap((g, i) => g.map((id) => [id, i] as const))) : null;
        record({ kind: 'partition', groups: next.groups });
        break;
      case 'links':
        link = next.link;
        links = next.links;
        linkCache.clear();
        record({ kind: 'control', action: 'fabric' });
        break;
    }
  }

  const live = ids.filter((id) => nodes.get(id)!.up);
  const reports: Record<ProcessId, Report> = {};
  const coordinatorByNode: Record<ProcessId, ProcessId | null> = {};
  let settled = 0;
  for (const id of live) {
    const n = nodes.get(id)!;
    if (n.report) reports[id] = n.report;
    coordinatorByNode[id] = n.report?.coordinator ?? null;
    settled = Math.max(settled, n.settledAt);
  }
  return {
    seed,
    endTime: now,
    events,
    truncated,
    trace,
    live,
    reports,
    coordinatorByNode,
    messages: { total, byType, delivered, dropped },
    electionTime: electionStart === null ? null : Math.max(0, settled - electionStart),
  };
}
