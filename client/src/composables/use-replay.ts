// Replay mode's state: a trace loaded from a file or from a lab on this relay, checked line by
// line (problems are state, shown on the page), and a cursor over its events. Everything the
// page draws derives from the cursor: the state at that moment (shared/analysis/replay.ts, folded from the
// nearest checkpoint), the dashboard's model for the ring and the table, the messages in flight
// and the election around it. Play moves a playhead through trace time at a chosen speed.
import { computed, markRaw, onScopeDispose, ref, shallowRef } from 'vue';
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { LabConfig } from '@shared/protocol/lab-config.ts';
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import {
  parseTraceFile,
  type ParsedTrace,
  type TraceProblem,
} from '@shared/protocol/trace-file.ts';
import { replayIndex, stateAt, type ReplayIndex } from '@shared/analysis/replay.ts';
import { rivalLeaders } from '../utils/findings-book.ts';
import { LabModel } from '../utils/lab-model.ts';
import { replayElections, windowAt, type ReplayElection } from '../utils/replay-elections.ts';
import {
  countAtTime,
  messageFates,
  replayConfig,
  replayFlights,
  replaySnapshot,
  StillFlights,
  traceMeta,
  type MessageOutcome,
  type TraceMeta,
} from '../utils/replay-view.ts';
import { COORDINATOR_ROLES } from '../utils/space-time-layout.ts';
import { publicApi } from './use-api.ts';

/** Larger files are refused before reading: parsing them would freeze the tab. */
export const MAX_TRACE_BYTES = 150 * 1024 * 1024;

interface Loaded {
  name: string;
  trace: ParsedTrace;
  meta: TraceMeta;
  config: LabConfig;
  index: ReplayIndex;
  fates: Map<number, MessageOutcome>;
  elections: ReplayElection[];
  known: Map<ProcessId, Pick<ProcessInfo, 'name' | 'kind'>>;
  /** How long a drop's cross stays on the ring, in trace ms. */
  linger: number;
}

export function useReplay() {
  const loading = ref(false);
  const error = ref<string | null>(null);
  const problems = ref<TraceProblem[]>([]);
  const loaded = shallowRef<Loaded | null>(null);
  /** Events applied (0: before the first). */
  const cursor = ref(0);
  /** The playhead's time: the cursor's event time, or between events while playing. */
  const playhead = ref(0);
  const playing = ref(false);
  /** Trace ms per wall-clock ms while playing. */
  const speed = ref(1);
  let generation = 0;
  let raf = 0;

  function reset(): void {
    stop();
    loaded.value = null;
    error.value = null;
    problems.value = [];
    cursor.value = 0;
    playhead.value = 0;
  }

  function load(
    text: string,
    name: string,
    lab: { config: LabConfig; processes: ProcessInfo[] } | null = null,
  ): boolean {
    reset();
    const parsed = parseTraceFile(text);
    if (!parsed.ok) {
      problems.value = parsed.problems;
      error.value = `“${name}” is not a trace this dashboard can replay: ${parsed.problems.length}${parsed.problems.length >= 20 ? '+' : ''} line${parsed.problems.length === 1 ? '' : 's'} failed the check.`;
      return false;
    }
    const trace = parsed.trace;
    if (trace.events.length === 0) {
      error.value = `“${name}” holds no trace events${trace.header ? ' (only a header)' : ''}.`;
      return false;
    }
    const meta = traceMeta(trace, lab?.config ?? null);
    if (meta.ids.length === 0) {
      error.value = `“${name}” names no processes: nothing to draw.`;
      return false;
    }
    const config = replayConfig(meta, lab?.config ?? null);
    const known = new Map(
      (lab?.processes ?? []).map((p) => [p.id, { name: p.name, kind: p.kind }]),
    );
    const index = markRaw(replayIndex(trace, 500));
    const initial = replaySnapshot(stateAt(trace, 0, index), config, meta.source, known);
    const fates = messageFates(trace.events);
    loaded.value = markRaw({
      name,
      trace,
      meta,
      config,
      index,
      fates,
      elections: replayElections(trace.events, initial),
      known,
      linger: lingerOf(trace, fates),
    });
    seek(0);
    return true;
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

  async function loadLab(lab: string): Promise<void> {
    const g = ++generation;
    reset();
    loading.value = true;
    const [snap, text] = await Promise.all([publicApi.snapshot(lab), publicApi.traceText(lab)]);
    if (g !== generation) return;
    loading.value = false;
    if (!snap.ok)
      return void (error.value =
        snap.code === 'UNKNOWN_LAB'
          ? `No lab called “${lab}” on this relay.`
          : `Cannot load lab “${lab}”: ${snap.message}`);
    if (!text.ok) return void (error.value = `Cannot load the trace of “${lab}”: ${text.message}`);
    load(text.data, `lab ${lab}`, snap.data);
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

  /** A lesson step's run as the relay's simulator ran it (`?lesson=LAB`, the projector's link after the reveal). */
  async function loadLessonRun(lab: string): Promise<void> {
    const g = ++generation;
    reset();
    loading.value = true;
    const text = await publicApi.lessonTraceText(lab);
    if (g !== generation) return;
    loading.value = false;
    if (!text.ok)
      return void (error.value = `Cannot load the lesson's run in “${lab}”: ${text.message}`);
    load(text.data, `the lesson's run (${lab})`);
  }

  /** A challenge board's entry re-run by the relay (`?challenge=LAB&rank=N`, the instructor's replay link). */
  async function loadChallengeRun(lab: string, rank: number, token: string | null): Promise<void> {
    const g = ++generation;
    reset();
    loading.value = true;
    const text = await publicApi.challengeTraceText(lab, rank, token);
    if (g !== generation) return;
    loading.value = false;
    if (!text.ok)
      return void (error.value = `Cannot load entry #${rank} of the challenge in “${lab}”: ${text.message}`);
    load(text.data, `challenge entry #${rank} (${lab})`);
  }

  /** A student's failing run as her tab sent it with her grade (`?grade=LAB/ID`, the class board's link). */
  async function loadGradeTrace(lab: string, id: number): Promise<void> {
    const g = ++generation;
    reset();
    loading.value = true;
    const text = await publicApi.gradeTraceText(lab, id);
    if (g !== generation) return;
    loading.value = false;
    if (!text.ok)
      return void (error.value = `Cannot load process ${id}'s failing run in “${lab}”: ${text.message}`);
    load(text.data, `process ${id}'s graded run (${lab})`);
  }

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

  onScopeDispose(() => {
    generation++;
    stop();
  });

  return {
    loading,
    error,
    problems,
    loaded,
    cursor,
    playhead,
    playing,
    speed,
    state,
    model,
    flights,
    shownWindow,
    splitBrain,
    current,
    load,
    loadFile,
    loadLab,
    loadText,
    loadGradeTrace,
    loadLessonRun,
    loadChallengeRun,
    seek,
    step,
    play,
    stop,
    reset,
  };
}

/** Drops stay visible for twice the mean delivery time (at least 20 ms of trace time). */
function lingerOf(trace: ParsedTrace, fates: ReadonlyMap<number, MessageOutcome>): number {
  let sum = 0;
  let n = 0;
  for (const e of trace.events) {
    if (e.kind !== 'send' || n >= 2000) continue;
    const f = fates.get(e.msg);
    if (f && !f.dropped) {
      sum += f.at - e.t;
      n++;
    }
  }
  return Math.max(20, n ? (2 * sum) / n : 200);
}
