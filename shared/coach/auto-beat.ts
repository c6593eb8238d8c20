// Hand mode's automatic failure detector (a toggle in the tab), so that she can concentrate on
// the election: as coordinator it sends HEARTBEAT every interval (003: "Co-ordinator sends a
// short message to all machines regularly"), or answers PINGs with PONG; as a follower it
// watches her coordinator and, when it falls silent past the timeout (or a PING goes
// unanswered for UB), queues "the coordinator is silent". Only for the algorithms whose lab
// detector is the shared one (Bully and the rings); the emergent algorithm and Raft carry their
// own heartbeats, which she sends by hand. Off: PINGs queue for her and nothing is sent.
import {
  roundTripBound,
  type AlgorithmConfig,
  type AlgorithmName,
  type Message,
  type ProcessId,
} from '../algorithms/algorithm.ts';

interface BeatHost {
  send(to: ProcessId, message: Message): void;
  suspect(leader: ProcessId): void;
  setTimer(name: string, after: number, fn: () => void): void;
  cancelTimer(name: string): void;
}

export const BEAT = 'auto:heartbeat';
export const SILENCE = 'auto:silence';
export const POLL = 'auto:poll';
export const PONG = 'auto:pong';
const USES_DETECTOR: readonly AlgorithmName[] = ['bully', 'ring', 'ring-active-list'];

/** Whether the algorithm uses the lab's shared detector (the others' heartbeats are their own messages). */
export function usesSharedDetector(algorithm: AlgorithmName): boolean {
  return USES_DETECTOR.includes(algorithm);
}

/** Whether the toggle has anything to run: the lab's shared detector, for an algorithm that uses it. */
export function autoBeatApplies(
  algorithm: AlgorithmName,
  detector: AlgorithmConfig['detector'],
): boolean {
  return usesSharedDetector(algorithm) && detector !== 'none';
}

export class AutoBeat {
  private config: AlgorithmConfig | null = null;
  private leader: ProcessId | null = null;
  private self: ProcessId | null = null;

  constructor(
    private enabled: boolean,
    private readonly host: BeatHost,
  ) {}

  get on(): boolean {
    return this.enabled;
  }

  /** Whether the lab's detector is one this toggle can run. */
  private get active(): boolean {
    return this.enabled && this.config !== null;
  }

  configure(config: AlgorithmConfig, algorithm: AlgorithmName): void {
    this.config = autoBeatApplies(algorithm, config.detector) ? config : null;
  }

  toggle(on: boolean): void {
    this.enabled = on;
    this.follow(this.leader, this.self);
  }

  /** Her belief changed: lead (she is the coordinator), follow another, or stop. */
  follow(leader: ProcessId | null, self: ProcessId | null): void {
    this.leader = leader;
    this.self = self;
    for (const t of [BEAT, SILENCE, POLL, PONG]) this.host.cancelTimer(t);
    if (!this.active || leader === null) return;
    const c = this.config!;
    if (leader === self) {
      if (c.detector === 'heartbeat') this.beat();
      return;
    }
    if (c.detector === 'heartbeat') this.watch();
    else this.poll();
  }

  /** A detector message reached her: true when it is handled here (not queued for her). */
  hears(from: ProcessId, m: Message): boolean {
    if (m.type === 'HEARTBEAT' && this.config) {
      if (this.active && from === this.leader) this.watch();
      return true;
    }
    if (m.type === 'PONG') {
      if (from === this.leader) this.host.cancelTimer(PONG);
      return true;
    }
    if (m.type === 'PING' && this.active) {
      this.host.send(from, { type: 'PONG' });
      return true;
    }
    return false;
  }

  private beat(): void {
    const c = this.config!;
    for (const to of c.ids) if (to !== this.self) this.host.send(to, { type: 'HEARTBEAT' });
    this.host.setTimer(BEAT, c.timing.heartbeatInterval, () => this.beat());
  }

  private watch(): void {
    const leader = this.leader;
    if (leader === null) return;
    this.host.setTimer(SILENCE, this.config!.timing.heartbeatTimeout, () => this.lost(leader));
  }

  private poll(): void {
    const c = this.config!;
    const leader = this.leader;
    if (leader === null) return;
    this.host.setTimer(POLL, c.timing.heartbeatInterval, () => {
      this.host.send(leader, { type: 'PING' });
      this.host.setTimer(PONG, roundTripBound(c.timing), () => this.lost(leader));
      this.poll();
    });
  }

  private lost(leader: ProcessId): void {
    for (const t of [BEAT, SILENCE, POLL, PONG]) this.host.cancelTimer(t);
    this.leader = null;
    this.host.suspect(leader);
  }
}
