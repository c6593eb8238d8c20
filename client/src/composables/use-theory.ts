// What the algorithm's analysis predicts for the lab (shared/analysis/formulas.ts): best and worst case
// for N = the lab's ids, with its timing bounds (scaled) and options.
import { computed, type Ref } from 'vue';
import { expectedMessages } from '@shared/analysis/formulas.ts';
import type { Theory } from '../utils/stats-vs-theory.ts';
import type { LabObserver } from './use-lab-observer.ts';

export function useTheory(observer: LabObserver): Ref<Theory | null> {
  let key = '';
  let cached: Theory | null = null;
  return computed<Theory | null>(() => {
    void observer.slowVersion.value;
    const c = observer.model.value.config;
    if (!c) return null;
    const s = c.fabric.timeScale;
    const timing = {
      transmission: c.timing.transmission * s,
      processing: c.timing.processing * s,
      heartbeatInterval: c.timing.heartbeatInterval * s,
      heartbeatTimeout: c.timing.heartbeatTimeout * s,
    };
    const k = JSON.stringify([c.algorithm, c.ids.length, timing, c.options]);
    if (k !== key) {
      key = k;
      const n = c.ids.length;
      cached = {
        best: expectedMessages(c.algorithm, n, 'best', timing, c.options),
        worst: expectedMessages(c.algorithm, n, 'worst', timing, c.options),
      };
    }
    return cached;
  });
}
