// Watches one lab for the dashboard and the instructor's panel: observes it over socket.io,
// feeds the snapshot and the trace batches into a LabModel (plain objects) and the flight board,
// and bumps `version` once per batch. Views that rebuild DOM read `slowVersion`, which moves at
// most four times a second, so a busy lab never floods the page with re-renders.
import { computed, markRaw, onScopeDispose, ref, shallowRef, watch, type Ref } from 'vue';
import type { LabStats, ServerFrame } from '@shared/protocol/frames.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { FlightBoard } from '../utils/flight-board.ts';
import { LabModel } from '../utils/lab-model.ts';
import { ringOrder } from '../utils/ring-layout.ts';
import { publicApi } from './use-api.ts';
import { useRelaySocket } from './use-relay-socket.ts';

const SLOW_MS = 250;

export function useLabObserver(lab: Ref<string>, opts: { stats?: boolean } = {}) {
  const model = shallowRef(markRaw(new LabModel()));
  const flights = markRaw(new FlightBoard());
  const version = ref(0);
  const slowVersion = ref(0);
  const loaded = ref(false);
  const missing = ref(false);
  const error = ref<string | null>(null);
  const stats = shallowRef<LabStats | null>(null);
  let slowTimer: ReturnType<typeof setTimeout> | null = null;
  let identityTimer: ReturnType<typeof setTimeout> | null = null;
  /** Drops answers to requests made for a lab we no longer watch. */
  let generation = 0;

  const socket = useRelaySocket({
    onFrame,
    onOpen: () => socket.send({ type: 'observe', lab: lab.value }),
  });

  function bump(): void {
    version.value++;
    if (slowTimer === null)
      slowTimer = setTimeout(() => {
        slowTimer = null;
        slowVersion.value++;
      }, SLOW_MS);
  }

  function onFrame(f: ServerFrame): void {
    switch (f.type) {
      case 'snapshot':
        if (f.lab !== lab.value) return;
        model.value.applySnapshot(f.snapshot);
        loaded.value = true;
        missing.value = false;
        error.value = null;
        syncFlightDuration();
        bump();
        return;
      case 'events':
        if (f.lab !== lab.value) return;
        model.value.applyEvents(f.events, f.skipped);
        animate(f.events);
        if (model.value.needsSnapshot) refreshIdentity();
        bump();
        return;
      case 'fabric':
        if (f.lab !== lab.value) return;
        model.value.applyFabric(f.fabric);
        syncFlightDuration();
        bump();
        return;
      case 'error':
        if (f.code === 'UNKNOWN_LAB') missing.value = true;
        else error.value = f.message;
        return;
    }
  }

  function animate(events: readonly TraceEvent[]): void {
    const now = performance.now();
    for (const e of events) {
      if (e.kind === 'send' || e.kind === 'duplicate')
        flights.send(e.msg, e.from, e.to, e.type, now);
      else if (e.kind === 'drop') flights.drop(e.msg, e.reason, now);
    }
  }

  /** Messages fly for about their real delay (scaled), kept between 0.5 and 2 s to stay visible. */
  function syncFlightDuration(): void {
    const f = model.value.config?.fabric;
    if (!f) return;
    flights.duration = Math.min(
      2000,
      Math.max(500, (f.link.delay + f.link.jitter / 2) * f.timeScale),
    );
  }

  /**
   * A process joined that the snapshot did not know, or the lab was reset: observe again. The
   * relay answers with a snapshot placed exactly where this stream continues (debounced).
   */
  function refreshIdentity(): void {
    if (identityTimer !== null) return;
    identityTimer = setTimeout(() => {
      identityTimer = null;
      socket.send({ type: 'observe', lab: lab.value });
    }, 300);
  }

  /** Watch again now (after the instructor created the lab, say). */
  function refresh(): void {
    socket.send({ type: 'observe', lab: lab.value });
  }

  // A lab that does not exist yet is looked for again every few seconds.
  const missingTimer = setInterval(() => {
    if (missing.value) refresh();
  }, 3000);

  // The relay's own stats (exact even when it samples trace batches under load) and its live
  // checker's summary, once a second; no link matrix (nothing here draws it, and at 200
  // processes it is the bulk of the answer).
  let statsTimer: ReturnType<typeof setInterval> | null = null;
  if (opts.stats) {
    const poll = async () => {
      const g = generation;
      const res = await publicApi.stats(lab.value, 0);
      if (g !== generation) return;
      stats.value = res.ok ? res.data : null;
      if (res.ok && res.data.checker) {
        model.value.findings.applySummary(res.data.checker);
        bump();
      }
    };
    statsTimer = setInterval(poll, 1000);
    void poll();
  }

  watch(lab, (next, prev) => {
    generation++;
    socket.send({ type: 'unobserve', lab: prev });
    model.value = markRaw(new LabModel());
    flights.clear();
    loaded.value = false;
    missing.value = false;
    stats.value = null;
    socket.send({ type: 'observe', lab: next });
    bump();
  });

  onScopeDispose(() => {
    generation++;
    if (slowTimer !== null) clearTimeout(slowTimer);
    if (identityTimer !== null) clearTimeout(identityTimer);
    if (statsTimer !== null) clearInterval(statsTimer);
    clearInterval(missingTimer);
  });

  // What the ring and the space-time diagram draw: the lanes in ring order and each process's name.
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
  /**
   * When a message with no delivery seen is drawn as a stub: after ten transmission bounds; when
   * the relay sampled events out during this election, after three mean latencies (its delivery
   * was most likely left out, not late).
   */
  const lostAfter = computed(() => {
    void slowVersion.value;
    const c = model.value.config;
    const w = model.value.tracker.shown;
    if (w?.sampledOut && w.delivered) return Math.max(50, (3 * w.latencySum) / w.delivered);
    return c ? Math.max(1000, 10 * c.timing.transmission * c.fabric.timeScale) : 2000;
  });

  return {
    model,
    flights,
    version,
    slowVersion,
    lanes,
    names,
    shownWindow,
    lostAfter,
    loaded,
    missing,
    error,
    stats,
    refresh,
    status: socket.status,
    connectionError: socket.error,
  };
}

export type LabObserver = ReturnType<typeof useLabObserver>;
