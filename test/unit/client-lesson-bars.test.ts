// The reveal's histogram bars (client/src/utils/lesson-bars.ts): the question's own order, every
// choice or id shown, the measured value marked and present even when nobody chose it.
import { describe, expect, it } from 'vitest';
import { lessonBars, rightShare } from '../../client/src/utils/lesson-bars.ts';

describe('lesson bars', () => {
  it('a process question: one bar per id of the step, the measured id marked', () => {
    const bars = lessonBars({
      question: { kind: 'process', text: 'who?' },
      ids: [4, 5, 6, 7],
      answers: { '6': 3, '7': 1 },
      measured: 6,
    });
    expect(bars.map((b) => [b.value, b.count, b.length, b.measured])).toEqual([
      [4, 0, 0, false],
      [5, 0, 0, false],
      [6, 3, 1, true],
      [7, 1, 1 / 3, false],
    ]);
  });

  it("a choice question: the choices' order and labels", () => {
    const q = {
      kind: 'choice' as const,
      text: 'how long?',
      choices: [
        { label: '4T + M', value: 410 },
        { label: '2T + M', value: 210 },
      ],
    };
    expect(
      lessonBars({ question: q, ids: [], answers: { '210': 2 }, measured: 410 }).map(
        (b) => `${b.label}:${b.count}${b.measured ? '*' : ''}`,
      ),
    ).toEqual(['4T + M:0*', '2T + M:2']);
  });

  it('a number question: the given answers ascending, plus the measured value when nobody gave it', () => {
    const bars = lessonBars({
      question: { kind: 'number', text: 'how many?' },
      ids: [],
      answers: { '20': 1, '9': 2 },
      measured: 15,
    });
    expect(bars.map((b) => [b.value, b.count, b.measured])).toEqual([
      [9, 2, false],
      [15, 0, true],
      [20, 1, false],
    ]);
    expect(
      lessonBars({
        question: { kind: 'number', text: 'n?' },
        ids: [],
        answers: {},
        measured: undefined,
      }),
    ).toEqual([]);
  });

  it('the share of the class that was right', () => {
    expect(rightShare({ answers: { '6': 3, '7': 1 }, answered: 4, measured: 6 })).toBe(0.75);
    expect(rightShare({ answers: {}, answered: 4, measured: undefined })).toBeNull();
    expect(rightShare({ answers: {}, answered: 0, measured: 6 })).toBeNull();
  });
});
