// The relay's last line of defence: an exception nothing caught (a bug in the relay, or in a
// library under it) is logged and counted, and the relay keeps serving its other labs and
// connections instead of exiting. Hosts contain algorithm exceptions before this (ProcessHost);
// this is for what nobody foresaw. Installed by the entry point only (server/main.ts).
import type { EventEmitter } from 'node:events';
import type { Counters } from './lab/counters.ts';

export function installLastLine(
  target: EventEmitter,
  counters: Counters,
  log: (...args: unknown[]) => void,
): void {
  let lastLog = 0;
  const report = (kind: 'uncaught' | 'unhandled-rejection') => (err: unknown) => {
    counters.inc(kind);
    // One stack a second at most: a fault in a hot path must not flood the log.
    const now = Date.now();
    if (now - lastLog < 1000) return;
    lastLog = now;
    log(
      `[relay] ${kind === 'uncaught' ? 'uncaught exception' : 'unhandled rejection'}, still serving (see ${kind} in /api/health):`,
      err,
    );
  };
  target.on('uncaughtException', report('uncaught'));
  target.on('unhandledRejection', report('unhandled-rejection'));
}
