// What the bot CLI prints: one status line a tick and a summary at the end, from the fleet's
// status and counters (pure functions, so the CLI stays thin and the wording is tested).
import type { FleetCounters, FleetStatus } from '@shared/lab-client/bot-fleet.ts';

export interface FleetTick {
  /** Messages sent by the fleet since the previous tick, and the tick's length in seconds. */
  sentDelta: number;
  receivedDelta: number;
  seconds: number;
}

export function statusLine(s: FleetStatus, c: FleetCounters, t: FleetTick): string {
  const parts = [`joined ${s.up}/${s.total}`];
  if (s.crashed) parts.push(`crashed ${s.crashed}`);
  if (s.connecting) parts.push(`reconnecting ${s.connecting}`);
  if (s.gone) parts.push(`gone ${s.gone}`);
  parts.push(`elections ${c.episodes}${s.electing ? ` (electing now: ${s.electing})` : ''}`);
  parts.push(
    s.coordinator === null
      ? 'no coordinator'
      : `coordinator ${s.coordinator} (${s.agreeing}/${s.up} agree)`,
  );
  const rate = (n: number) => Math.round(n / Math.max(t.seconds, 1e-3));
  parts.push(`msgs/s out ${rate(t.sentDelta)} in ${rate(t.receivedDelta)}`);
  return parts.join(' | ');
}

export function summary(s: FleetStatus, c: FleetCounters, seconds: number): string {
  const types = Object.entries(c.sentByType)
    .sort((a, b) => b[1] - a[1])
    .map(([t, n]) => `${t} ${n}`)
    .join(', ');
  return [
    `ran ${s.total} processes for ${seconds.toFixed(1)} s`,
    `  elections: ${c.episodes} (a process began electing ${c.electionsStarted} times)`,
    `  coordinator at the end: ${s.coordinator ?? 'none'} (${s.agreeing} of ${s.up} up agree${s.agreed ? ', settled' : ''})`,
    `  messages: sent ${c.sent}, received ${c.received} (${Math.round(c.sent / Math.max(seconds, 1e-3))}/s sent on average)`,
    `  sent by type: ${types || 'none'}`,
    `  rejoins after a lost connection: ${c.rejoins}; errors from the relay: ${c.errors}`,
  ].join('\n');
}
