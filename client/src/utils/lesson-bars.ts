// The bars of a lesson's answer histogram (the projector's and the instructor's reveal): one per
// possible answer of a choice or process question, one per given answer of a number question,
// in the question's own order, with the run's measured value marked (and given a bar of its own
// when nobody chose it, so the class sees where the truth lay).
import type { LessonView } from '@shared/lessons/lesson-api.ts';

export interface LessonBar {
  value: number;
  label: string;
  count: number;
  /** count / the largest count (0 when nobody answered): the bar's length. */
  length: number;
  measured: boolean;
}

export function lessonBars(
  view: Pick<LessonView, 'question' | 'answers' | 'ids' | 'measured'>,
): LessonBar[] {
  const q = view.question;
  const count = (v: number) => view.answers[String(v)] ?? 0;
  let values: { value: number; label: string }[];
  if (q?.kind === 'choice') values = q.choices.map((c) => ({ value: c.value, label: c.label }));
  else if (q?.kind === 'process') values = view.ids.map((id) => ({ value: id, label: String(id) }));
  else {
    const given = new Set(Object.keys(view.answers).map(Number));
    if (typeof view.measured === 'number') given.add(view.measured);
    values = [...given].sort((a, b) => a - b).map((v) => ({ value: v, label: String(v) }));
  }
  const max = Math.max(0, ...values.map((v) => count(v.value)));
  return values.map((v) => ({
    ...v,
    count: count(v.value),
    length: max ? count(v.value) / max : 0,
    measured: v.value === view.measured,
  }));
}

/** Share of the class whose answer was the measured value, 0..1 (null before the reveal or with no answers). */
export function rightShare(
  view: Pick<LessonView, 'answers' | 'answered' | 'measured'>,
): number | null {
  if (typeof view.measured !== 'number' || view.answered === 0) return null;
  return (view.answers[String(view.measured)] ?? 0) / view.answered;
}
