// What a hand-played tab tells the relay (shared/protocol/class-play.ts): every deviation the
// coach found reaches the relay in frames the schema accepts, and the click is counted once.
import { describe, expect, it } from 'vitest';
import {
  handFrames,
  MAX_DEVIATIONS_PER_FRAME,
  MAX_HAND_ACTION_CHARS,
} from '@shared/protocol/class-play.ts';
import { ClientFrameSchema } from '@shared/protocol/frames.ts';

describe('handFrames', () => {
  it('sends every deviation in frames the schema accepts, the click on the first only', () => {
    const deviations = Array.from({ length: 2 * MAX_DEVIATIONS_PER_FRAME + 3 }, (_, i) => ({
      rule: 'bully.answer',
      text: `${i} ${'x'.repeat(400)}`,
    }));
    const frames = handFrames('y'.repeat(MAX_HAND_ACTION_CHARS + 50), deviations);
    expect(frames).toHaveLength(3);
    expect(frames.map((f) => f.action === null)).toEqual([false, true, true]);
    expect(frames.flatMap((f) => f.deviations.map((d) => d.text.split(' ')[0]))).toEqual(
      deviations.map((_, i) => String(i)),
    );
    for (const f of frames)
      expect(ClientFrameSchema.safeParse({ type: 'hand', ...f }).success).toBe(true);
  });

  it('a click without deviations is one frame; a deadline without any is one empty frame', () => {
    expect(handFrames('Answer OK to 2', [])).toEqual([
      { action: 'Answer OK to 2', deviations: [] },
    ]);
    expect(handFrames(null, [])).toEqual([{ action: null, deviations: [] }]);
  });
});
