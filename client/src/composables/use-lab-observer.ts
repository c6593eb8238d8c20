// Watches one lab for the dashboard and the instructor's panel: observes it over socket.io,
// feeds the snapshot and the trace batches into a LabModel (plain objects) and the flight board,
// and bumps `version` once per batch. Views that rebuild DOM read `slowVersion`, which moves at
// most four times a second, so a busy lab never floods the page with re-renders.
import {
  computed,
  markRaw,
  onScopeDispose,
  ref,
  shallowRef,
  watch,
  type Ref,
  type ShallowRef,
} from 'vue';
import type { CheckerSummary } from '@shared/protocol/finding.ts';
import type { LabStats, ServerFrame } from '@shared/protocol/frames.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { FlightBoard } from '../utils/flight-board.ts';
import { LabModel } from '../utils/lab-model.ts';
import { ringOrder } from '../utils/ring-layout.ts';
import { lostAfterFor } from '../utils/space-time-layout.ts';
import { publicApi } from './use-api.ts';
import { useRelaySocket } from './use-relay-socket.ts';

const SLOW_MS = 250;

export function useLabObserver(lab: Ref<string>, opts: { stats?: boolean } = {}) {
  const model = shallowRef(markRaw(new LabModel()));
  const flights = markRaw(new FlightBoard());
  const { version, slowVersion, bump } = useSlowVersion();
  const loaded = ref(false);
  const missing = ref(false);
  const error = ref<string | null>(null);
  const observe = () => socket.send({ type: 'observe', lab: lab.value });
  const socket = useRelaySocket({ onFrame, onOpen: observe });
  // A process joined that the snapshot did not know, or the lab was reset: observe again. The
  // relay answers with a snapshot placed exactly where this stream continues.
  const refreshIdentity = debounced(observe, 300);

  function onFrame(f: ServerFrame): void {
    if (f.type === 'error') {
      if (f.code === 'UNKNOWN_LAB') missing.value = true;
      else error.value = f.message;
      return;
    }
    if (!('lab' in f) || f.lab !== lab.value) return;
    switch (f.type) {
      case 'snapshot':
        model.value.applySnapshot(f.snapshot);
        loaded.value = true;
        missing.value = false;
        error.value = null;
        flights.duration = flightDuration(model.value, flights.duration);
        return bump();
      case 'events':
        model.value.applyEvents(f.events, f.skipped);
        animate(flights, f.events, performance.now());
        if (model.value.needsSnapshot) refreshIdentity.call();
        return bump();
      case 'fabric':
        model.value.applyFabric(f.fabric);
        flights.duration = flightDuration(model.value, flights.duration);
        return bump();
    }
  }

  // A lab that does not exist yet is looked for again every few seconds.
  const missingTimer = setInterval(() => {
    if (missing.value) observe();
  }, 3000);
  const stats = useLabStats(lab, !!opts.stats, (checker) => {
    model.value.findings.applySummary(checker);
    bump();
  });

  watch(lab, (next, prev) => {
    socket.send({ type: 'unobserve', lab: prev });
    model.value = markRaw(new LabModel());
    flights.clear();
    loaded.value = false;
    missing.value = false;
    socket.send({ type: 'observe', lab: next });
    bump();
  });
  onScopeDispose(() => {
    refreshIdentity.cancel();
    clearInterval(missingTimer);
  });

  return {
    model,
    flights,
    version,
    slowVersion,
    ...observerViews(model, slowVersion),
    loaded,
    missing,
    error,
    stats,
    /** Watch again now (after the instructor created the lab, say). */
    refresh: observe,
    status: socket.status,
    connectionError: socket.error,
  };
}

export type LabObserver = ReturnType<typeof useLabObserver>;

/** `version` moves once per batch; `slowVersion`, for views that rebuild DOM, at most every SLOW_MS. */
function useSlowVersion() {
  const version = ref(0);
  const slowVersion = ref(0);
  let slowTimer: ReturnType<typeof setTimeout> | null = null;
  function bump(): void {
    version.value++;
    if (slowTimer === null)
      slowTimer = setTimeout(() => {
        slowTimer = null;
        slowVersion.value++;
      }, SLOW_MS);
  }
  onScopeDispose(() => {
    if (slowTimer !== null) clearTimeout(slowTimer);
  });
  return { version, slowVersion, bump };
}

/** `call` runs `fn` once, `ms` after the first call of a burst. */
function debounced(fn: () => void, ms: number) {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return {
    call(): void {
      timer ??= setTimeout(() => {
        timer = null;
        fn();
      }, ms);
    },
    cancel(): void {
      if (timer !== null) clearTimeout(timer);
    },
  };
}

/**
 * The relay's own stats (exact even when it samples trace batches under load) and its live
 * checker's summary, once a second while `on`; no link matrix (nothing here draws it, and at 200
 * processes it is the bulk of the answer). An answer for a lab no longer watched is dropped.
 */
function useLabStats(lab: Ref<string>, on: boolean, onChecker: (c: CheckerSummary) => void) {
  const stats = shallowRef<LabStats | null>(null);
  let generation = 0;
  watch(lab, () => {
    generation++;
    stats.value = null;
  });
  onScopeDispose(() => generation++);
  if (!on) return stats;
  const poll = async () => {
    const g = generation;
    const res = await publicApi.stats(lab.value, 0);
    if (g !== generation) return;
    stats.value = res.ok ? res.data : null;
    if (res.ok && res.data.checker) onChecker(res.data.checker);
  };
  const timer = setInterval(poll, 1000);
  onScopeDispose(() => clearInterval(timer));
  void poll();
  return stats;
}

function animate(flights: FlightBoard, events: readonly TraceEvent[], now: number): void {
  for (const e of events) {
    if (e.kind === 'send' || e.kind === 'duplicate') flights.send(e.msg, e.from, e.to, e.type, now);
    else if (e.kind === 'drop') flights.drop(e.msg, e.reason, now);
  }
}

/** Messages fly for about their real delay (scaled), kept between 0.5 and 2 s to stay visible. */
function flightDuration(model: LabModel, current: number): number {
  const f = model.config?.fabric;
  if (!f) return current;
  return Math.min(2000, Math.max(500, (f.link.delay + f.link.jitter / 2) * f.timeScale));
}

/** What the ring and the space-time diagram draw, recomputed at most every SLOW_MS. */
function observerViews(model: ShallowRef<LabModel>, slowVersion: Ref<number>) {
  // The lanes in ring order and each process's name.
  const lanes = computed(() => {
    void slowVersion.value;
    const c = model.value.config;
    return c ? ringOrder(c.ids, c.ring) : [];
  });
  const names = computed(() => {
    void slowVersion.value;
    return new Map([...model.value.processes.values()].map((p) => [p.id, p.name]));
  });
  /** The election window the space-time diagram shows. */
  const shownWindow = computed(() => {
    void slowVersion.value;
    return model.value.tracker.shown;
  });
  const lostAfter = computed(() => {
    void slowVersion.value;
    return lostAfterFor(model.value.config, model.value.tracker.shown);
  });
  return { lanes, names, shownWindow, lostAfter };
}
