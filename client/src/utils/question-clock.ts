// The projector's clock while a question is open: a countdown when the lesson gives the question a
// time (question.seconds), the time it has been open otherwise. Pure: the page passes when the
// question opened on its own clock (the relay says how long ago, lesson view's openForMs) and now.

export interface QuestionClock {
  /** "0:42 left", "Time's up" or "open 1:05". */
  text: string;
  /** Seconds left, or null without a time limit. */
  left: number | null;
  /** True once a time limit has run out (the instructor still locks; this only says so). */
  over: boolean;
}

/** m:ss of whole seconds. */
export function minutesSeconds(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * `openedAt` and `now` are ms on one clock (the page's); `seconds` is the question's limit. The
 * countdown rounds up, so it shows 0:01 until the last second has passed and 0:60 never shows.
 */
export function questionClock(
  openedAt: number,
  now: number,
  seconds: number | undefined,
): QuestionClock {
  const elapsed = Math.max(0, now - openedAt) / 1000;
  if (seconds === undefined)
    return { text: `open ${minutesSeconds(elapsed)}`, left: null, over: false };
  const left = Math.max(0, Math.ceil(seconds - elapsed));
  return left === 0
    ? { text: "Time's up", left: 0, over: true }
    : { text: `${minutesSeconds(left)} left`, left, over: false };
}

/** When the question opened on the page's clock, from the relay's openForMs and the time its answer arrived. */
export function openedAtFrom(openForMs: number | undefined, receivedAt: number): number | null {
  return openForMs === undefined ? null : receivedAt - openForMs;
}
