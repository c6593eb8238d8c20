// The wall clock as a ref that ticks every `everyMs`, for "12 min ago" texts; stops with its scope.
import { onScopeDispose, ref, type Ref } from 'vue';

export function useNow(everyMs: number): Ref<number> {
  const now = ref(Date.now());
  const timer = setInterval(() => (now.value = Date.now()), everyMs);
  onScopeDispose(() => clearInterval(timer));
  return now;
}
