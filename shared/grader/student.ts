// A student's module as an Algorithm every host can run: the simulator and the explorer in the
// grader, and the sandbox worker behind her tab in a live lab. What she exports is checked once
// (the contract's shape, her name and message types against the lab's algorithm); every call into
// her code is then watched: an exception, a report that is not one, or effects that are not
// effects become a ModuleFault naming the process, the virtual time, the event and the line, and
// never reach a host as garbage. docs/STUDENT_MODULES.md is the student's side of this file.
//
// The host supplies, besides the contract's config/ctx:
// - her reports: `report(state)` is called after every step and announced when it changed (a
//   `report` effect she returns is ignored), so she cannot forget one;
// - for Bully and both rings, the failure detector (shared/algorithms/failure-detector.ts, the
//   one the bots run): it heartbeats or polls as the lab's `detector` says, watches whoever her
//   report names as coordinator, and gives her an `elect` event when it suspects it or hears a
import { leads } from '../analysis/properties.ts';
import {
  sameReport,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type AlgorithmName,
  type Algorithm,
  type Effect,
  type Message,
  type ProcessId,
  type Report,
  type Step,
  type StepContext,
} from '../algorithms/algorithm.ts';
import {
  DETECTOR_OFF,
  detectorMessage,
  detectorTimer,
  follow,
  isDetectorMessage,
  isDetectorTimer,
  lead,
  stopDetector,
  type DetectorSetup,
  type DetectorState,
  type DetectorStep,
} from '../algorithms/failure-detector.ts';
import { settleGrace } from '../algorithms/ring-detection.ts';
import { ReportSchema } from '../protocol/payloads.ts';
import {
  checkEffects,
  DETECTOR_MESSAGE_TYPES,
  HOST_DETECTOR,
  kindOf,
  maxSendsPerStep,
  plainProblem,
  studentMessageTypes,
  wireProblem,
  wireTypes,
  type Rules,
} from './effect-check.ts';
import { describeAlgorithmEvent, ModuleFault, thrown, type FaultInfo } from './module-fault.ts';

/** Told before and after every call into her code (the sandbox's watchdog listens). */
export interface Beacon {
  begin(process: ProcessId, event: string, t: number): void;
  end(): void;
}

export interface StudentOptions {
  /** The lab's algorithm: her module must say the same name and speak its messages. */
  algorithm: AlgorithmName;
  /** How her module was loaded (data:, blob: or file: URL): exceptions are located by it. */
  url?: string;
  beacon?: Beacon;
  /** A step taking longer than this (ms, by `clock`) is a fault even though it returned. */
  stepMs?: number;
  clock?: () => number;
  /** Give her step a copy of her state (the explorer shares states between worlds). */
  copyState?: boolean;
  /** Check after every call that her state is plain data (the grader's runs). */
  checkState?: boolean;
  /** Messages that do not fit the lab's wire format (what the bots understand) are told here. */
  onWire?: (problem: WireProblem) => void;
}

export interface WireProblem {
  process: ProcessId;
  type: string;
  message: string;
}

/** What the host keeps for her process: her state, the detector it runs for her, her last report. */
export interface Boxed {
  self: ProcessId;
  user: unknown;
  fd: DetectorState;
  last: Report | null;
}

/** The module's default export, checked against the contract (throws a `shape` ModuleFault). */
interface StudentModule {
  name: string;
  messageTypes: readonly string[];
  init(config: AlgorithmConfig, ctx: StepContext): unknown;
  step(state: unknown, event: AlgorithmEvent, ctx: StepContext): unknown;
  report(state: unknown): unknown;
}

export function checkExports(exported: unknown, algorithm: AlgorithmName): StudentModule {
  const shape = (message: string) => new ModuleFault({ kind: 'shape', message });
  const ns = exported as { default?: unknown } | null;
  if (!ns || typeof ns !== 'object') throw shape('the module exports nothing');
  const m = ns.default as Partial<StudentModule> | undefined;
  if (m === undefined)
    throw shape(
      'the module has no default export: end it with export default { name, messageTypes, init, step, report }',
    );
  if (!m || typeof m !== 'object')
    throw shape(
      `the default export is ${kindOf(m)}; it must be an object { name, messageTypes, init, step, report }`,
    );
  for (const f of ['init', 'step', 'report'] as const)
    if (typeof m[f] !== 'function') throw shape(`the default export has no ${f} function`);
  if (m.name !== algorithm)
    throw shape(
      `name is ${JSON.stringify(m.name) ?? 'missing'}, but this is a ${algorithm} lab: set name: '${algorithm}'`,
    );
  const allowed = studentMessageTypes(algorithm);
  if (
    !Array.isArray(m.messageTypes) ||
    m.messageTypes.length === 0 ||
    !m.messageTypes.every((t) => typeof t === 'string')
  ) {
    throw shape(
      `messageTypes must be a list of the message types you send (for ${algorithm}: ${allowed.join(', ')})`,
    );
  }
  const unknown = m.messageTypes.filter((t) => !allowed.includes(t));
  if (unknown.length) {
    const reserved = unknown.filter((t) => DETECTOR_MESSAGE_TYPES.includes(t));
    if (reserved.length === unknown.length)
      throw shape(
        `messageTypes lists ${reserved.join(', ')}: the host runs the failure detector for ${algorithm}; leave them out`,
      );
    throw shape(
      `messageTypes lists ${unknown.join(', ')}, which ${algorithm}'s bots do not know (its types: ${allowed.join(', ')})`,
    );
  }
  return m as StudentModule;
}

/**
 * Her module as an Algorithm over boxed states. Every call is guarded; a failure throws a
 * ModuleFault. `reference` supplies the message types listed on the dashboard.
 */
export function studentAlgorithm(exported: unknown, opts: StudentOptions): Algorithm<Boxed> {
  const mod = checkExports(exported, opts.algorithm);
  const shim = HOST_DETECTOR.includes(opts.algorithm);
  const types = new Set(mod.messageTypes);
  const reservedTypes = new Set<string>(shim ? DETECTOR_MESSAGE_TYPES : []);
  const clock = opts.clock;
  // Per-process constants (rules, detector setup), computed at init and kept off the state.
  const perProcess = new Map<ProcessId, { rules: Rules; setup: DetectorSetup; grace: number }>();

  const call = <T>(self: ProcessId, t: number, event: string, fn: () => T): T => {
    opts.beacon?.begin(self, event, t);
    const started = clock?.();
    let out: T;
    try {
      out = fn();
    } catch (err) {
      opts.beacon?.end();
      if (err instanceof ModuleFault) throw err;
      throw new ModuleFault(thrown(err, self, t, event, opts.url));
    }
    opts.beacon?.end();
    if (started !== undefined && opts.stepMs !== undefined) {
      const took = clock!() - started;
      if (took > opts.stepMs)
        throw new ModuleFault({
          kind: 'slow',
          message: `a call took ${Math.round(took)} ms; each may take at most ${opts.stepMs} ms`,
          process: self,
          t,
          event,
        });
    }
    return out;
  };

  const fault = (
    kind: FaultInfo['kind'],
    message: string,
    self: ProcessId,
    t: number,
    event: string,
  ) => new ModuleFault({ kind, message, process: self, t, event });

  /** Her `{ state, effects }` checked; her report after it, announced when it changed. */
  const finish = (
    box: Boxed,
    out: unknown,
    self: ProcessId,
    t: number,
    event: string,
    fx: Effect[],
  ): Step<Boxed> => {
    if (!out || typeof out !== 'object' || !('state' in out) || !('effects' in out)) {
      throw fault(
        'effects',
        `${event === 'init' ? 'init' : 'step'} must return { state, effects }, got ${kindOf(out)}`,
        self,
        t,
        event,
      );
    }
    const p = perProcess.get(self)!;
    const { state, effects } = out as { state: unknown; effects: unknown };
    if (state === undefined)
      throw fault(
        'state',
        'the state is undefined: return the state (a plain object) with the effects',
        self,
        t,
        event,
      );
    if (opts.checkState) {
      const problem = plainProblem(state, 'state');
      if (problem)
        throw fault(
          'state',
          `${problem} (the state must be plain data: the explorer copies and compares states)`,
          self,
          t,
          event,
        );
    }
    let checked: Effect[];
    try {
      checked = checkEffects(effects, p.rules);
    } catch (err) {
      throw fault('effects', (err as Error).message, self, t, event);
    }
    if (opts.onWire) {
      for (const e of checked) {
        if (e.kind !== 'send') continue;
        const problem = wireProblem(opts.algorithm, e.message);
        if (problem) opts.onWire({ process: self, type: e.message.type, message: problem });
      }
    }
    const raw = call(self, t, `report after ${event}`, () => mod.report(state));
    const parsed = ReportSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw fault(
        'report',
        `report(state) returned something that is not a report: ${issue.path.map(String).join('.') || 'the report'}: ${issue.message} (a report is { role, coordinator, electing })`,
        self,
        t,
        event,
      );
    }
    const report = parsed.data as Report;
    if (report.coordinator !== null && !p.rules.ids.has(report.coordinator))
      throw fault(
        'report',
        `report.coordinator is ${report.coordinator}, which is not in this lab`,
        self,
        t,
        event,
      );
    let next: Boxed = { self, user: state, fd: box.fd, last: box.last };
    const all = [...fx, ...checked];
    if (shim) next = sync(next, report, p.setup, self, p.grace, all);
    if (!next.last || !sameReport(next.last, report)) {
      all.push({ kind: 'report', report });
      next = { ...next, last: report };
    }
    return { state: next, effects: all };
  };

  /** The detector follows her report: lead when she leads, follow her coordinator, rest while she elects. */
  const sync = (
    box: Boxed,
    r: Report,
    setup: DetectorSetup,
    self: ProcessId,
    grace: number,
    fx: Effect[],
  ): Boxed => {
    let d: DetectorStep<Message> | null = null;
    if (leads(r)) {
      if (box.fd.role !== 'lead') d = lead(setup);
    } else if (!r.electing && r.coordinator !== null && r.coordinator !== self) {
      if (box.fd.role !== 'follow' || box.fd.leader !== r.coordinator)
        d = follow(setup, r.coordinator, grace);
    } else if (box.fd.role !== 'off') d = stopDetector(setup, box.fd);
    if (!d) return box;
    fx.push(...d.effects);
    return { ...box, fd: d.state };
  };

  const userStep = (
    box: Boxed,
    event: AlgorithmEvent,
    ctx: StepContext,
    self: ProcessId,
    fx: Effect[],
    label = describeAlgorithmEvent(event),
  ): Step<Boxed> => {
    let input = box.user;
    if (opts.copyState) {
      try {
        input = structuredClone(box.user);
      } catch (err) {
        throw fault(
          'state',
          `the state cannot be copied: ${(err as Error).message} (keep it plain data)`,
          self,
          ctx.now,
          label,
        );
      }
    }
    // The event is hers to keep: a copy, so nothing she does to it reaches another process's.
    const ev =
      event.kind === 'message'
        ? { kind: 'message' as const, from: event.from, message: structuredClone(event.message) }
        : { ...event };
    const out = call(self, ctx.now, label, () => mod.step(input, ev, ctx));
    return finish(box, out, self, ctx.now, label, fx);
  };

  return {
    name: opts.algorithm,
    messageTypes: wireTypes(opts.algorithm),
    init(config, ctx) {
      const self = config.self;
      const others = config.ids.filter((id) => id !== self);
      perProcess.set(self, {
        rules: {
          self,
          ids: new Set(config.ids),
          types,
          reservedTypes,
          reservedTimers: shim,
          maxSends: maxSendsPerStep(config.ids.length),
        },
        setup: {
          mode: config.detector,
          timing: config.timing,
          peers: others,
          probes: others.filter((id) => id > self),
        },
        grace: opts.algorithm === 'bully' ? 0 : settleGrace(config),
      });
      // Her own copy of the config: nothing she changes in it reaches the host.
      const mine: AlgorithmConfig = structuredClone({
        ...config,
        ids: [...config.ids],
        ring: [...config.ring],
      });
      const out = call(self, ctx.now, 'init', () => mod.init(mine, ctx));
      return finish(
        { self, user: null, fd: DETECTOR_OFF, last: null },
        out,
        self,
        ctx.now,
        'init',
        [],
      );
    },
    step(box, event, ctx) {
      const self = box.self;
      if (shim && event.kind === 'message' && isDetectorMessage(event.message)) {
        const fx: Effect[] = [];
        const d = detectorMessage<Message>(
          perProcess.get(self)!.setup,
          box.fd,
          event.from,
          event.message,
        );
        fx.push(...d.effects);
        const next = { ...box, fd: d.state };
        if (d.observed.kind === 'leader-seen' && callsElection(box.last, d.observed.id)) {
          return userStep(
            next,
            { kind: 'elect' },
            ctx,
            self,
            fx,
            `elect (the host's detector hears leader ${d.observed.id})`,
          );
        }
        return { state: next, effects: fx };
      }
      if (shim && event.kind === 'timer' && isDetectorTimer(event.name)) {
        const fx: Effect[] = [];
        const d = detectorTimer<Message>(perProcess.get(self)!.setup, box.fd, event.name);
        fx.push(...d.effects);
        const next = { ...box, fd: d.state };
        if (d.observed.kind === 'suspect' && !box.last?.electing) {
          return userStep(
            next,
            { kind: 'elect' },
            ctx,
            self,
            fx,
            `elect (the host's detector suspects ${d.observed.leader})`,
          );
        }
        return { state: next, effects: fx };
      }
      return userStep(box, event, ctx, self, []);
    },
    report(box) {
      return box.last ?? { role: 'starting', coordinator: null, electing: false };
    },
  };
}

/** A leader heard above the coordinator she follows (or while she follows none): elect, as the bots do. */
function callsElection(last: Report | null, heard: ProcessId): boolean {
  if (!last || last.electing) return false;
  return last.coordinator === null || heard > last.coordinator;
}
