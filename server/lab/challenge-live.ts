// The instructor's replay of an accepted challenge entry in the live lab (issue 28, item 6: "the
// instructor can replay any submitted schedule in the live lab"): the challenge's set-up with her
// seed and her schedule of faults is a script the live lab runs (live-script.ts, as a lesson
// step is), and the board says whether the live run reached the target, read off the relay's own
// trace by its own live checker (challenge-verify.ts `judgeLive`). Live, not simulated: the
// relay's hops and the bots' timers make its times differ from the simulator's.
import type { LiveReplay } from '@shared/challenges/challenge-api.ts';
import type { Challenge } from '@shared/challenges/challenge-schema.ts';
import { judgeLive } from '@shared/challenges/challenge-verify.ts';
import { errorFrame, type ErrorFrame } from '@shared/protocol/errors.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import type { Entry } from './challenge-room.ts';
import type { Lab } from './lab.ts';
import type { LiveEnd, LiveScripts } from './live-script.ts';

export type LiveReplays = Pick<LiveScripts, 'start' | 'busy' | 'cancel'>;

/** What the replay writes on the board: its state, and its end by the relay's clock. */
interface ReplayRoom {
  readonly challenge: Challenge;
  live: LiveReplay | null;
  liveEndsAt: number | null;
}

/** Kinds of finding a replay counts (the checker's few kinds; a bound on the record's keys). */
const MAX_FINDING_KINDS = 16;

/** Starts the replay of `entry`, or says why the live lab cannot take it now. */
export function replayLive(
  live: LiveReplays,
  lab: Lab,
  room: ReplayRoom,
  rank: number,
  entry: Entry,
): ErrorFrame | null {
  const busy = live.busy(lab);
  if (busy)
    return errorFrame('LIVE_RUN_BUSY', {
      message:
        busy === 'lesson'
          ? 'A lesson step is running in the lab; replay once it has ended'
          : 'A replay is already running in the lab; wait for its end',
    });
  const { challenge } = room;
  const script = {
    title: `${challenge.title}: ${entry.name}'s schedule`,
    setup: { ...challenge.setup, seed: entry.seed },
    run: entry.schedule,
  };
  const state: LiveReplay = {
    rank,
    name: entry.name,
    verified: entry.verified,
    phase: 'settling',
    detail: 'The live lab takes the set-up and elects its first coordinator',
    simulatedAt: entry.at,
    at: null,
    findings: {},
  };
  const observe = (e: TraceEvent) => {
    if (room.live !== state) return;
    state.phase = state.phase === 'settling' ? 'running' : state.phase;
    const kinds = state.findings;
    if (e.kind !== 'finding') return;
    const k = e.finding.kind;
    if (k in kinds || Object.keys(kinds).length < MAX_FINDING_KINDS) kinds[k] = (kinds[k] ?? 0) + 1;
  };
  const started = live.start(
    lab,
    script,
    'challenge',
    (end) => {
      if (room.live !== state) return; // a newer replay, or the room was replaced
      room.liveEndsAt = null;
      Object.assign(state, ended(challenge, end));
    },
    observe,
  );
  if ('refused' in started)
    return errorFrame('LIVE_RUN_REFUSED', {
      message: `The live lab cannot run this schedule: ${started.refused}`,
    });
  room.live = state;
  room.liveEndsAt = lab.deps.clock.now() + started.untilMs;
  return null;
}

/** The board's verdict on a live run's end. */
function ended(challenge: Challenge, end: LiveEnd): Pick<LiveReplay, 'phase' | 'detail' | 'at'> {
  switch (end.kind) {
    case 'cancelled':
      return {
        phase: 'stopped',
        detail: 'Stopped before its end (a lesson step took the lab, or the challenge closed)',
        at: null,
      };
    case 'unsettled':
    case 'failed':
      return {
        phase: 'unsettled',
        detail: 'The live lab did not settle on one coordinator before the run; nothing was run',
        at: null,
      };
    case 'ran': {
      if (!end.facts)
        return { phase: 'not-reproduced', detail: 'The run was over the event bound', at: null };
      const v = judgeLive(challenge.target, end.facts.trace, end.facts.endTime);
      return { phase: v.reached ? 'reproduced' : 'not-reproduced', detail: v.detail, at: v.at };
    }
  }
}
