// The student's tab as a process: joins the lab over socket.io, runs the lab's algorithm in a
// ProcessHost with real timers, and exposes what the process view shows (status, report, timers,
// inbox, outbox). A crash from the relay stops the algorithm and drops its state; a recovery or
// a restart starts it from scratch. The resume token lives in sessionStorage, so reloading the
// tab reclaims the same id.
import { markRaw, onScopeDispose, ref, shallowRef } from 'vue';
import type { Message, ProcessId, Report } from '../../../shared/algorithm.ts';
import { getAlgorithm } from '../../../shared/algorithms.ts';
import { ProcessHost, algorithmConfig, type HostEvent, type TimerView } from '../../../shared/process-host.ts';
import type { ProcessConfig, ServerFrame } from '../../../shared/protocol.ts';
import { createRng, deriveSeed } from '../../../shared/rng.ts';
import { useRelaySocket } from './use-relay-socket.ts';

export type ProcessStatus = 'connecting' | 'joining' | 'up' | 'crashed' | 'left' | 'refused';

export interface LogEntry {
  n: number;
  /** ms since the page loaded. */
  at: number;
  peer: ProcessId | null;
  message: Message | null;
  /** Timer or elect events in the inbox: what fired. */
  note?: string;
  /** Failure-detector timers: hidden with the heartbeats. */
  background?: boolean;
}

const LOG_LIMIT = 150;
/** Stream offset for a browser process's random numbers, apart from the fabric's streams. */
const PROCESS_STREAM = 0x1000;

export function resumeKey(lab: string, id: ProcessId): string {
  return `election-lab:resume:${lab}:${id}`;
}

export function useLabProcess(opts: { lab: string; id: ProcessId | null; name: string; onJoined?: (id: ProcessId) => void }) {
  const status = ref<ProcessStatus>('connecting');
  const error = ref<string | null>(null);
  const id = ref<ProcessId | null>(opts.id);
  const config = shallowRef<ProcessConfig | null>(null);
  const report = shallowRef<Report | null>(null);
  const timers = shallowRef<(TimerView & { left: number; total: number })[]>([]);
  /** How long each armed timer was set for, keyed name@due: the countdown bar's full length. */
  const armed = new Map<string, number>();
  const inbox = shallowRef<LogEntry[]>([]);
  const outbox = shallowRef<LogEntry[]>([]);
  const restarts = ref(0);
  let counter = 0;
  let host: ProcessHost | null = null;
  let startedAt = performance.now();
  const clock = () => performance.now() - startedAt;

  const socket = useRelaySocket({
    onFrame,
    onOpen: join,
    onClose: () => {
      // The relay forgets a process whose connection dropped; rejoin on reconnect, from scratch.
      host?.stop();
      if (status.value !== 'left' && status.value !== 'refused') status.value = 'connecting';
    },
  });

  function join(): void {
    status.value = 'joining';
    const resume = id.value !== null ? (sessionStorage.getItem(resumeKey(opts.lab, id.value)) ?? undefined) : undefined;
    socket.send({ type: 'join', lab: opts.lab, ...(id.value !== null ? { id: id.value } : {}), name: opts.name || undefined, resume, kind: 'human' });
  }

  function log(box: typeof inbox, entry: Omit<LogEntry, 'n' | 'at'>): void {
    const next = [{ ...entry, n: ++counter, at: clock() }, ...box.value];
    if (next.length > LOG_LIMIT) next.length = LOG_LIMIT;
    box.value = next;
  }

  function onHostEvent(e: HostEvent): void {
    if (e.kind === 'in' && e.event.kind === 'timer') log(inbox, { peer: null, message: null, note: `timer ${e.event.name} fired`, background: /^fd:|heartbeat/i.test(e.event.name) });
    else if (e.kind === 'in' && e.event.kind === 'elect') log(inbox, { peer: null, message: null, note: 'asked to start an election' });
    else if (e.kind === 'out') log(outbox, { peer: e.to, message: e.message });
    else if (e.kind === 'report') report.value = e.report;
    else if (e.kind === 'started') restarts.value++;
  }

  function start(cfg: ProcessConfig): void {
    if (id.value === null) return;
    config.value = cfg;
    host?.stop();
    startedAt = performance.now();
    host = markRaw(
      new ProcessHost(
        getAlgorithm(cfg.algorithm),
        {
          send: (to, message) => socket.send({ type: 'send', to, message }),
          report: (r) => socket.send({ type: 'report', report: r }),
          setTimer: (fn, ms) => window.setTimeout(fn, ms),
          clearTimer: (h) => window.clearTimeout(h as number),
          now: clock,
          random: createRng(deriveSeed(cfg.seed, PROCESS_STREAM + id.value)),
        },
        onHostEvent,
      ),
    );
    report.value = null;
    status.value = 'up';
    host.start(algorithmConfig(cfg, id.value));
  }

  function stop(next: ProcessStatus): void {
    host?.stop();
    status.value = next;
    report.value = null;
    timers.value = [];
  }

  function onFrame(f: ServerFrame): void {
    switch (f.type) {
      case 'joined':
        id.value = f.id;
        sessionStorage.setItem(resumeKey(opts.lab, f.id), f.resume);
        error.value = null;
        opts.onJoined?.(f.id);
        config.value = f.config;
        if (f.status === 'up') start(f.config);
        else stop('crashed');
        return;
      case 'deliver':
        if (!host?.isRunning) return;
        log(inbox, { peer: f.from, message: f.message });
        host.deliver(f.from, f.message);
        return;
      case 'crashed':
        stop('crashed');
        return;
      case 'recovered':
      case 'restart':
        start(f.config);
        return;
      case 'elect':
        host?.elect();
        return;
      case 'left':
        stop('left');
        return;
      case 'error':
        error.value = f.message;
        if (status.value === 'joining') {
          status.value = 'refused';
          socket.close();
        }
        return;
    }
  }

  // Timers count down on screen ten times a second.
  const tick = window.setInterval(() => {
    if (!host?.isRunning) {
      if (timers.value.length) timers.value = [];
      return;
    }
    const now = clock();
    const live = new Set<string>();
    timers.value = host.timerList().map((t) => {
      const key = `${t.name}@${t.due}`;
      live.add(key);
      const left = Math.max(0, t.due - now);
      if (!armed.has(key)) armed.set(key, Math.max(left, 1));
      return { ...t, left, total: armed.get(key)! };
    });
    for (const key of armed.keys()) if (!live.has(key)) armed.delete(key);
  }, 100);

  function leave(): void {
    socket.send({ type: 'leave' });
    if (id.value !== null) sessionStorage.removeItem(resumeKey(opts.lab, id.value));
    stop('left');
  }

  onScopeDispose(() => {
    window.clearInterval(tick);
    host?.stop();
  });

  return { status, error, id, config, report, timers, inbox, outbox, restarts, connection: socket.status, leave };
}

export type LabProcess = ReturnType<typeof useLabProcess>;
