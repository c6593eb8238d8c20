// Replay's cursor over a loaded trace: the events applied, the playhead's time, and play, which
// moves the playhead through trace time at a chosen speed (one animation frame at a time).
import { onScopeDispose, ref, type ShallowRef } from 'vue';
import { countAtTime } from '../utils/replay-view.ts';
import type { LoadedTrace } from '../utils/replay-load.ts';

export function useReplayPlayer(loaded: ShallowRef<LoadedTrace | null>) {
  /** Events applied (0: before the first). */
  const cursor = ref(0);
  /** The playhead's time: the cursor's event time, or between events while playing. */
  const playhead = ref(0);
  const playing = ref(false);
  /** Trace ms per wall-clock ms while playing. */
  const speed = ref(1);
  let raf = 0;

  function seek(count: number): void {
    const l = loaded.value;
    if (!l) return;
    const n = Math.max(0, Math.min(l.trace.events.length, Math.round(count)));
    cursor.value = n;
    playhead.value = n > 0 ? l.trace.events[n - 1]!.t : (l.trace.events[0]?.t ?? 0);
  }

  const step = (d: number) => seek(cursor.value + d);

  function play(): void {
    const l = loaded.value;
    if (!l || playing.value) return;
    if (cursor.value >= l.trace.events.length) seek(0);
    playing.value = true;
    let last = performance.now();
    const tick = (now: number) => {
      if (!playing.value) return;
      const t = playhead.value + (now - last) * speed.value;
      last = now;
      const end = l.trace.events[l.trace.events.length - 1]!.t;
      if (t >= end) {
        seek(l.trace.events.length);
        playing.value = false;
        return;
      }
      cursor.value = countAtTime(l.trace.events, t);
      playhead.value = t;
      raf = requestAnimationFrame(tick);
    };
    raf = requestAnimationFrame(tick);
  }

  function stop(): void {
    playing.value = false;
    cancelAnimationFrame(raf);
  }

  /** Back before the first event (a new trace is about to load). */
  function rewind(): void {
    stop();
    cursor.value = 0;
    playhead.value = 0;
  }

  onScopeDispose(stop);
  return { cursor, playhead, playing, speed, seek, step, play, stop, rewind };
}
