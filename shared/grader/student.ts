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

/** Where a call into her code happens: every fault it raises names the process, time and event. */
interface At {
  process: ProcessId;
  t: number;
  event: string;
}

const fault = (kind: FaultInfo['kind'], message: string, at: At) =>
  new ModuleFault({ kind, message, process: at.process, t: at.t, event: at.event });

/** Per-process constants (rules, detector setup), computed at init and kept off the state. */
interface PerProcess {
  rules: Rules;
  setup: DetectorSetup;
  grace: number;
}

/** What the wrapper's parts share: her checked module, the host's options, per-process constants. */
interface Student {
  mod: StudentModule;
  opts: StudentOptions;
  /** The host runs the failure detector for her (Bully and both rings). */
  shim: boolean;
  types: Set<string>;
  reservedTypes: Set<string>;
  perProcess: Map<ProcessId, PerProcess>;
}

/**
 * Her module as an Algorithm over boxed states. Every call is guarded; a failure throws a
 * ModuleFault. `reference` supplies the message types listed on the dashboard.
 */
export function studentAlgorithm(exported: unknown, opts: StudentOptions): Algorithm<Boxed> {
  const mod = checkExports(exported, opts.algorithm);
  const shim = HOST_DETECTOR.includes(opts.algorithm);
  const s: Student = {
    mod,
    opts,
    shim,
    types: new Set(mod.messageTypes),
    reservedTypes: new Set<string>(shim ? DETECTOR_MESSAGE_TYPES : []),
    perProcess: new Map(),
  };
  return {
    name: opts.algorithm,
    messageTypes: wireTypes(opts.algorithm),
    init: (config, ctx) => initProcess(s, config, ctx),
    step: (box, event, ctx) => detectorStep(s, box, event, ctx) ?? userStep(s, box, event, ctx, []),
    report: (box) => box.last ?? { role: 'starting', coordinator: null, electing: false },
  };
}

/** One call into her code, told to the beacon, an exception or an overlong call made a fault. */
function guardedCall<T>(s: Student, at: At, fn: () => T): T {
  const { beacon, clock, stepMs, url } = s.opts;
  beacon?.begin(at.process, at.event, at.t);
  const started = clock?.();
  let out: T;
  try {
    out = fn();
  } catch (err) {
    beacon?.end();
    if (err instanceof ModuleFault) throw err;
    throw new ModuleFault(thrown(err, at.process, at.t, at.event, url));
  }
  beacon?.end();
  if (started !== undefined && stepMs !== undefined) {
    const took = clock!() - started;
    if (took > stepMs)
      throw new ModuleFault({
        kind: 'slow',
        message: `a call took ${Math.round(took)} ms; each may take at most ${stepMs} ms`,
        process: at.process,
        t: at.t,
        event: at.event,
      });
  }
  return out;
}

/** Her init, on her own copy of the config, with the process's rules and detector set up first. */
function initProcess(s: Student, config: AlgorithmConfig, ctx: StepContext): Step<Boxed> {
  const self = config.self;
  const others = config.ids.filter((id) => id !== self);
  s.perProcess.set(self, {
    rules: {
      self,
      ids: new Set(config.ids),
      types: s.types,
      reservedTypes: s.reservedTypes,
      reservedTimers: s.shim,
      maxSends: maxSendsPerStep(config.ids.length),
    },
    setup: {
      mode: config.detector,
      timing: config.timing,
      peers: others,
      probes: others.filter((id) => id > self),
    },
    grace: s.opts.algorithm === 'bully' ? 0 : settleGrace(config),
  });
  // Her own copy of the config: nothing she changes in it reaches the host.
  const mine: AlgorithmConfig = structuredClone({
    ...config,
    ids: [...config.ids],
    ring: [...config.ring],
  });
  const at: At = { process: self, t: ctx.now, event: 'init' };
  const out = guardedCall(s, at, () => s.mod.init(mine, ctx));
  return finish(s, { self, user: null, fd: DETECTOR_OFF, last: null }, out, at, []);
}

/**
 * The host's detector handles its own messages and timers; when it hears a higher leader or
 * suspects hers, she gets an `elect` event. Null when the event is hers.
 */
function detectorStep(
  s: Student,
  box: Boxed,
  event: AlgorithmEvent,
  ctx: StepContext,
): Step<Boxed> | null {
  if (!s.shim) return null;
  // Read only for the detector's own events, as a user event never needs it.
  const setup = () => s.perProcess.get(box.self)!.setup;
  let d: DetectorStep<Message>;
  let elect: string | null = null;
  if (event.kind === 'message' && isDetectorMessage(event.message)) {
    d = detectorMessage<Message>(setup(), box.fd, event.from, event.message);
    if (d.observed.kind === 'leader-seen' && callsElection(box.last, d.observed.id))
      elect = `elect (the host's detector hears leader ${d.observed.id})`;
  } else if (event.kind === 'timer' && isDetectorTimer(event.name)) {
    d = detectorTimer<Message>(setup(), box.fd, event.name);
    if (d.observed.kind === 'suspect' && !box.last?.electing)
      elect = `elect (the host's detector suspects ${d.observed.leader})`;
  } else return null;
  const fx: Effect[] = [...d.effects];
  const next = { ...box, fd: d.state };
  if (elect === null) return { state: next, effects: fx };
  return userStep(s, next, { kind: 'elect' }, ctx, fx, elect);
}

/** Her step on (a copy of) her state and her own copy of the event, then checked. */
function userStep(
  s: Student,
  box: Boxed,
  event: AlgorithmEvent,
  ctx: StepContext,
  fx: Effect[],
  label = describeAlgorithmEvent(event),
): Step<Boxed> {
  const at: At = { process: box.self, t: ctx.now, event: label };
  let input = box.user;
  if (s.opts.copyState) {
    try {
      input = structuredClone(box.user);
    } catch (err) {
      throw fault(
        'state',
        `the state cannot be copied: ${(err as Error).message} (keep it plain data)`,
        at,
      );
    }
  }
  // The event is hers to keep: a copy, so nothing she does to it reaches another process's.
  const ev =
    event.kind === 'message'
      ? { kind: 'message' as const, from: event.from, message: structuredClone(event.message) }
      : { ...event };
  const out = guardedCall(s, at, () => s.mod.step(input, ev, ctx));
  return finish(s, box, out, at, fx);
}

/** Her `{ state, effects }` checked; her report after it, announced when it changed. */
function finish(s: Student, box: Boxed, out: unknown, at: At, fx: Effect[]): Step<Boxed> {
  const { state, checked } = checkStepResult(s, out, at);
  const report = checkReport(s, state, at);
  const p = s.perProcess.get(at.process)!;
  let next: Boxed = { self: at.process, user: state, fd: box.fd, last: box.last };
  const all = [...fx, ...checked];
  if (s.shim) next = syncDetector(next, report, p, all);
  if (!next.last || !sameReport(next.last, report)) {
    all.push({ kind: 'report', report });
    next = { ...next, last: report };
  }
  return { state: next, effects: all };
}

/** What her init or step returned: a defined state (plain data when asked) and valid effects. */
function checkStepResult(s: Student, out: unknown, at: At): { state: unknown; checked: Effect[] } {
  if (!out || typeof out !== 'object' || !('state' in out) || !('effects' in out)) {
    const fn = at.event === 'init' ? 'init' : 'step';
    throw fault('effects', `${fn} must return { state, effects }, got ${kindOf(out)}`, at);
  }
  const { state, effects } = out as { state: unknown; effects: unknown };
  if (state === undefined)
    throw fault(
      'state',
      'the state is undefined: return the state (a plain object) with the effects',
      at,
    );
  if (s.opts.checkState) {
    const problem = plainProblem(state, 'state');
    if (problem)
      throw fault(
        'state',
        `${problem} (the state must be plain data: the explorer copies and compares states)`,
        at,
      );
  }
  let checked: Effect[];
  try {
    checked = checkEffects(effects, s.perProcess.get(at.process)!.rules);
  } catch (err) {
    throw fault('effects', (err as Error).message, at);
  }
  const onWire = s.opts.onWire;
  if (onWire)
    for (const e of checked) {
      if (e.kind !== 'send') continue;
      const problem = wireProblem(s.opts.algorithm, e.message);
      if (problem) onWire({ process: at.process, type: e.message.type, message: problem });
    }
  return { state, checked };
}

/** Her report of the new state: a report, naming a coordinator that is in this lab. */
function checkReport(s: Student, state: unknown, at: At): Report {
  const raw = guardedCall(s, { ...at, event: `report after ${at.event}` }, () =>
    s.mod.report(state),
  );
  const parsed = ReportSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw fault(
      'report',
      `report(state) returned something that is not a report: ${issue.path.map(String).join('.') || 'the report'}: ${issue.message} (a report is { role, coordinator, electing })`,
      at,
    );
  }
  const report = parsed.data as Report;
  if (
    report.coordinator !== null &&
    !s.perProcess.get(at.process)!.rules.ids.has(report.coordinator)
  )
    throw fault(
      'report',
      `report.coordinator is ${report.coordinator}, which is not in this lab`,
      at,
    );
  return report;
}

/** The detector follows her report: lead when she leads, follow her coordinator, rest while she elects. */
function syncDetector(box: Boxed, r: Report, p: PerProcess, fx: Effect[]): Boxed {
  let d: DetectorStep<Message> | null = null;
  if (leads(r)) {
    if (box.fd.role !== 'lead') d = lead(p.setup);
  } else if (!r.electing && r.coordinator !== null && r.coordinator !== box.self) {
    if (box.fd.role !== 'follow' || box.fd.leader !== r.coordinator)
      d = follow(p.setup, r.coordinator, p.grace);
  } else if (box.fd.role !== 'off') d = stopDetector(p.setup, box.fd);
  if (!d) return box;
  fx.push(...d.effects);
  return { ...box, fd: d.state };
}

/** A leader heard above the coordinator she follows (or while she follows none): elect, as the bots do. */
function callsElection(last: Report | null, heard: ProcessId): boolean {
  if (!last || last.electing) return false;
  return last.coordinator === null || heard > last.coordinator;
}
