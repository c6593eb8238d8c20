// What the algorithm's analysis predicts for the lab's N, from shared/formulas.ts.
import { computed, type Ref } from 'vue';
import type { Theory } from '../utils/stats-vs-theory.ts';
import type { LabObserver } from './use-lab-observer.ts';

export function useTheory(observer: LabObserver): Ref<Theory | null> {
  return computed<Theory | null>(() => {
    void observer.slowVersion.value;
    // Wired to shared/formulas.ts (expectedMessages) once the lead adds it.
    return null;
  });
}
