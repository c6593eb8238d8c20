// A lab's lesson as a page sees it (issue 28): the view, polled once a second while the page is
// open (answers arrive from every phone; one small GET a second per page is the whole cost), and
// for the instructor the shipped lessons and her moves. Stale answers are dropped by a version
// counter; failures are state, never thrown.
import { computed, onScopeDispose, ref, shallowRef, watch, type ComputedRef, type Ref } from 'vue';
import type { LessonAction } from '@shared/lessons/lesson-class.ts';
import type { LessonView } from '@shared/lessons/lesson-api.ts';
import { openedAtFrom, questionClock, type QuestionClock } from '../utils/question-clock.ts';
import { publicApi, useInstructorApi, type LessonSummary } from './use-api.ts';
import { useNow } from './use-now.ts';

const POLL_MS = 1000;

export function useLesson(lab: Ref<string>, token: Ref<string | null> = ref(null)) {
  const view = shallowRef<LessonView | null>(null);
  /** True when the lab runs no lesson (as opposed to not known yet). */
  const none = ref(false);
  const error = ref<string | null>(null);
  /** When the open question opened, on this page's clock (Date.now ms); null while none is open. */
  const openedAt = ref<number | null>(null);
  let version = 0;

  async function refresh(): Promise<void> {
    const v = ++version;
    const res = await publicApi.lesson(lab.value, token.value);
    if (v !== version) return;
    if (res.ok) {
      view.value = res.data;
      openedAt.value = openedAtFrom(res.data?.openForMs, Date.now());
      none.value = res.data === null;
      error.value = null;
    } else error.value = res.message;
  }

  void refresh();
  const timer = setInterval(() => void refresh(), POLL_MS);
  onScopeDispose(() => clearInterval(timer));
  return { view, none, error, openedAt, refresh };
}

/** The open question's countdown (or elapsed time), ticking four times a second; null while none is open. */
export function useQuestionClock(
  view: Ref<LessonView | null>,
  openedAt: Ref<number | null>,
): ComputedRef<QuestionClock | null> {
  const now = useNow(250);
  return computed(() => {
    const v = view.value;
    if (!v || v.phase !== 'open' || !v.question || openedAt.value === null) return null;
    return questionClock(openedAt.value, now.value, v.question.seconds);
  });
}

/** The relay's shipped lessons (titles and questions; the reveals need the token), read once. */
export function useLessonCatalog() {
  const catalog = shallowRef<LessonSummary[]>([]);
  const error = ref<string | null>(null);
  void publicApi.lessons().then((res) => {
    if (res.ok) catalog.value = res.data.lessons;
    else error.value = res.message;
  });
  return { catalog, error };
}

/** The instructor's lesson controls: pick a shipped lesson, then start, lock, run, reveal, next. */
export function useLessonControl(lab: Ref<string>, token: Ref<string | null>) {
  const lesson = useLesson(lab, token);
  const api = useInstructorApi(token);
  const { catalog, error: catalogError } = useLessonCatalog();
  const feedback = ref('');
  watch(catalogError, (e) => {
    if (e) feedback.value = `Lessons: ${e}`;
  });

  async function begin(id: string): Promise<void> {
    const res = await api.beginLesson(lab.value, id);
    feedback.value = res.ok
      ? `Lesson “${res.data.lesson.title}” is ready`
      : `Lesson: ${res.message}`;
    if (res.ok) lesson.view.value = res.data;
  }

  async function act(action: LessonAction): Promise<void> {
    const res = await api.lessonAction(lab.value, action);
    feedback.value = res.ok ? '' : `${action}: ${res.message}`;
    if (res.ok) lesson.view.value = res.data;
  }

  return { ...lesson, catalog, feedback, busy: api.busy, begin, act };
}
