// The student's tab as a process: a LabProcess (shared/lab-client/lab-client.ts) joins the lab over
// socket.io and runs the lab's algorithm with real timers; this wraps it in refs for the process
// view (status, report, timers, inbox, outbox). A crash from the relay stops the algorithm and
// drops its state; a recovery or a restart starts it from scratch. The resume token is kept in
// sessionStorage by a thin wrapper around the channel, so reloading the tab reclaims the same id.
import { markRaw, onScopeDispose, ref, shallowRef, type Ref } from 'vue';
import type { Message, ProcessId, Report } from '@shared/algorithms/algorithm.ts';
import { followMoved, useClusterFailover } from './use-cluster.ts';
import {
  LabProcess,
  socketIoChannel,
  type ChannelFactory,
  type LabProcessEvent,
  type LabProcessStatus,
} from '@shared/lab-client/lab-client.ts';
import { timerName } from '@shared/coach/hand-kit.ts';
import type { TimerView } from '@shared/sim/named-timers.ts';
import type { ProcessConfig } from '@shared/protocol/frames.ts';
import { rememberJoin, resumeKey } from '../utils/lab-session.ts';
import { mergeLog } from '../utils/message-log.ts';
import { isBackgroundType } from '../utils/message-style.ts';
import { DEFAULT_PLAY, type Play } from '@shared/protocol/lab-config.ts';

export interface LogEntry {
  n: number;
  /** ms since the page loaded. */
  at: number;
  peer: ProcessId | null;
  message: Message | null;
  /** Timer or elect events in the inbox: what fired. */
  note?: string;
  /** Heartbeats, polls and failure-detector timers: hidden with the heartbeats, kept apart (utils/message-log.ts). */
  background?: boolean;
}

const LOG_LIMIT = 100;
/** The inbox and outbox reach the screen at most this often: a busy process gets hundreds of messages a second. */
const PUBLISH_MS = 250;

/** socket.io to this page's origin, remembering the resume token per (lab, id) in sessionStorage. */
export function rememberingChannel(
  lab: string,
  base: ChannelFactory = socketIoChannel(window.location.origin),
): ChannelFactory {
  return (events) => {
    const channel = base({
      ...events,
      frame(f) {
        if (f.type === 'joined') rememberJoin(sessionStorage, lab, f.id, f.resume);
        events.frame(f);
      },
    });
    return {
      send(frame) {
        if (frame.type === 'join' && frame.resume === undefined && frame.id !== undefined) {
          const resume = sessionStorage.getItem(resumeKey(lab, frame.id));
          if (resume) frame = { ...frame, resume };
        }
        channel.send(frame);
      },
      close: () => channel.close(),
    };
  };
}

export interface LabProcessOptions {
  lab: string;
  id: ProcessId | null;
  name: string;
  onJoined?: (id: ProcessId) => void;
  /** The lab's play settings, at once (on join this runs before the process starts, so hand mode can take over first). */
  onPlay?: (play: Play) => void;
  channel?: ChannelFactory;
}

export function useLabProcess(opts: LabProcessOptions) {
  const state = processState(opts.id);
  const t0 = performance.now();
  const { inbox, outbox, log } = useMessageLogs(t0);
  const proc: LabProcess = markRaw(
    new LabProcess({
      channel: opts.channel ?? rememberingChannel(opts.lab),
      lab: opts.lab,
      ...(opts.id !== null ? { id: opts.id } : {}),
      ...(opts.name ? { name: opts.name } : {}),
      kind: 'human',
      onEvent: eventHandler(state, log, opts, () => proc.config),
    }),
  );
  // A refusal (id taken, no such lab) arrives as an error event and the status 'refused'.
  proc.start().catch(() => {});
  const timers = useTimerCountdown(proc, state.status, t0);

  function leave(): void {
    if (state.id.value !== null) sessionStorage.removeItem(resumeKey(opts.lab, state.id.value));
    proc.stop();
    state.status.value = 'left';
  }

  // Closing the tab (or navigating away) drops the connection without leaving: a reload
  // within the relay's grace period resumes the same id.
  onScopeDispose(() => proc.disconnect());
  useClusterFailover(state.status, (s) => s === 'connecting');
  return { ...state, timers, inbox, outbox, leave, process: proc };
}

/** What the process view shows of her process, set from its events. */
function processState(id: ProcessId | null) {
  return {
    status: ref<LabProcessStatus>('connecting'),
    error: ref<string | null>(null),
    id: ref<ProcessId | null>(id),
    config: shallowRef<ProcessConfig | null>(null),
    report: shallowRef<Report | null>(null),
    restarts: ref(0),
    /** Her last lesson answer's fate: stored (step, value) or refused (error). */
    answer: shallowRef<{ step: number; value: number | null; error: string | null } | null>(null),
    /** The lab's play settings (hand mode for students, hints), told on join and live. */
    play: shallowRef<Play>(DEFAULT_PLAY),
  };
}

type Log = (box: 'in' | 'out', entry: Omit<LogEntry, 'n' | 'at'>) => void;

/** The LabProcess's events into the view's state and the message logs. */
function eventHandler(
  s: ReturnType<typeof processState>,
  log: Log,
  opts: LabProcessOptions,
  currentConfig: () => ProcessConfig | null,
): (e: LabProcessEvent) => void {
  /** What her algorithm did: timers that ran out and sends go to the logs; reports and restarts to the view. */
  function onHost(h: Extract<LabProcessEvent, { kind: 'host' }>['event']): void {
    if (h.kind === 'in' && h.event.kind === 'timer')
      log('in', {
        peer: null,
        message: null,
        note: `${timerName(h.event.name)} ran out`,
        background: /^fd:|heartbeat/i.test(h.event.name),
      });
    else if (h.kind === 'in' && h.event.kind === 'elect')
      log('in', { peer: null, message: null, note: 'asked to start an election' });
    else if (h.kind === 'out')
      log('out', { peer: h.to, message: h.message, background: isBackgroundType(h.message.type) });
    else if (h.kind === 'report') s.report.value = h.report;
    else if (h.kind === 'started') {
      s.restarts.value++;
      s.config.value = currentConfig();
      s.report.value = null;
    }
  }

  return (e) => {
    switch (e.kind) {
      case 'status':
        s.status.value = e.status;
        // A paused process keeps what it knows (SIGSTOP): only a crash, a departure or a reconnection clears it.
        if (e.status !== 'up' && e.status !== 'paused') s.report.value = null;
        return;
      case 'joined':
        s.id.value = e.id;
        s.config.value = e.config;
        s.error.value = null;
        opts.onJoined?.(e.id);
        return;
      case 'error':
        s.error.value = e.error.message;
        return;
      case 'deliver':
        log('in', {
          peer: e.from,
          message: e.message,
          background: isBackgroundType(e.message.type),
        });
        return;
      case 'moved':
        return followMoved(e.url);
      case 'answer':
        s.answer.value = { step: e.step, value: e.value, error: e.error?.message ?? null };
        return;
      case 'play':
        s.play.value = e.play;
        opts.onPlay?.(e.play);
        return;
      case 'host':
        return onHost(e.event);
    }
  };
}

export type LabProcessView = ReturnType<typeof useLabProcess>;

/**
 * The inbox and the outbox, newest last, published at most every PUBLISH_MS: entries collect in
 * plain arrays, so the algorithm's pace never waits for the page to re-render.
 */
function useMessageLogs(t0: number) {
  const inbox = shallowRef<LogEntry[]>([]);
  const outbox = shallowRef<LogEntry[]>([]);
  const pending = { in: [] as LogEntry[], out: [] as LogEntry[] };
  let counter = 0;
  let publishTimer: ReturnType<typeof setTimeout> | null = null;

  function log(box: 'in' | 'out', entry: Omit<LogEntry, 'n' | 'at'>): void {
    const list = pending[box];
    list.push({ ...entry, n: ++counter, at: performance.now() - t0 });
    // Unpublished entries (a tab in the background publishes late): cut to each kind's budget.
    if (list.length > 4 * LOG_LIMIT) pending[box] = mergeLog([], list, LOG_LIMIT).reverse();
    publishTimer ??= setTimeout(publish, PUBLISH_MS);
  }

  function publish(): void {
    publishTimer = null;
    for (const [box, target] of [
      ['in', inbox],
      ['out', outbox],
    ] as const) {
      const fresh = pending[box];
      if (!fresh.length) continue;
      pending[box] = [];
      // Heartbeats and election messages each keep their own last LOG_LIMIT (utils/message-log.ts).
      target.value = mergeLog(target.value, fresh, LOG_LIMIT);
    }
  }

  onScopeDispose(() => {
    if (publishTimer !== null) clearTimeout(publishTimer);
  });
  return { inbox, outbox, log };
}

/** Her running timers, counting down on screen ten times a second (standing still while paused). */
function useTimerCountdown(proc: LabProcess, status: Ref<LabProcessStatus>, t0: number) {
  const timers = shallowRef<(TimerView & { left: number; total: number })[]>([]);
  /** How long each armed timer was set for, keyed name@due: the countdown bar's full length. */
  const armed = new Map<string, number>();
  const tick = window.setInterval(() => {
    if (status.value === 'paused') return;
    const host = proc.host;
    if (!host?.isRunning || status.value !== 'up') {
      if (timers.value.length) timers.value = [];
      return;
    }
    const now = performance.now() - t0;
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
  onScopeDispose(() => window.clearInterval(tick));
  return timers;
}
