// A class playing by hand (docs/RUN_A_CLASS.md): the lab's play settings, which the instructor
// sets and every process is told (on join and live, a `play` frame), and what a hand-played tab
// tells the relay about each click (a `hand` frame): its label and the coach's deviations.
import { z } from 'zod';
import type { Play } from './lab-config.ts';

/** One deviation from the reference: the rule id (shared/coach/rules.ts) and the sentence it breaks. */
export const DeviationSchema = z.object({ rule: z.string().regex(/^[a-z-]+\.[a-z-]+$/).max(48), text: z.string().max(300) }).strict();

/** Deviations one `hand` frame may carry (a click, or a deadline she let pass). */
export const MAX_DEVIATIONS_PER_FRAME = 8;
/** Deviation events the relay journals per process; past this they are only counted. */
export const MAX_DEVIATION_EVENTS = 200;

/** Whether process `id` of kind `kind` should play by hand. */
export function playsByHand(play: Play | undefined, id: number, kind: 'human' | 'bot' | 'external'): boolean {
  if (!play) return false;
  return play.hand.includes(id) || (play.students && kind === 'human');
}
