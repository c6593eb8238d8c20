// Replay mode's state: a trace loaded from a file or from a lab on this relay, checked line by
// line (problems are state, shown on the page; utils/replay-load.ts), and a cursor over its
// events (use-replay-player.ts). Everything the page draws derives from the cursor: the state at
// that moment (shared/analysis/replay.ts, folded from the nearest checkpoint), the dashboard's
// model for the ring and the table, the messages in flight and the election around it.
import { computed, markRaw, onScopeDispose, ref, shallowRef, type Ref, type ShallowRef } from 'vue';
import type { TraceProblem } from '@shared/protocol/trace-file.ts';
import { stateAt } from '@shared/analysis/replay.ts';
import { rivalLeaders } from '../utils/findings-book.ts';
import { LabModel } from '../utils/lab-model.ts';
import { readTrace, type LoadedTrace, type TraceLab } from '../utils/replay-load.ts';
import { windowAt } from '../utils/replay-elections.ts';
import { replayFlights, replaySnapshot, StillFlights } from '../utils/replay-view.ts';
import { COORDINATOR_ROLES } from '../utils/space-time-layout.ts';
import { publicApi, type ApiResult } from './use-api.ts';
import { useReplayPlayer } from './use-replay-player.ts';

/** Larger files are refused before reading: parsing them would freeze the tab. */
export const MAX_TRACE_BYTES = 150 * 1024 * 1024;

export function useReplay() {
  const loaded = shallowRef<LoadedTrace | null>(null);
  const player = useReplayPlayer(loaded);
  const loader = useTraceLoader(loaded, player);
  const { begin: _begin, ...loads } = loader;
  return {
    loaded,
    ...player,
    ...replayViews(loaded, player.cursor, player.playhead),
    ...loads,
    ...relaySources(loader),
  };
}

type Player = ReturnType<typeof useReplayPlayer>;
type Loader = ReturnType<typeof useTraceLoader>;

/** Loads a trace from text or a file; an answer that arrives after a newer load is dropped. */
function useTraceLoader(loaded: ShallowRef<LoadedTrace | null>, player: Player) {
  const loading = ref(false);
  const error = ref<string | null>(null);
  const problems = ref<TraceProblem[]>([]);
  let generation = 0;

  function reset(): void {
    player.rewind();
    loaded.value = null;
    error.value = null;
    problems.value = [];
  }

  function load(text: string, name: string, lab: TraceLab | null = null): boolean {
    reset();
    const r = readTrace(text, name, lab);
    if (!r.ok) {
      problems.value = r.problems;
      error.value = r.error;
      return false;
    }
    loaded.value = markRaw({ ...r.loaded, index: markRaw(r.loaded.index) });
    player.seek(0);
    return true;
  }

  /** A new load begins (the page empties, `loading` shows); the answer says whether it is still the latest. */
  function begin(): () => boolean {
    const g = ++generation;
    reset();
    loading.value = true;
    return () => {
      if (g !== generation) return false;
      loading.value = false;
      return true;
    };
  }

  async function loadFile(file: File): Promise<void> {
    const g = ++generation;
    if (file.size > MAX_TRACE_BYTES) {
      reset();
      error.value = `“${file.name}” is ${(file.size / 1048576).toFixed(0)} MB; replay reads traces up to ${MAX_TRACE_BYTES / 1048576} MB.`;
      return;
    }
    loading.value = true;
    try {
      const text = await file.text();
      if (g === generation) load(text, file.name);
    } catch {
      if (g === generation) error.value = `Could not read “${file.name}”.`;
    } finally {
      if (g === generation) loading.value = false;
    }
  }

  /** A trace handed over as text: a grade's failing run from this browser's storage (`?stored=`). */
  function loadText(text: string | null, name: string): void {
    ++generation;
    if (text === null) {
      reset();
      error.value = `“${name}” is no longer in this browser's storage (only the last few grades' runs are kept): grade again.`;
      return;
    }
    load(text, name);
  }

  onScopeDispose(() => generation++);
  return { loading, error, problems, reset, load, begin, loadFile, loadText };
}

/** Traces this relay serves: a lab's, a lesson's run, a challenge entry's, a graded run's. */
function relaySources(loader: Loader) {
  const { begin, error, load } = loader;

  /** `name` titles the trace; `failed` says what could not be loaded. */
  async function served(
    fetchText: () => Promise<ApiResult<string>>,
    name: string,
    failed: string,
  ): Promise<void> {
    const current = begin();
    const text = await fetchText();
    if (!current()) return;
    if (!text.ok) return void (error.value = `Cannot load ${failed}: ${text.message}`);
    load(text.data, name);
  }

  return {
    async loadLab(lab: string): Promise<void> {
      const current = begin();
      const [snap, text] = await Promise.all([publicApi.snapshot(lab), publicApi.traceText(lab)]);
      if (!current()) return;
      if (!snap.ok)
        return void (error.value =
          snap.code === 'UNKNOWN_LAB'
            ? `No lab called “${lab}” on this relay.`
            : `Cannot load lab “${lab}”: ${snap.message}`);
      if (!text.ok)
        return void (error.value = `Cannot load the trace of “${lab}”: ${text.message}`);
      load(text.data, `lab ${lab}`, snap.data);
    },
    /** A student's failing run as her tab sent it with her grade (`?grade=LAB/ID`, the class board's link). */
    loadGradeTrace: (lab: string, id: number) =>
      served(
        () => publicApi.gradeTraceText(lab, id),
        `process ${id}'s graded run (${lab})`,
        `process ${id}'s failing run in “${lab}”`,
      ),
    /** A lesson step's run as the relay's simulator ran it (`?lesson=LAB`, the projector's link after the reveal). */
    loadLessonRun: (lab: string) =>
      served(
        () => publicApi.lessonTraceText(lab),
        `the lesson's run (${lab})`,
        `the lesson's run in “${lab}”`,
      ),
    /** A challenge board's entry re-run by the relay (`?challenge=LAB&rank=N`, the instructor's replay link). */
    loadChallengeRun: (lab: string, rank: number, token: string | null) =>
      served(
        () => publicApi.challengeTraceText(lab, rank, token),
        `challenge entry #${rank} (${lab})`,
        `entry #${rank} of the challenge in “${lab}”`,
      ),
  };
}

/** What the page draws at the cursor, each derived from the trace and the cursor alone. */
function replayViews(
  loaded: ShallowRef<LoadedTrace | null>,
  cursor: Ref<number>,
  playhead: Ref<number>,
) {
  const state = computed(() =>
    loaded.value ? stateAt(loaded.value.trace, cursor.value, loaded.value.index) : null,
  );
  /** The dashboard's model of this moment (a fresh one per cursor position: N processes, cheap). */
  const model = computed(() => {
    const l = loaded.value;
    const s = state.value;
    const m = markRaw(new LabModel());
    if (l && s) m.applySnapshot(replaySnapshot(s, l.config, l.meta.source, l.known));
    return m;
  });
  const flights = computed(() => {
    const l = loaded.value;
    const s = state.value;
    if (!l || !s) return null;
    return markRaw(
      new StillFlights(
        replayFlights(s, l.trace.events, cursor.value, l.fates, playhead.value, l.linger),
        l.linger,
      ),
    );
  });
  const shownWindow = computed(() =>
    loaded.value ? windowAt(loaded.value.elections, loaded.value.trace.events, cursor.value) : null,
  );
  const splitBrain = computed(() =>
    state.value ? rivalLeaders(state.value.processes, COORDINATOR_ROLES) : [],
  );
  const current = computed(() =>
    loaded.value && cursor.value > 0 ? loaded.value.trace.events[cursor.value - 1]! : null,
  );
  return { state, model, flights, shownWindow, splitBrain, current };
}
