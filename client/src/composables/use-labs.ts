// The relay's list of labs for the join page, refreshed every few seconds while shown.
import { onScopeDispose, ref, shallowRef } from 'vue';
import { publicApi, type LabSummary } from './use-api.ts';

export function useLabs(everyMs = 3000) {
  const labs = shallowRef<LabSummary[]>([]);
  const loading = ref(true);
  const error = ref<string | null>(null);
  let stopped = false;

  async function refresh(): Promise<void> {
    const res = await publicApi.labs();
    if (stopped) return;
    loading.value = false;
    if (!res.ok) {
      error.value = res.message;
      return;
    }
    error.value = null;
    labs.value = res.data;
  }

  void refresh();
  const timer = setInterval(() => void refresh(), everyMs);
  onScopeDispose(() => {
    stopped = true;
    clearInterval(timer);
  });
  return { labs, loading, error, refresh };
}
