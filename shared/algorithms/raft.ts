// Raft's leader election, and nothing else (Ongaro & Ousterhout, "In Search of an Understandable
// Consensus Algorithm", 2014, §5.2): terms, one vote per term, a majority of the known ids wins,
// randomized election timeouts, leader heartbeats, step down on a higher term. There is no log,
// so RequestVote carries no log position and every candidate is "up to date".
//
// Unlike the bully and ring algorithms, a majority quorum means two leaders can never hold the
// same term, even across a partition: the minority side simply never elects (seed 004's closing
// slide: Paxos-like protocols avoid split brain).
import { defineAlgorithm, type Counted } from './define.ts';
import { RAFT_SCHEMAS } from './raft-messages.ts';
import {
  type AlgorithmConfig,
  type AlgorithmEvent,
  type DetectorMode,
  type Effect,
  type ProcessId,
  type Report,
  type StepContext,
  type Step,
  type Timing,
} from './algorithm.ts';

/** Options (config.options); every one has a default derived from the lab's timing. */
interface RaftOptions {
  /** Election timeouts are drawn uniformly from [min, max] ms. Default [heartbeatTimeout, 2 heartbeatTimeout]. */
  electionTimeoutMin: number;
  electionTimeoutMax: number;
  /** Leader heartbeat period, ms. Default timing.heartbeatInterval. */
  heartbeatInterval: number;
  /** After a fresh start, grant no vote for this long, ms (0 disables). Default electionTimeoutMax. */
  restartQuietPeriod: number;
}

/** Reads config.options; bad entries fall back to their defaults and are named in `problems`. */
export function raftOptions(
  raw: Readonly<Record<string, unknown>> | undefined,
  timing: Timing,
): { options: RaftOptions; problems: string[] } {
  const problems: string[] = [];
  const num = (key: string, fallback: number, min: number): number => {
    const v = raw?.[key];
    if (v === undefined) return fallback;
    if (typeof v === 'number' && Number.isFinite(v) && v >= min) return v;
    problems.push(`${key}: expected a number >= ${min}`);
    return fallback;
  };
  let lo = num('electionTimeoutMin', timing.heartbeatTimeout, 1);
  let hi = num('electionTimeoutMax', Math.max(lo, 2 * timing.heartbeatTimeout), 1);
  if (hi < lo) {
    problems.push('electionTimeoutMax: must not be below electionTimeoutMin');
    [lo, hi] = [timing.heartbeatTimeout, 2 * timing.heartbeatTimeout];
  }
  const heartbeatInterval = num('heartbeatInterval', timing.heartbeatInterval, 1);
  if (heartbeatInterval >= lo)
    problems.push('heartbeatInterval: should be well below electionTimeoutMin');
  return {
    options: {
      electionTimeoutMin: lo,
      electionTimeoutMax: hi,
      heartbeatInterval,
      restartQuietPeriod: num('restartQuietPeriod', hi, 0),
    },
    problems,
  };
}

type RaftRole = 'leader' | 'candidate' | 'follower';

export type RaftMessage =
  | { type: 'REQUEST_VOTE'; term: number }
  | { type: 'VOTE'; term: number; granted: boolean }
  /** AppendEntries with no entries: the leader's authority for `term`. */
  | { type: 'HEARTBEAT'; term: number }
  /** The failed AppendEntries response: only sent to a stale leader, carrying the newer term. */
  | { type: 'HEARTBEAT_REPLY'; term: number };

export interface RaftState extends Counted {
  self: ProcessId;
  ids: readonly ProcessId[];
  detector: DetectorMode;
  opts: RaftOptions;
  role: RaftRole;
  term: number;
  votedFor: ProcessId | null;
  /** The leader of the current term, once known. */
  leader: ProcessId | null;
  /** Ids that granted this candidate their vote in the current term (self included). */
  votes: readonly ProcessId[];
  /**
   * Set after a fresh start: a process that lost its state may already have voted in some term
   * before it crashed, so it grants no vote until one election timeout has passed (see docs).
   */
  quiet: boolean;
}

type Out = Step<RaftState, RaftMessage>;
type Eff = Effect<RaftMessage>;

const RAFT_TIMERS = { election: 'election', heartbeat: 'heartbeat', quiet: 'quiet' } as const;

export function majority(n: number): number {
  return Math.floor(n / 2) + 1;
}

function electionTimeout(s: RaftState, ctx: StepContext): number {
  const { electionTimeoutMin: lo, electionTimeoutMax: hi } = s.opts;
  return lo + ctx.random() * (hi - lo);
}

/** Followers and candidates wait for the leader only when a failure detector is in use. */
function armElection(s: RaftState, ctx: StepContext, extra = 0): Eff[] {
  if (s.detector === 'none' && s.role === 'follower') return [];
  return [
    { kind: 'set-timer', name: RAFT_TIMERS.election, after: extra + electionTimeout(s, ctx) },
  ];
}

function broadcast(s: RaftState, message: RaftMessage): Eff[] {
  return s.ids.filter((id) => id !== s.self).map((to) => ({ kind: 'send', to, message }));
}

function heartbeats(s: RaftState): Eff[] {
  const beat = broadcast(s, { type: 'HEARTBEAT', term: s.term });
  // With no failure detector the first heartbeat only announces the winner.
  if (s.detector === 'none') return beat;
  return [
    ...beat,
    { kind: 'set-timer', name: RAFT_TIMERS.heartbeat, after: s.opts.heartbeatInterval },
  ];
}

function becomeLeader(s: RaftState): Out {
  const next: RaftState = { ...s, role: 'leader', leader: s.self };
  return {
    state: next,
    effects: [{ kind: 'cancel-timer', name: RAFT_TIMERS.election }, ...heartbeats(next)],
  };
}

/** §5.2: increment the term, vote for self, ask everyone else, and restart the election timer. */
function campaign(s: RaftState, ctx: StepContext): Out {
  const next: RaftState = {
    ...s,
    role: 'candidate',
    term: s.term + 1,
    votedFor: s.self,
    leader: null,
    votes: [s.self],
  };
  if (majority(s.ids.length) <= 1) return becomeLeader(next);
  const effects: Eff[] = [
    { kind: 'cancel-timer', name: RAFT_TIMERS.heartbeat },
    ...broadcast(next, { type: 'REQUEST_VOTE', term: next.term }),
    ...armElection(next, ctx),
  ];
  return { state: next, effects };
}

/** §5.1: a higher term seen anywhere turns any role into a follower of that term. */
function adoptTerm(s: RaftState, term: number): { state: RaftState; effects: Eff[] } {
  const state: RaftState = {
    ...s,
    role: 'follower',
    term,
    votedFor: null,
    leader: null,
    votes: [],
  };
  if (s.role === 'leader')
    return { state, effects: [{ kind: 'cancel-timer', name: RAFT_TIMERS.heartbeat }] };
  return { state, effects: stopWaiting(s) };
}

/** A candidate turning follower with no failure detector stops its election timer: such followers never time out. */
function stopWaiting(s: RaftState): Eff[] {
  return s.role === 'candidate' && s.detector === 'none'
    ? [{ kind: 'cancel-timer', name: RAFT_TIMERS.election }]
    : [];
}

/** A message or a timer, as a role's step function sees it. */
type RoleEvent =
  { kind: 'message'; from: ProcessId; message: RaftMessage } | { kind: 'timer'; name: string };

/** What a role did with an event: its new state and effects, and whether the election timer restarts. */
interface Handled {
  state: RaftState;
  effects: Eff[];
  rearm: boolean;
}

const unchanged = (s: RaftState): Handled => ({ state: s, effects: [], rearm: false });

/**
 * §5.2: a heartbeat of the current term comes from its leader (a term's leader had a majority,
 * so voting for anyone else in it would be pointless); a candidate returns to follower.
 */
function follow(s: RaftState, from: ProcessId): Handled {
  return {
    state: { ...s, role: 'follower', leader: from, votes: [], votedFor: s.votedFor ?? from },
    effects: stopWaiting(s),
    rearm: true,
  };
}

/**
 * The leader: beats on its heartbeat timer. It has won, so votes are moot; and two leaders in
 * one term cannot happen (one vote per term), so it never yields to a heartbeat of its own term.
 */
function stepLeader(s: RaftState, e: RoleEvent): Handled {
  if (e.kind === 'timer' && e.name === RAFT_TIMERS.heartbeat)
    return { state: s, effects: heartbeats(s), rearm: false };
  return unchanged(s);
}

/** A candidate: counts the votes of its term and leads on a majority; yields to a leader; campaigns again when its election times out. */
function stepCandidate(s: RaftState, e: RoleEvent, ctx: StepContext): Handled {
  if (e.kind === 'timer')
    return e.name === RAFT_TIMERS.election ? { ...campaign(s, ctx), rearm: false } : unchanged(s);
  const { from, message: m } = e;
  if (m.type === 'HEARTBEAT') return follow(s, from);
  if (m.type !== 'VOTE' || m.term !== s.term || !m.granted || s.votes.includes(from))
    return unchanged(s);
  const counted: RaftState = { ...s, votes: [...s.votes, from] };
  if (counted.votes.length >= majority(s.ids.length))
    return { ...becomeLeader(counted), rearm: false };
  return { state: counted, effects: [], rearm: false };
}

/** A follower: follows the leader it hears; campaigns when its election times out. */
function stepFollower(s: RaftState, e: RoleEvent, ctx: StepContext): Handled {
  if (e.kind === 'timer')
    return e.name === RAFT_TIMERS.election ? { ...campaign(s, ctx), rearm: false } : unchanged(s);
  return e.message.type === 'HEARTBEAT' ? follow(s, e.from) : unchanged(s);
}

const ROLE_STEPS: Record<RaftRole, (s: RaftState, e: RoleEvent, ctx: StepContext) => Handled> = {
  leader: stepLeader,
  candidate: stepCandidate,
  follower: stepFollower,
};

/** §5.2: at most one vote per term, first come first served (no log to compare); the same in every role. */
function onRequestVote(s: RaftState, from: ProcessId, term: number): Handled {
  const grant = term === s.term && !s.quiet && (s.votedFor === null || s.votedFor === from);
  const next = grant ? { ...s, votedFor: from } : s;
  // Granting a vote resets the election timer (Raft, Figure 2).
  return {
    state: next,
    effects: [
      { kind: 'send', to: from, message: { type: 'VOTE', term: next.term, granted: grant } },
    ],
    rearm: grant,
  };
}

/**
 * What every role does with a message first (§5.1: a higher term turns it into a follower of that
 * term; a stale leader is told the term; votes are cast alike), then the role's own step.
 */
function onMessage(s0: RaftState, from: ProcessId, m: RaftMessage, ctx: StepContext): Out {
  if (!s0.ids.includes(from) || typeof m.term !== 'number') return { state: s0, effects: [] };
  let s = s0;
  const effects: Eff[] = [];
  let rearm = false;
  if (m.term > s.term) {
    const adopted = adoptTerm(s, m.term);
    s = adopted.state;
    effects.push(...adopted.effects);
    rearm = s0.role === 'leader'; // a deposed leader had no election timer running
  }
  let h: Handled;
  if (m.type === 'REQUEST_VOTE') h = onRequestVote(s, from, m.term);
  else if (m.type === 'HEARTBEAT' && m.term < s.term)
    h = {
      state: s,
      effects: [{ kind: 'send', to: from, message: { type: 'HEARTBEAT_REPLY', term: s.term } }],
      rearm: false,
    };
  // A HEARTBEAT_REPLY's only effect, adopting a newer term, happened above.
  else if (m.type === 'HEARTBEAT_REPLY') h = unchanged(s);
  else h = ROLE_STEPS[s.role](s, { kind: 'message', from, message: m }, ctx);
  effects.push(...h.effects);
  if ((rearm || h.rearm) && h.state.role !== 'leader') effects.push(...armElection(h.state, ctx));
  return { state: h.state, effects };
}

function onTimer(s: RaftState, name: string, ctx: StepContext): Out {
  if (name === RAFT_TIMERS.quiet) return { state: { ...s, quiet: false }, effects: [] };
  const h = ROLE_STEPS[s.role](s, { kind: 'timer', name }, ctx);
  return { state: h.state, effects: h.effects };
}

function init(config: AlgorithmConfig, ctx: StepContext): Out {
  const opts = raftOptions(config.options, config.timing).options;
  const base: RaftState = {
    self: config.self,
    ids: config.ids,
    detector: config.detector,
    opts,
    role: 'follower',
    term: 0,
    votedFor: null,
    leader: null,
    votes: [],
    quiet: false,
  };
  const c = config.initialCoordinator;
  if (c !== undefined && c !== null && config.ids.includes(c)) {
    // A steady start: everyone is in term 1 and voted for the agreed leader.
    const s: RaftState = { ...base, term: 1, votedFor: c, leader: c };
    if (c === config.self) return becomeLeader(s);
    return { state: s, effects: armElection(s, ctx) };
  }
  // A fresh start (or a restart: state is lost). Stay quiet for one maximum election timeout so a
  // vote cast before a crash cannot be cast again, and campaign only after that.
  const quiet = opts.restartQuietPeriod;
  const s: RaftState = { ...base, quiet: quiet > 0 };
  const effects: Eff[] =
    quiet > 0 ? [{ kind: 'set-timer', name: RAFT_TIMERS.quiet, after: quiet }] : [];
  return { state: s, effects: [...effects, ...armElection(s, ctx, quiet)] };
}

function step(s: RaftState, event: AlgorithmEvent<RaftMessage>, ctx: StepContext): Out {
  switch (event.kind) {
    case 'message':
      return onMessage(s, event.from, event.message, ctx);
    case 'timer':
      return onTimer(s, event.name, ctx);
    case 'elect':
      // The instructor (or an outside detector) asks for a campaign now, in a new term; even a
      // leader obeys, which deposes it for a term it will most likely win again.
      return campaign(s, ctx);
  }
}

function raftReport(s: RaftState): Report {
  return {
    role: s.role,
    coordinator: s.leader,
    electing: s.role === 'candidate',
    term: s.term,
    detail: { votedFor: s.votedFor, votes: s.votes.length },
  };
}

export const raft = defineAlgorithm<RaftState, RaftMessage>({
  name: 'raft',
  messages: RAFT_SCHEMAS,
  init,
  step,
  report: raftReport,
});
