// N headless processes in one JavaScript process. Each is a LabProcess (shared/lab-client/lab-client.ts):
// it joins the lab, runs the lab's algorithm in a ProcessHost with real timers and reports its
// state, exactly as a browser tab does, over whatever channel it is given (socket.io, raw
// WebSocket, or the relay's in-process sessions for server-side bots). The fleet only adds
// what a crowd needs: joining in bounded batches, optional overrides of the lab's algorithm and
// timing, and running figures (joined, elections, coordinator, messages).
import type {
  AlgorithmConfig,
  AlgorithmName,
  ProcessId,
  Timing,
  AnyAlgorithm,
} from '../algorithms/algorithm.ts';
import { getAlgorithm } from '../algorithms/registry.ts';
import { LabProcess, type ChannelFactory, type LabProcessEvent } from './lab-client.ts';

interface FleetOptions {
  lab: string;
  /** A channel for each process (each gets its own connection). */
  channel: () => ChannelFactory;
  /** A cluster: a channel to another relay, to follow `moved` and fail over (see LabProcessOptions). */
  follow?: (url: string) => ChannelFactory;
  /** The cluster's other relays, tried while the current one is down. */
  relays?: string[];
  /** How many processes. */
  count: number;
  /** Ids to claim, in order; absent: each takes the lab's next free id. */
  ids?: readonly ProcessId[];
  /** Where algorithms come from (default: the registry); the relay's tests pass one that throws. */
  registry?: (name: AlgorithmName) => AnyAlgorithm;
  /** Run this algorithm instead of the lab's. */
  algorithm?: AlgorithmName;
  /** Override some of the lab's timing bounds. */
  timing?: Partial<Timing>;
  /**
   * Start steady, believing this coordinator, instead of holding the election every process
   * holds on start (the simulator's starting point; for scale runs). Only the first start of
   * each process: a recovered or restarted process holds its election as the documents require.
   */
  steadyCoordinator?: ProcessId;
  /** Joins in flight at once. */
  parallel?: number;
  /** Name shown on the dashboard, from the id the relay gave. */
  name?: (index: number) => string;
  /** Every event of every process, for callers that want more than the counters. */
  onEvent?: (index: number, e: LabProcessEvent) => void;
}

/** Running figures of a fleet; `sent`/`received` count algorithm messages sent while connected and delivered. */
export interface FleetCounters {
  sent: number;
  received: number;
  sentByType: Record<string, number>;
  /** Times a process began electing (its report's `electing` went from false to true). */
  electionsStarted: number;
  /** Fleet-wide elections: from the first process electing to none electing. */
  episodes: number;
  errors: number;
  /** Times a process rejoined after its connection dropped. */
  rejoins: number;
}

export interface FleetStatus {
  total: number;
  up: number;
  crashed: number;
  connecting: number;
  gone: number;
  electing: number;
  /** The coordinator most up processes believe in, and how many believe it. */
  coordinator: ProcessId | null;
  agreeing: number;
  /**
   * True when every up process reports the same coordinator, none is electing, and that
   * coordinator is not one of the fleet's own processes that crashed or left (agreement means a
   * live coordinator, as in shared/analysis/properties.ts; one outside the fleet is taken on trust).
   */
  agreed: boolean;
}

/** What the fleet's processes report, counted (pure: the fleet passes its processes). */
export function fleetStatus(
  processes: readonly Pick<LabProcess, 'status' | 'id' | 'report'>[],
): FleetStatus {
  const s: FleetStatus = {
    total: processes.length,
    up: 0,
    crashed: 0,
    connecting: 0,
    gone: 0,
    electing: 0,
    coordinator: null,
    agreeing: 0,
    agreed: false,
  };
  const votes = new Map<ProcessId | null, number>();
  const down = new Set<ProcessId>();
  for (const p of processes) {
    if (p.status === 'up') {
      s.up++;
      const r = p.report;
      if (r?.electing) s.electing++;
      const c = r ? r.coordinator : null;
      votes.set(c, (votes.get(c) ?? 0) + 1);
      continue;
    }
    // Paused or reconnecting is not down; crashed or gone from the lab is.
    if (p.id !== null && (p.status === 'crashed' || p.status === 'left')) down.add(p.id);
    if (p.status === 'crashed') s.crashed++;
    else if (p.status === 'connecting') s.connecting++;
    else s.gone++;
  }
  for (const [c, n] of votes) {
    if (c !== null && n > s.agreeing) {
      s.coordinator = c;
      s.agreeing = n;
    }
  }
  s.agreed =
    s.up > 0 &&
    s.agreeing === s.up &&
    s.electing === 0 &&
    s.coordinator !== null &&
    !down.has(s.coordinator);
  return s;
}

interface StartResult {
  joined: ProcessId[];
  refused: { index: number; code: string; message: string }[];
}

export class BotFleet {
  readonly processes: LabProcess[] = [];
  readonly counters: FleetCounters = {
    sent: 0,
    received: 0,
    sentByType: {},
    electionsStarted: 0,
    episodes: 0,
    errors: 0,
    rejoins: 0,
  };
  private readonly electing: boolean[] = [];
  private readonly joinedOnce: boolean[] = [];
  private electingNow = 0;

  constructor(private readonly opts: FleetOptions) {
    if (opts.ids && opts.ids.length < opts.count)
      throw new RangeError(`${opts.count} processes but only ${opts.ids.length} ids`);
    for (let i = 0; i < opts.count; i++) {
      this.electing.push(false);
      this.joinedOnce.push(false);
      this.processes.push(
        new LabProcess({
          lab: opts.lab,
          channel: opts.channel(),
          kind: 'bot',
          ...(opts.follow ? { follow: opts.follow, relays: opts.relays ?? [] } : {}),
          ...(opts.ids ? { id: opts.ids[i]! } : {}),
          ...(opts.name ? { name: opts.name(i) } : {}),
          algorithms: this.algorithmsFor(),
          onEvent: (e) => this.onEvent(i, e),
        }),
      );
    }
  }

  /** Joins every process, `parallel` at a time; resolves once each has joined or been refused. */
  async start(): Promise<StartResult> {
    const result: StartResult = { joined: [], refused: [] };
    const parallel = Math.max(1, this.opts.parallel ?? 50);
    for (let i = 0; i < this.processes.length; i += parallel) {
      const batch = this.processes.slice(i, i + parallel).map((p, k) =>
        p.start().then(
          (id) => void result.joined.push(id),
          (err: { code?: string; message?: string }) =>
            void result.refused.push({
              index: i + k,
              code: err.code ?? 'ERROR',
              message: err.message ?? String(err),
            }),
        ),
      );
      await Promise.all(batch);
    }
    result.joined.sort((a, b) => a - b);
    return result;
  }

  /** Every process leaves the lab (its id is free at once) and disconnects. */
  stop(): void {
    for (const p of this.processes) p.stop();
  }

  status(): FleetStatus {
    return fleetStatus(this.processes);
  }

  private algorithmsFor(): (name: AlgorithmName) => AnyAlgorithm {
    const o = this.opts;
    let steady = o.steadyCoordinator !== undefined;
    return (name) => {
      const base = (o.registry ?? getAlgorithm)(o.algorithm ?? name);
      const useSteady = steady;
      steady = false;
      if (!o.timing && !useSteady) return base;
      return {
        ...base,
        init(config: AlgorithmConfig, ctx) {
          const c: AlgorithmConfig = { ...config, timing: { ...config.timing, ...o.timing } };
          if (useSteady) c.initialCoordinator = o.steadyCoordinator!;
          return base.init(c, ctx);
        },
      };
    };
  }

  private onEvent(i: number, e: LabProcessEvent): void {
    const c = this.counters;
    switch (e.kind) {
      case 'deliver':
        c.received++;
        break;
      case 'host':
        // Only what reaches the relay: a disconnected process's channel drops its sends.
        if (e.event.kind === 'out') {
          if (this.processes[i]?.status !== 'up') break;
          c.sent++;
          const t = e.event.message.type;
          c.sentByType[t] = (c.sentByType[t] ?? 0) + 1;
        } else if (e.event.kind === 'report') this.setElecting(i, e.event.report.electing);
        else if (e.event.kind === 'stopped') this.setElecting(i, false);
        break;
      case 'joined':
        if (this.joinedOnce[i]) c.rejoins++;
        this.joinedOnce[i] = true;
        break;
      case 'error':
        c.errors++;
        break;
      default:
        break;
    }
    this.opts.onEvent?.(i, e);
  }

  private setElecting(i: number, electing: boolean): void {
    if (this.electing[i] === electing) return;
    this.electing[i] = electing;
    if (electing) {
      this.counters.electionsStarted++;
      if (this.electingNow++ === 0) this.counters.episodes++;
    } else this.electingNow--;
  }
}
