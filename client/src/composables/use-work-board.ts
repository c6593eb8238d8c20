// The Work panel's figures for a watched lab: the model's WorkBoard (folded from the trace) read
// at most four times a second, with the processes' reports as their claims. Null: no workload.
import { computed } from 'vue';
import type { useLabObserver } from './use-lab-observer.ts';
import type { WorkView } from '../utils/work-board.ts';

export function useWorkBoard(observer: Pick<ReturnType<typeof useLabObserver>, 'model' | 'slowVersion'>) {
  return computed<WorkView | null>(() => {
    void observer.slowVersion.value;
    const m = observer.model.value;
    return m.work.view(m.now, m.list());
  });
}
