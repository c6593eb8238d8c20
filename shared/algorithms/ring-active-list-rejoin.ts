// When a process back up (003: "a process holds an election on start or re-start") is let into
// the active-list ring's elections (shared/algorithms/ring-active-list.ts), and when an Elect of
// an unknown or older epoch is a copy or a leftover to drop: the predicates onElect asks.
import type { ProcessId } from './algorithm.ts';

/** What the predicates read of a process's state (ActiveListState has it). */
interface ElectionView {
  self: ProcessId;
  epoch: number;
  participating: boolean;
  coordinator: ProcessId | null;
  activeList: readonly ProcessId[];
}

/** The epoch of a process that does not know the current one (first start or restart). */
export const UNKNOWN_EPOCH = 0;

/**
 * A copy of a start election's Elect(j) at a process that settled that election already: it knows
 * no epoch yet, j passed here (it is in the list) and is no higher than the coordinator. A late
 * ACK made j's Elect skip a process and go on twice; rule (b) forwards an Elect(j) once, so the
 * copy is dropped. Taken for a newcomer's Elect, it opened a new epoch in a settled class that then
 * stalled (`npm run class -- --algorithm ring-active-list --students 12 --think 1-4.8s
 * --mistakes 1 --seed 66`). A process that restarts while the others are still in epoch 0 and
 * sends such an Elect gets no answer, and its watchdog holds a new election.
 */
export function startElectCopy(s: ElectionView, j: ProcessId): boolean {
  return (
    s.epoch === UNKNOWN_EPOCH &&
    s.coordinator !== null &&
    j <= s.coordinator &&
    s.activeList.includes(j)
  );
}

/**
 * j's own Elect of unknown epoch, from j itself, at a process taking part in a known epoch that j
 * joined already (j is in the list): j restarted with its state lost (003: "a process holds an
 * election on start or re-start"). Carried by rule (b) it would be dropped as a copy, and j,
 * skipped as dead meanwhile, would hear no Elected: its watchdog's election (epoch 1) is no newer
 * than the others', and it waited past the bound (`npm run explore -- --algorithm
 * ring-active-list --nodes 4 --faults crash,restart --initiators 0,1,2 --states 30000`). A newer
 * election includes it. In epoch 0 a copy from j is a late ACK's resend, so that is left out; a j
 * not in the list is carried by rule (b), and the Elect(j) revives j here, so j hears the result.
 */
export function restartedMidElection(s: ElectionView, j: ProcessId, from: ProcessId): boolean {
  return (
    s.participating &&
    s.epoch !== UNKNOWN_EPOCH &&
    j !== s.self &&
    from === j &&
    s.activeList.includes(j)
  );
}

/**
 * j's own Elect of an older epoch, from j itself, at an idle process whose last election left j
 * out: j restarted (003: "a process holds an election on start or re-start"), its first Elect was
 * carried into an election that then skipped it (a hop sent while it was down timed out), and its
 * watchdog's election carries the only epoch it knows, older than the one decided without it.
 * Dropped as a leftover, j waited a watchdog per epoch behind (4,960 ms after the restart in
 * issue 26's restart lab, past the 3,890 ms bound); a newer election includes it now.
 */
export function missedByLastElection(s: ElectionView, j: ProcessId, from: ProcessId): boolean {
  return !s.participating && j !== s.self && from === j && !s.activeList.includes(j);
}
