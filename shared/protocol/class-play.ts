// A class playing by hand (docs/RUN_A_CLASS.md): the lab's play settings, which the instructor
// sets and every process is told (on join and live, a `play` frame), and what a hand-played tab
// tells the relay about each click (a `hand` frame): its label and the coach's deviations.
import { z } from 'zod';
import type { Play } from './lab-config.ts';

/** A click's label in a `hand` frame, and a deviation's sentence, at most (longer ones are clipped by handFrames). */
export const MAX_HAND_ACTION_CHARS = 120;
const MAX_DEVIATION_TEXT_CHARS = 300;

/** One deviation from the reference: the rule id (shared/coach/rules.ts) and the sentence it breaks. */
export const DeviationSchema = z
  .object({
    rule: z
      .string()
      .regex(/^[a-z-]+\.[a-z-]+$/)
      .max(48),
    text: z.string().max(MAX_DEVIATION_TEXT_CHARS),
  })
  .strict();

/** Deviations one `hand` frame may carry (a click, or a deadline she let pass). */
export const MAX_DEVIATIONS_PER_FRAME = 8;
/** Deviation events the relay journals per process; past this they are only counted. */
export const MAX_DEVIATION_EVENTS = 200;

type HandDeviation = z.infer<typeof DeviationSchema>;

/**
 * A click and the deviations found since, as `hand` frame fields within the schema's bounds:
 * labels and sentences clipped, the deviations in frames of MAX_DEVIATIONS_PER_FRAME (the click
 * rides on the first, so it is counted once; none is left out).
 */
export function handFrames(
  action: string | null,
  deviations: readonly HandDeviation[],
): { action: string | null; deviations: HandDeviation[] }[] {
  const clipped = deviations.map((d) => ({
    rule: d.rule,
    text: d.text.slice(0, MAX_DEVIATION_TEXT_CHARS),
  }));
  const out: { action: string | null; deviations: HandDeviation[] }[] = [];
  for (let i = 0; i === 0 || i < clipped.length; i += MAX_DEVIATIONS_PER_FRAME) {
    out.push({
      action: i === 0 && action !== null ? action.slice(0, MAX_HAND_ACTION_CHARS) : null,
      deviations: clipped.slice(i, i + MAX_DEVIATIONS_PER_FRAME),
    });
  }
  return out;
}

/** Whether process `id` of kind `kind` should play by hand. */
export function playsByHand(
  play: Play | undefined,
  id: number,
  kind: 'human' | 'bot' | 'external',
): boolean {
  if (!play) return false;
  return play.hand.includes(id) || (play.students && kind === 'human');
}
