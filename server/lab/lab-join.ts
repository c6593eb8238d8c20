// A process joins a lab: a new holder, a resume with its token, or a person taking an id over
// from a server bot (which leaves, in the trace as any process that leaves).
import { ok, type Result } from '@shared/protocol/errors.ts';
import { PROTOCOL_VERSION, type ProcessKind } from '@shared/protocol/frames.ts';
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import { sendFrame, type Conn } from './conn.ts';
import type { Lab } from './lab.ts';
import type { ProcessEntry } from './process-table.ts';

export interface JoinRequest {
  id?: ProcessId;
  resume?: string;
  name?: string;
  kind?: ProcessKind;
  ref?: string | number;
}

export function joinProcess(lab: Lab, conn: Conn, req: JoinRequest): Result<ProcessEntry> {
  const claimed = lab.processes.claim(conn, req, lab.deps.clock.now());
  if (!claimed.ok) return claimed;
  const { entry, displaced, resumed, yielded } = claimed.value;
  if (displaced) sendFrame(displaced, { type: 'left' });
  // A server bot gave its id to a person: it leaves, in the trace as any process that leaves.
  if (yielded) {
    sendFrame(yielded, { type: 'left' });
    lab.figures.stop(entry.id);
    lab.record({ kind: 'leave', node: entry.id }, lab.clocks.tick(entry.id));
  }
  // A new holder's figures start from nothing (her name and kind: process-table.ts); a resume keeps them.
  if (!resumed) lab.figures.forget(entry.id);
  entry.name = req.name ?? entry.name;
  entry.kind = req.kind ?? entry.kind ?? 'external';
  // Wall-clock time, for people (the class roster); the lab's timeline keeps the monotonic clock.
  if (!displaced) entry.since = Date.now();
  sendFrame(conn, {
    type: 'joined',
    protocol: PROTOCOL_VERSION,
    lab: lab.name,
    id: entry.id,
    resume: entry.resume!,
    config: lab.processConfig(),
    status: entry.crashed ? 'crashed' : 'up',
    ...(entry.paused ? { paused: true as const } : {}),
    ...(lab.config.play ? { play: lab.config.play } : {}),
    ...(req.ref !== undefined ? { ref: req.ref } : {}),
  });
  if (!displaced) lab.record({ kind: 'join', node: entry.id }, lab.clocks.tick(entry.id));
  return ok(entry);
}
