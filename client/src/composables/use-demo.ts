// Whether the relay's demo loop drives the lab (npm start's demo lab: its coordinator crashed and
// recovered every half minute), polled every two seconds: the loop stops on the relay at any
// instructor request, so the panel learns it from the next poll, whichever control she used.
// The answer is checked against the shared schema; a failure is state, never thrown.
import { onScopeDispose, ref, shallowRef, type Ref } from 'vue';
import { DemoStatusSchema, type DemoStatus } from '@shared/lessons/lesson-api.ts';
import { publicApi, useInstructorApi } from './use-api.ts';

const POLL_MS = 2000;

export function useDemo(lab: Ref<string>, token: Ref<string | null>) {
  const status = shallowRef<DemoStatus>({ running: false });
  const error = ref<string | null>(null);
  const api = useInstructorApi(token);
  let version = 0;

  async function refresh(): Promise<void> {
    const v = ++version;
    const res = await publicApi.demo(lab.value);
    if (v !== version) return;
    const parsed = res.ok ? DemoStatusSchema.safeParse(res.data) : null;
    if (parsed?.success) {
      status.value = parsed.data;
      error.value = null;
    } else
      error.value = res.ok
        ? 'The relay sent a demo status this page does not understand'
        : res.message;
  }

  async function stop(): Promise<void> {
    const res = await api.stopDemo(lab.value);
    if (!res.ok) error.value = res.message;
    await refresh();
  }

  void refresh();
  const timer = setInterval(() => void refresh(), POLL_MS);
  onScopeDispose(() => clearInterval(timer));
  return { status, error, busy: api.busy, stop, refresh };
}
