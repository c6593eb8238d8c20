// The live checker's findings as FindingsPanel draws them, copied out of the observer's model at
// most four times a second (its slow version): the dashboard and the instructor panel show the
// same panel from the same book (utils/findings-book.ts), fed by the trace and, with the
// observer's stats on, corrected by the relay's summary once a second.
import { computed } from 'vue';
import type { LabObserver } from './use-lab-observer.ts';

export function useFindings(observer: LabObserver) {
  const findings = computed(() => {
    void observer.slowVersion.value;
    const f = observer.model.value.findings;
    return {
      counts: { ...f.counts },
      recent: [...f.recent],
      splitBrain: [...f.splitBrain],
      election: f.election,
      quiet: f.quiet,
      bounds: f.bounds,
      exact: f.exact,
    };
  });
  /** Every process in a split brain right now. */
  const rivals = computed(() => new Set(findings.value.splitBrain.flatMap((b) => b.processes)));
  return { findings, rivals };
}
