// The contract every election algorithm implements.
//
// An algorithm is a pure state machine, after etcd's raft: the host feeds it events and carries
// out the effects it returns. No sockets, clocks or randomness inside: time arrives as events
// (timers the algorithm asked for) and `ctx.now`, randomness through `ctx.random`, which the host
// seeds. The same code then runs in the simulator, in a bot, in a browser tab and in tests.

export type ProcessId = number;

export const ALGORITHM_NAMES = ['bully', 'ring', 'ring-active-list', 'emergent', 'raft'] as const;
export type AlgorithmName = (typeof ALGORITHM_NAMES)[number];

/** Timing bounds a lab declares; every algorithm derives its timeouts from these. */
export interface Timing {
  /** T: upper bound on one message transmission, in ms. */
  transmission: number;
  /** M: upper bound on processing one message, in ms. */
  processing: number;
  /** Period of coordinator heartbeats (or polls), in ms. */
  heartbeatInterval: number;
  /** A follower suspects the coordinator after this long without a heartbeat, in ms. */
  heartbeatTimeout: number;
}

export const DEFAULT_TIMING: Timing = {
  transmission: 100,
  processing: 10,
  heartbeatInterval: 500,
  heartbeatTimeout: 1500,
};

/** UB = 2T + M: the longest a request may wait for its answer (the documents' bound). */
export function roundTripBound(t: Timing): number {
  return 2 * t.transmission + t.processing;
}

/** How a process learns that its coordinator is gone. */
export type DetectorMode =
  | 'heartbeat' // the coordinator sends HEARTBEAT every interval; silence past the timeout triggers an election
  | 'poll' // each process asks the coordinator (PING) every interval; no PONG within UB triggers one
  | 'none'; // only an explicit `elect` event starts an election (the simulator's --initiator runs)

export interface AlgorithmConfig {
  self: ProcessId;
  /** Every id the process knows of (it does not know which are up). Sorted ascending. */
  ids: readonly ProcessId[];
  /** Ring order for the ring algorithms (default: ascending ids). */
  ring: readonly ProcessId[];
  timing: Timing;
  detector: DetectorMode;
  /**
   * Start in a steady state that already agrees on this coordinator, holding no election
   * (the simulator's starting point). Absent: the process holds an election on start, as the
   * documents require on start and on restart.
   */
  initialCoordinator?: ProcessId | null;
  /** Algorithm-specific options (pool limits, election timeout ranges...). */
  options?: Readonly<Record<string, unknown>>;
}

/** What a process shows the dashboard. Small and flat: it travels on every state change. */
export interface Report {
  role: string;
  coordinator: ProcessId | null;
  electing: boolean;
  activeList?: ProcessId[];
  successor?: ProcessId | null;
  term?: number;
  /** Extra algorithm-specific figures (e.g. the emergent algorithm's slave pool size). */
  detail?: Record<string, number | string | boolean | null>;
}

/** Every algorithm message is a JSON object with a string `type`. */
export interface Message {
  type: string;
  [field: string]: unknown;
}

export type AlgorithmEvent<M extends Message = Message> =
  | { kind: 'message'; from: ProcessId; message: M }
  | { kind: 'timer'; name: string }
  /** Start an election now: a failure detector outside the algorithm, or the instructor. */
  | { kind: 'elect' };

export type Effect<M extends Message = Message> =
  | { kind: 'send'; to: ProcessId; message: M }
  /** Setting a timer that is already set replaces it. */
  | { kind: 'set-timer'; name: string; after: number }
  | { kind: 'cancel-timer'; name: string }
  | { kind: 'report'; report: Report };

export interface StepContext {
  /** Virtual or real ms since the process started; for bookkeeping only, never for decisions that timers should make. */
  now: number;
  /** Uniform in [0, 1), from the host's seeded generator. */
  random: () => number;
}

export interface Step<S, M extends Message = Message> {
  state: S;
  effects: Effect<M>[];
}

export interface Algorithm<S = unknown, M extends Message = Message> {
  name: AlgorithmName;
  /** Message types this algorithm sends, in the order the dashboard lists them. */
  messageTypes: readonly string[];
  /** Start (or restart after a crash: state is lost, the process starts from scratch). */
  init(config: AlgorithmConfig, ctx: StepContext): Step<S, M>;
  step(state: S, event: AlgorithmEvent<M>, ctx: StepContext): Step<S, M>;
  report(state: S): Report;
}

/**
 * An algorithm whose state and message types are not known here: the registry, the hosts and the
 * tools hold the five side by side. `step` takes the state its own `init` returned, so the state
 * type is existential; `unknown` would reject every concrete algorithm (parameter contravariance).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- existential type, see above
export type AnyAlgorithm = Algorithm<any, any>;

/** Ring successor order helper shared by the ring algorithms: the ids after `self`, wrapping. */
export function successorsOf(ring: readonly ProcessId[], self: ProcessId): ProcessId[] {
  const i = ring.indexOf(self);
  if (i < 0) return [...ring];
  return [...ring.slice(i + 1), ...ring.slice(0, i)];
}

/**
 * Wraps an algorithm's raw step so that a `report` effect is appended whenever the report
 * changes. Algorithms then never forget to announce their state.
 */
export function withReports<S, M extends Message>(
  raw: Omit<Algorithm<S, M>, 'init' | 'step'> & {
    init(config: AlgorithmConfig, ctx: StepContext): Step<S, M>;
    step(state: S, event: AlgorithmEvent<M>, ctx: StepContext): Step<S, M>;
  },
): Algorithm<S, M> {
  return {
    ...raw,
    init(config, ctx) {
      const out = raw.init(config, ctx);
      return {
        state: out.state,
        effects: [...out.effects, { kind: 'report', report: raw.report(out.state) }],
      };
    },
    step(state, event, ctx) {
      const out = raw.step(state, event, ctx);
      if (out.state === state) return out;
      const before = raw.report(state);
      const after = raw.report(out.state);
      if (sameReport(before, after)) return out;
      return { state: out.state, effects: [...out.effects, { kind: 'report', report: after }] };
    },
  };
}

export function sameReport(a: Report, b: Report): boolean {
  return (
    a.role === b.role &&
    a.coordinator === b.coordinator &&
    a.electing === b.electing &&
    a.successor === b.successor &&
    a.term === b.term &&
    sameList(a.activeList, b.activeList) &&
    JSON.stringify(a.detail ?? null) === JSON.stringify(b.detail ?? null)
  );
}

function sameList(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
