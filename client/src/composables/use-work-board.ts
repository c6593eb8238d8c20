// The Work panel's figures for a watched lab: the model's WorkBoard (folded from the trace) read
// at most four times a second, with the processes' reports as their claims. Null: no workload.
// A page opened mid-job reads the relay's trace once (GET /api/labs/:lab/trace) to count the job
// from its start.
import { computed, ref, watch, type Ref } from 'vue';
import { parseTraceFile } from '@shared/protocol/trace-file.ts';
import { publicApi } from './use-api.ts';
import type { useLabObserver } from './use-lab-observer.ts';
import type { WorkView } from '@shared/analysis/work-view.ts';

export function useWorkBoard(
  lab: Ref<string>,
  observer: Pick<ReturnType<typeof useLabObserver>, 'model' | 'slowVersion'>,
) {
  const caught = ref(0);
  const view = computed<WorkView | null>(() => {
    void observer.slowVersion.value;
    void caught.value;
    const m = observer.model.value;
    return m.work.view(m.now, m.list());
  });
  let asked: unknown = null;
  watch(view, async (v) => {
    const m = observer.model.value;
    // Once per model (a lab watched anew gets a new one), and only for a job begun before the page opened.
    if (!v || v.fromStart || asked === m) return;
    asked = m;
    const res = await publicApi.traceText(lab.value);
    if (!res.ok || observer.model.value !== m) return;
    const parsed = parseTraceFile(res.data);
    if (parsed.ok && m.work.catchUp(parsed.trace.events)) caught.value++;
  });
  return view;
}
