// What the checker must know about each algorithm: whom it must elect, whether it has terms,
// which messages are its steady load (not election traffic), and the bounds its analysis gives.
// Every bound derives from the lab's Timing (T, M, heartbeats) and the algorithm's own options,
// the way the algorithms derive their timeouts, so a lab that runs slower checks slower.
import { roundTripBound, type AlgorithmName, type Timing } from '../algorithms/algorithm.ts';
import type { CheckerBounds } from '../protocol/finding.ts';
import { emergentOptions } from '../algorithms/emergent-state.ts';
import { bullyTimeouts } from '../algorithms/bully.ts';
import { raftOptions } from '../algorithms/raft.ts';

export interface CheckerProfile {
  /**
   * 'highest': the highest live id must win (Bully and both rings; 002: "The process with the
   * highest ID number will be the new coordinator"). 'agreed': any one live coordinator that
   * every live process follows (Emergent picks among its pool, Raft whoever wins a majority).
   */
  expects: 'highest' | 'agreed';
  /** Raft: safety is per term. */
  terms: boolean;
  /** Message types that are steady load (heartbeats, polls): they neither break nor make quiet. */
  steady: ReadonlySet<string>;
  bounds: CheckerBounds;
}

interface ProfileInput {
  algorithm: AlgorithmName;
  /** Every id of the lab (ring size for the ring bounds). */
  ids: readonly number[];
  timing: Timing;
  options?: Readonly<Record<string, unknown>>;
}

const DETECTOR_STEADY = ['HEARTBEAT', 'PING', 'PONG'];

export function checkerProfile(
  input: ProfileInput,
  overrides?: Partial<CheckerBounds>,
): CheckerProfile {
  const base = baseProfile(input);
  return { ...base, bounds: { ...base.bounds, ...overrides } };
}

function baseProfile({ algorithm, ids, timing, options }: ProfileInput): CheckerProfile {
  const T = timing.transmission;
  const M = timing.processing;
  const hop = T + M; // 004: "worst-case one-way latency = worst-case process time + worst-case message latency"
  const ub = roundTripBound(timing);
  const n = Math.max(ids.length, 1);
  // Detection: heartbeat silence, or the next poll plus its UB wait (whichever the lab uses).
  const detection = Math.max(timing.heartbeatTimeout, timing.heartbeatInterval + ub);
  switch (algorithm) {
    case 'bully': {
      const { okTimeout, coordinatorTimeout } = bullyTimeouts(timing, options);
      return {
        expects: 'highest',
        terms: false,
        steady: new Set(DETECTOR_STEADY),
        bounds: {
          quiet: Math.max(detection, okTimeout, coordinatorTimeout) + ub,
          // 004: "Worst-case completion time: 5 message transmission times" when nothing fails.
          election: 5 * hop,
          // The winner tells every lower id at once: a lower rival hears it within one hop.
          overlap: ub,
        },
      };
    }
    case 'ring':
    case 'ring-active-list':
      return {
        expects: 'highest',
        terms: false,
        steady: new Set(DETECTOR_STEADY),
        bounds: {
          quiet: detection + ub,
          // 002: "2(n-1) messages always": the election message and then the result go round
          // once each, one hop apiece, plus one UB to skip the dead coordinator's place.
          election: 2 * n * hop + ub,
          // The result reaches an old coordinator after at most one circulation.
          overlap: n * hop + ub,
        },
      };
    case 'emergent': {
      const o = emergentOptions(options, timing).options;
      const wait = o.candidateWaitPeriods * o.heartbeatInterval;
      return {
        expects: 'agreed',
        terms: false,
        steady: new Set(['MASTER_HEARTBEAT', 'SLAVE_HEARTBEAT', 'SLAVE_LEAVE']),
        bounds: {
          quiet: Math.max(o.masterTimeout, o.slaveTimeout, wait) + ub,
          // 003: candidates "wait in the candidate state for a time for few master heartbeats";
          // a slave that joins on a CANDIDATE starts its wait up to a hop later, and the new
          // master's first heartbeat takes one more.
          election: wait + 3 * hop,
          // A master yields on the first heartbeat of a higher one.
          overlap: o.heartbeatInterval + ub,
        },
      };
    }
    case 'raft': {
      const o = raftOptions(options, timing).options;
      return {
        expects: 'agreed',
        terms: true,
        steady: new Set(['HEARTBEAT']),
        bounds: {
          quiet: Math.max(o.electionTimeoutMax, o.restartQuietPeriod) + ub,
          // §5.2 gives no hard bound (randomized timeouts): one campaign takes REQUEST_VOTE,
          // VOTE and the winner's HEARTBEAT; allow one split vote, i.e. one more timeout.
          election: o.electionTimeoutMax + 3 * hop,
          overlap: 0,
        },
      };
    }
  }
}
