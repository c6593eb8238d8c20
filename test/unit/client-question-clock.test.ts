// The projector's question clock (client/src/utils/question-clock.ts; issue 28 item 4: "while
// open: the question, a count of answers and a countdown").
import { describe, expect, it } from 'vitest';
import {
  minutesSeconds,
  openedAtFrom,
  questionClock,
} from '../../client/src/utils/question-clock.ts';

describe('question clock', () => {
  it('counts a time limit down in whole seconds, rounding up, then says the time is up', () => {
    expect(questionClock(1000, 1000, 60)).toEqual({ text: '1:00 left', left: 60, over: false });
    expect(questionClock(1000, 1001, 60)).toEqual({ text: '1:00 left', left: 60, over: false });
    expect(questionClock(1000, 19_500, 60)).toEqual({ text: '0:42 left', left: 42, over: false });
    expect(questionClock(1000, 60_999, 60)).toEqual({ text: '0:01 left', left: 1, over: false });
    expect(questionClock(1000, 61_000, 60)).toEqual({ text: "Time's up", left: 0, over: true });
    expect(questionClock(1000, 500_000, 60).over).toBe(true);
  });

  it('without a limit shows how long the question has been open; a clock behind the open time shows 0', () => {
    expect(questionClock(0, 65_400, undefined)).toEqual({
      text: 'open 1:05',
      left: null,
      over: false,
    });
    expect(questionClock(5000, 4000, undefined).text).toBe('open 0:00');
    expect(minutesSeconds(3599.9)).toBe('59:59');
    expect(minutesSeconds(-3)).toBe('0:00');
  });

  it("places the opening on the page's clock from the relay's openForMs", () => {
    expect(openedAtFrom(1500, 10_000)).toBe(8500);
    expect(openedAtFrom(undefined, 10_000)).toBeNull();
  });
});
