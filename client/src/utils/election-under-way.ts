// Whether an election is under way, for a page that may have opened in the middle of one (a
// class stalled, say): the election tracker only opens a window on what it sees start in the
// trace, so a page opened during a stall saw nothing start and drew "No election yet" beside a
// late-election finding (issue 24). Here the other witnesses speak too: the relay's own election
// (GET /stats), its live checker's episode, and what the live processes report (their claim).
// Pure: the caller passes what it holds.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';

export interface UnderWayInput {
  /** The tracker's election in progress, if it saw one start (relay ms). */
  current: { start: number } | null;
  processes: Iterable<{ id: ProcessId; status: string; report: { electing: boolean } | null }>;
  /** The relay's own view (GET /stats): its clock and its election; null before the first poll. */
  relay: RelayElection | null;
  /** The live checker's election episode; null when unknown. */
  checker: { active: boolean; since: number | null } | null;
  /** Relay ms of the latest event this page saw. */
  now: number;
}

/** What GET /stats says of the lab's election (the one in progress or the last one). */
export interface RelayElection {
  now: number;
  election: {
    active: boolean;
    startedAt: number | null;
    endedAt?: number | null;
    duration?: number | null;
  };
}

export interface UnderWay {
  /** Live processes whose last report says electing, and how many are up. */
  electing: ProcessId[];
  up: number;
  /** When it began (relay ms), by the best witness: the relay, its checker, this page's tracker. */
  since: number | null;
  /** How long it has run, ms; null when its start is unknown. */
  forMs: number | null;
  /** The page saw it start, so its messages are counted (false: it began before the page opened). */
  seenStart: boolean;
  text: string;
}

/** An election under way, or null when no witness says one is. */
export function electionUnderWay(i: UnderWayInput): UnderWay | null {
  let up = 0;
  const electing: ProcessId[] = [];
  for (const p of i.processes) {
    if (p.status !== 'up') continue;
    up++;
    if (p.report?.electing) electing.push(p.id);
  }
  const relayActive = i.relay?.election.active ?? false;
  const checkerActive = i.checker?.active ?? false;
  if (!electing.length && !relayActive && !checkerActive && !i.current) return null;
  const since =
    (relayActive ? i.relay!.election.startedAt : null) ??
    (checkerActive ? i.checker!.since : null) ??
    i.current?.start ??
    null;
  const now = Math.max(i.now, i.relay?.now ?? 0);
  const forMs = since === null ? null : Math.max(0, now - since);
  const seenStart = i.current !== null;
  const running =
    forMs === null
      ? 'An election is under way'
      : `An election has been running for ${seconds(forMs)}`;
  const who = electing.length
    ? `${electing.length} of ${up} live processes report electing`
    : 'no live process reports electing any more';
  const counted = seenStart
    ? ''
    : ' It began before this page opened: its messages are not counted here.';
  return { electing, up, since, forMs, seenStart, text: `${running}: ${who}.${counted}` };
}

/**
 * What a page with no election to show says (none under way): "No election yet" only when the
 * relay says so; a page opened after the class's elections says when the last one ended.
 */
export function noElectionText(relay: RelayElection | null): string {
  if (!relay) return 'No election since this page opened.';
  const { startedAt, endedAt, duration } = relay.election;
  if (startedAt === null) return 'No election yet.';
  const ago =
    endedAt === null || endedAt === undefined
      ? ''
      : `; the last one ended ${seconds(Math.max(0, relay.now - endedAt))} ago`;
  const took = duration === null || duration === undefined ? '' : `, after ${seconds(duration)}`;
  return `No election since this page opened${ago}${took} (Replay shows it).`;
}

/** "1.7 s", "75 s", with a no-break space: a narrow panel never puts the unit on a line of its own. */
function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}\u00a0s` : `${Math.round(ms / 1000)}\u00a0s`;
}
