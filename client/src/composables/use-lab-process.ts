// The student's tab as a process: a LabProcess (shared/lab-client/lab-client.ts) joins the lab over
// socket.io and runs the lab's algorithm with real timers; this wraps it in refs for the process
// view (status, report, timers, inbox, outbox). A crash from the relay stops the algorithm and
// drops its state; a recovery or a restart starts it from scratch. The resume token is kept in
// sessionStorage by a thin wrapper around the channel, so reloading the tab reclaims the same id.
import { markRaw, onScopeDispose, ref, shallowRef } from 'vue';
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

export function useLabProcess(opts: {
  lab: string;
  id: ProcessId | null;
  name: string;
  onJoined?: (id: ProcessId) => void;
  /** The lab's play settings, at once (on join this runs before the process starts, so hand mode can take over first). */
  onPlay?: (play: Play) => void;
  channel?: ChannelFactory;
}) {
  const status = ref<LabProcessStatus>('connecting');
  const error = ref<string | null>(null);
  const id = ref<ProcessId | null>(opts.id);
  const config = shallowRef<ProcessConfig | null>(null);
  const report = shallowRef<Report | null>(null);
  const timers = shallowRef<(TimerView & { left: number; total: number })[]>([]);
  const inbox = shallowRef<LogEntry[]>([]);
  const outbox = shallowRef<LogEntry[]>([]);
  const restarts = ref(0);
  /** Her last lesson answer's fate: stored (step, value) or refused (error). */
  const answer = shallowRef<{ step: number; value: number | null; error: string | null } | null>(
    null,
  );
  /** The lab's play settings (hand mode for students, hints), told on join and live. */
  const play = shallowRef<Play>(DEFAULT_PLAY);
  /** How long each armed timer was set for, keyed name@due: the countdown bar's full length. */
  const armed = new Map<string, number>();
  const t0 = performance.now();
  let counter = 0;
  // Newest last, plain arrays: the algorithm's pace never waits for the page to re-render.
  const pending = { in: [] as LogEntry[], out: [] as LogEntry[] };
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

  function onEvent(e: LabProcessEvent): void {
    switch (e.kind) {
      case 'status':
        status.value = e.status;
        // A paused process keeps what it knows (SIGSTOP): only a crash, a departure or a reconnection clears it.
        if (e.status !== 'up' && e.status !== 'paused') report.value = null;
        return;
      case 'joined':
        id.value = e.id;
        config.value = e.config;
        error.value = null;
        opts.onJoined?.(e.id);
        return;
      case 'error':
        error.value = e.error.message;
        return;
      case 'deliver':
        log('in', {
          peer: e.from,
          message: e.message,
          background: isBackgroundType(e.message.type),
        });
        return;
      case 'moved':
        followMoved(e.url);
        return;
      case 'answer':
        answer.value = { step: e.step, value: e.value, error: e.error?.message ?? null };
        return;
      case 'play':
        play.value = e.play;
        opts.onPlay?.(e.play);
        return;
      case 'host': {
        const h = e.event;
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
          log('out', {
            peer: h.to,
            message: h.message,
            background: isBackgroundType(h.message.type),
          });
        else if (h.kind === 'report') report.value = h.report;
        else if (h.kind === 'started') {
          restarts.value++;
          config.value = proc.config;
          report.value = null;
        }
        return;
      }
    }
  }

  const proc = markRaw(
    new LabProcess({
      channel: opts.channel ?? rememberingChannel(opts.lab),
      lab: opts.lab,
      ...(opts.id !== null ? { id: opts.id } : {}),
      ...(opts.name ? { name: opts.name } : {}),
      kind: 'human',
      onEvent,
    }),
  );
  // A refusal (id taken, no such lab) arrives as an error event and the status 'refused'.
  proc.start().catch(() => {});

  // Timers count down on screen ten times a second.
  const tick = window.setInterval(() => {
    // Paused: the timers stand still, and so does their countdown on screen.
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

  function leave(): void {
    if (id.value !== null) sessionStorage.removeItem(resumeKey(opts.lab, id.value));
    proc.stop();
    status.value = 'left';
  }

  onScopeDispose(() => {
    window.clearInterval(tick);
    if (publishTimer !== null) clearTimeout(publishTimer);
    // Closing the tab (or navigating away) drops the connection without leaving: a reload
    // within the relay's grace period resumes the same id.
    proc.disconnect();
  });

  useClusterFailover(status, (s) => s === 'connecting');
  return {
    status,
    error,
    id,
    config,
    report,
    timers,
    inbox,
    outbox,
    restarts,
    play,
    answer,
    leave,
    process: proc,
  };
}

export type LabProcessView = ReturnType<typeof useLabProcess>;
