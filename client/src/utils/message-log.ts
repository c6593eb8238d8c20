// A process page's inbox and outbox keep their newest entries, newest first, with one budget for
// background entries (heartbeats, polls, the detector's timers) and another for the rest. With one
// shared budget a coordinator's heartbeats (two a second) pushed every ELECTION, OK and
// COORDINATOR out of its outbox within a minute, and the page, hiding heartbeats, showed an empty
// outbox for a process that had just sent 32 election messages (issue 24's class of twelve).
// Pure: the composable calls it on each publish.

export interface Logged {
  background?: boolean;
}

/**
 * `fresh` (oldest first, as they happened) goes in front of `kept` (newest first); at most `limit`
 * background entries and `limit` others stay, the newest of each, in newest-first order.
 */
export function mergeLog<T extends Logged>(
  kept: readonly T[],
  fresh: readonly T[],
  limit: number,
): T[] {
  const out: T[] = [];
  let background = 0;
  let other = 0;
  const take = (e: T) => {
    if (e.background ? background++ < limit : other++ < limit) out.push(e);
  };
  for (let i = fresh.length - 1; i >= 0; i--) take(fresh[i]!);
  for (const e of kept) take(e);
  return out;
}
