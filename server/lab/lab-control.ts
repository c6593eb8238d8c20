// The instructor's controls over one lab: crash, recover, pause and resume an id, ask one to elect, partition
// the ids, change the fabric, pause and release held messages by hand, reset, and reconfigure. Each control is
// journaled, and the processes concerned are told with the frames of shared/protocol/frames.ts.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import { fail, ok, type Result } from '@shared/protocol/errors.ts';
import type {
  FabricConfig,
  FabricPatch,
  LabConfig,
  StepRequest,
  UpdateLab,
} from '@shared/protocol/lab-config.ts';
import type {
  InFlightInfo,
  ProcessInfo,
  ServerFrame,
  StepResult,
} from '@shared/protocol/frames.ts';
import { sendFrame } from './conn.ts';
import type { Lab } from './lab.ts';
import { checkPartition, mergeFabric, updatedLabConfig } from './lab-settings.ts';
import type { ProcessEntry } from './process-table.ts';

function entryOf(lab: Lab, id: ProcessId): Result<ProcessEntry> {
  const e = lab.processes.get(id);
  return e ? ok(e) : fail('UNKNOWN_PROCESS');
}

/** The process gets nothing more, its sends are dropped, and it is told to stop. */
export function crash(lab: Lab, id: ProcessId): Result<ProcessInfo> {
  const r = entryOf(lab, id);
  if (!r.ok) return r;
  const e = r.value;
  if (!e.crashed) {
    e.report = null;
    // A crash ends a pause: what was waiting for it is lost with it.
    lab.setProcessState(e, { crashed: true, paused: false });
    lab.figures.stop(id);
    lab.record({ kind: 'crash', node: id }, lab.clocks.tick(id));
    for (const h of lab.pausedHolds.release(id))
      lab.drop(h.msg, h.from, h.to, h.type, 'receiver-crashed');
    lab.stateChanged();
    if (e.conn) sendFrame(e.conn, { type: 'crashed' });
  }
  return ok(lab.info(e));
}

/**
 * SIGSTOP: the process gets nothing (what comes due for it waits in its own queue, within the
 * lab's held caps), may send nothing (PROCESS_PAUSED), and is told to freeze its timers.
 */
export function pauseProcess(lab: Lab, id: ProcessId): Result<ProcessInfo> {
  const r = entryOf(lab, id);
  if (!r.ok) return r;
  const e = r.value;
  if (e.crashed) return fail('PROCESS_NOT_UP', { message: 'A crashed process cannot be paused' });
  if (!e.paused) {
    lab.setProcessState(e, { paused: true });
    lab.record({ kind: 'pause', node: id }, lab.clocks.tick(id));
    lab.stateChanged();
    if (e.conn) sendFrame(e.conn, { type: 'paused' });
  }
  return ok(lab.info(e));
}

/** SIGCONT: the process is told first, then gets what waited for it, in the order it came due. */
export function resumeProcess(lab: Lab, id: ProcessId): Result<ProcessInfo> {
  const r = entryOf(lab, id);
  if (!r.ok) return r;
  const e = r.value;
  if (e.paused) {
    lab.setProcessState(e, { paused: false });
    lab.record({ kind: 'resume', node: id }, lab.clocks.tick(id));
    lab.stateChanged();
    if (e.conn) sendFrame(e.conn, { type: 'resumed' });
    for (const h of lab.pausedHolds.release(id)) lab.deliver(h);
  }
  return ok(lab.info(e));
}

/** The process restarts its algorithm from scratch (and so holds an election, as the documents require). */
export function recover(lab: Lab, id: ProcessId): Result<ProcessInfo> {
  const r = entryOf(lab, id);
  if (!r.ok) return r;
  const e = r.value;
  if (e.crashed) {
    lab.setProcessState(e, { crashed: false });
    lab.record({ kind: 'recover', node: id }, lab.clocks.tick(id));
    lab.stateChanged();
    if (e.conn) sendFrame(e.conn, { type: 'recovered', config: lab.processConfig() });
    // Her tab's runner starts afresh on `recovered`: so does the relay's audit of her hand.
    if (e.conn && e.mode === 'hand') lab.figures.start(id);
  }
  return ok(lab.info(e));
}

export function elect(lab: Lab, id: ProcessId): Result<ProcessInfo> {
  const r = entryOf(lab, id);
  if (!r.ok) return r;
  const e = r.value;
  if (!e.conn || e.crashed || e.paused) return fail('PROCESS_NOT_UP');
  lab.record({ kind: 'elect', node: id }, lab.clocks.tick(id));
  sendFrame(e.conn, { type: 'elect' });
  lab.figures.elect(id);
  return ok(lab.info(e));
}

/** `null` heals. Messages already in flight across the cut are dropped when they come due. */
export function partition(lab: Lab, groups: ProcessId[][] | null): Result<ProcessId[][] | null> {
  let checked: ProcessId[][] | null = null;
  if (groups) {
    const r = checkPartition(groups, lab.config.ids);
    if (!r.ok) return r;
    checked = r.value;
  }
  lab.fabric.setPartition(checked);
  lab.record({ kind: 'partition', groups: checked });
  lab.stateChanged();
  return ok(checked);
}

/** A new time scale changes the processes' timeouts too, so they restart with the scaled timing. */
export function setFabric(lab: Lab, patch: FabricPatch): FabricConfig {
  const before = lab.config.fabric;
  const fabric = mergeFabric(before, patch);
  const restart = fabric.timeScale !== before.timeScale;
  lab.applyConfig({ ...lab.config, fabric });
  lab.record({ kind: 'control', action: 'fabric', ...(restart ? { restart: true } : {}) });
  lab.observers.broadcast(
    JSON.stringify({ type: 'fabric', lab: lab.name, fabric } satisfies ServerFrame),
  );
  if (restart) restartAll(lab);
  return fabric;
}

export function pause(lab: Lab): void {
  if (lab.scheduler.paused) return;
  lab.scheduler.pause();
  lab.record({ kind: 'control', action: 'pause' });
  lab.stateChanged();
}

export function resume(lab: Lab): void {
  if (!lab.scheduler.paused) return;
  lab.scheduler.resume();
  lab.record({ kind: 'control', action: 'resume' });
  lab.stateChanged();
}

/**
 * While paused: release one held message, delivered or dropped (by id, or the next one due). The
 * REST route keeps its public name, POST /labs/:lab/step; in code a step is an algorithm's.
 */
export function release(lab: Lab, req: StepRequest): Result<StepResult> {
  if (!lab.scheduler.paused) return fail('NOT_PAUSED');
  let target = req.msg;
  if (target === undefined) target = lab.scheduler.list()[0]?.msg;
  const [h] = target === undefined ? [] : lab.scheduler.take((x) => x.msg === target);
  if (!h) return fail('NO_SUCH_MESSAGE');
  const base = { msg: h.msg, from: h.from, to: h.to, type: h.type };
  if (req.action === 'drop') {
    lab.drop(h.msg, h.from, h.to, h.type, 'manual');
    return ok({ ...base, outcome: 'dropped', reason: 'manual' });
  }
  const outcome = lab.deliver(h);
  return ok(
    outcome === 'delivered' || outcome === 'held'
      ? { ...base, outcome }
      : { ...base, outcome: 'dropped', reason: outcome },
  );
}

/** Most entries one in-flight read returns, and how deep into the queue a page may start. */
export const INFLIGHT_PAGE_MAX = 1000;
export const INFLIGHT_OFFSET_MAX = 100_000;

/** A page of the held messages in due order: `offset` from the soonest, at most `limit`. */
export function inflight(lab: Lab, limit = 200, offset = 0): InFlightInfo[] {
  const now = lab.scheduler.now();
  return lab.scheduler
    .first(offset + limit)
    .slice(offset)
    .map((h) => ({
      msg: h.msg,
      from: h.from,
      to: h.to,
      type: h.type,
      message: JSON.parse(h.json) as InFlightInfo['message'],
      dueIn: Math.round((h.at - now) * 10) / 10,
      ...(h.of !== undefined ? { of: h.of } : {}),
    }));
}

/**
 * A fresh run: held messages are discarded, crashes and the partition cleared, the lab resumed,
 * the trace moved to archive/ and started again, and every connected process restarted.
 */
export function reset(lab: Lab): Promise<string | null> {
  discardInFlight(lab);
  const archived = lab.deps.store.rotate();
  lab.restartTimeline();
  lab.fabric.setPartition(null);
  lab.scheduler.resume();
  for (const e of lab.processes.list()) lab.setProcessState(e, { crashed: false });
  lab.record({ kind: 'control', action: 'reset' });
  lab.stateChanged();
  restartAll(lab);
  return archived;
}

/** New algorithm settings: every connected, live process restarts with them. */
export function update(lab: Lab, body: UpdateLab): Result<LabConfig> {
  const next = updatedLabConfig(lab.config, body);
  if (!next.ok) return next;
  discardInFlight(lab);
  const removed = lab.applyConfig(next.value);
  for (const e of removed) {
    lab.figures.forget(e.id);
    if (e.conn) sendFrame(e.conn, { type: 'left' });
  }
  lab.record({ kind: 'control', action: 'reconfigure' });
  lab.stateChanged();
  restartAll(lab);
  return ok(lab.config);
}

/**
 * The work schedule's job starts again (a lesson step's run starts from a fresh task list, as
 * the simulator's does): held messages are dropped, and every live process restarts with the
 * lab's settings, agreeing on the coordinator they all agree on now (no election: the
 * simulator's starting point), or electing when they do not agree.
 */
export function restartJob(lab: Lab): Result<{ coordinator: ProcessId | null }> {
  if (!lab.config.workload)
    return fail('NO_WORKLOAD', { message: 'This lab runs no work schedule (PUT its workload)' });
  const coordinator = agreedCoordinator(lab);
  discardInFlight(lab);
  lab.record({ kind: 'control', action: 'restart-job', restart: true });
  lab.stateChanged();
  restartAll(lab, coordinator ?? undefined);
  return ok({ coordinator });
}

/** The coordinator every live, connected process names, naming itself too; else null. */
function agreedCoordinator(lab: Lab): ProcessId | null {
  let c: ProcessId | null = null;
  for (const e of lab.processes.list()) {
    if (!e.conn || e.crashed) continue;
    const r = e.report?.coordinator ?? null;
    if (r === null || (c !== null && r !== c)) return null;
    c = r;
  }
  const self = c === null ? null : lab.processes.get(c);
  return self?.conn && !self.crashed && self.report?.coordinator === c ? c : null;
}

/** Held messages are dropped and pauses end (the processes restart; the fold clears them too). */
function discardInFlight(lab: Lab): void {
  for (const h of [...lab.scheduler.drain(), ...lab.pausedHolds.drain()])
    lab.drop(h.msg, h.from, h.to, h.type, 'reset');
  for (const e of lab.processes.list()) lab.setProcessState(e, { paused: false });
}

function restartAll(lab: Lab, coordinator?: ProcessId): void {
  // The same frame for everyone: encode it once (it carries every id of the lab).
  const config = lab.processConfig();
  const text = JSON.stringify({
    type: 'restart',
    config: coordinator === undefined ? config : { ...config, coordinator },
  } satisfies ServerFrame);
  for (const e of lab.processes.list()) {
    if (!e.conn || e.crashed) continue;
    e.report = null;
    e.conn.sendText(text);
    if (e.mode === 'hand') lab.figures.start(e.id);
  }
  lab.observers.broadcast(
    JSON.stringify({
      type: 'snapshot',
      lab: lab.name,
      snapshot: lab.snapshot(),
    } satisfies ServerFrame),
  );
}
