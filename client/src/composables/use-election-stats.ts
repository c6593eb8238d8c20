// The stats panel's figures for the election on show, rebuilt at most four times a second from
// the observer's model, with the algorithm's formulas for this N beside the counts.
import { computed, ref, type Ref } from 'vue';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import type { LabObserver } from './use-lab-observer.ts';
import { electionUnderWay, noElectionText, type UnderWay } from '../utils/election-under-way.ts';
import { statsVsTheory, type StatsTable, type Theory } from '../utils/stats-vs-theory.ts';

export function useElectionStats(observer: LabObserver, theoryFor: Ref<Theory | null> = ref(null)) {
  const knownTypes = computed<readonly string[]>(() => {
    void observer.slowVersion.value;
    const name = observer.model.value.config?.algorithm;
    return name ? getAlgorithm(name).messageTypes : [];
  });

  const table = computed<StatsTable | null>(() => {
    void observer.slowVersion.value;
    const m = observer.model.value;
    const w = m.tracker.shown;
    if (!w || !m.config) return null;
    const transmission = m.config.timing.transmission * m.config.fabric.timeScale;
    return statsVsTheory(w, m.now, knownTypes.value, theoryFor.value, transmission);
  });

  /** Trace batches the relay sampled under load during this election: its counts are then lower bounds. */
  const note = computed(() => {
    void observer.slowVersion.value;
    const skipped = observer.model.value.tracker.shown?.sampledOut ?? 0;
    return skipped
      ? `The relay left ${skipped} message events out of its batches during this election (it samples under load): counts here may be low; GET /api/labs/:lab/stats has exact totals.`
      : null;
  });

  /**
   * An election under way by any witness (the relay, its checker, the processes' reports), also
   * one that began before this page opened and so has no window of its own here.
   */
  const underWay = computed<UnderWay | null>(() => {
    void observer.slowVersion.value;
    const m = observer.model.value;
    return electionUnderWay({
      current: m.tracker.current,
      processes: m.list(),
      relay: observer.stats.value,
      checker: m.findings.election,
      now: m.now,
    });
  });

  /** What to say when there is no election window to show: the one under way, else the relay's last one, else none yet. */
  const idle = computed(() => underWay.value?.text ?? noElectionText(observer.stats.value));

  return { knownTypes, table, note, underWay, idle };
}
