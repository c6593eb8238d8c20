// The one fold of a trace into the state of a lab: who is up, crashed or absent, what each
// process last reported, the partition, whether the lab is paused and which messages are in
// flight. The live dashboard (client/src/utils/lab-model.ts) and replay (replay.ts) both apply
// events through `foldEvent`, so a lab looks the same live and replayed. Pure, no I/O.
//
// Status rules (docs/PROTOCOL.md, "Observers and the trace"), the relay's own
// (server/lab/process-table.ts `statusOf`: crashed, else up while connected, else absent):
// - `report`: up, with that report (only live processes report).
// - `crash`: crashed, no report. `recover`: up, no report (it restarts from scratch).
// - `pause`: paused (still up, its report kept: a stopped process keeps its memory); `resume`,
//   `crash`, and a reset or reconfigure end the pause. Like a crash, a pause belongs to the id:
//   `join` and `leave` keep it.
// - `join`: up, no report; a crashed id that reconnects stays crashed.
// - `leave`: absent, no report; a crashed id that leaves stays crashed. (There is no `gone`:
//   a process that left and one that never joined are both `absent`, as in the relay's snapshot.)
// - A process first seen without a join (a simulator's processes, or a relay trace that starts
//   mid-run) was there before the trace began: up.
// - `control` `reset`: every process restarts (crashes cleared, reports gone), the partition
//   heals and the lab resumes; `reconfigure`: every process restarts; `fabric` with `restart`:
//   the time scale changed and every process restarted. Messages in flight were dropped (with
//   reason `reset`) before a reset or a reconfigure.
import type { Message, ProcessId, Report } from '../algorithms/algorithm.ts';
import type { ProcessStatus } from '../protocol/frames.ts';
import type { TraceEvent } from '../protocol/trace.ts';

/** What the fold knows of one process; consumers may keep more fields beside these. */
export interface FoldedProcess {
  id: ProcessId;
  status: ProcessStatus;
  /** The last report since the process (re)started; null before its first and after a crash. */
  report: Report | null;
  /** Paused by the instructor (SIGSTOP); absent when not. */
  paused?: true;
}

export interface FlightView {
  msg: number;
  from: ProcessId;
  to: ProcessId;
  type: string;
  sentAt: number;
  /** The message body, when the trace carries it (send events do; duplicates point at them). */
  message: Message | null;
}

export interface LabFold<P extends FoldedProcess = FoldedProcess> {
  /** Time of the last event folded. */
  t: number;
  processes: Map<ProcessId, P>;
  partition: ProcessId[][] | null;
  paused: boolean;
  /** Messages sent or duplicated and neither delivered nor dropped yet. */
  inFlight: number;
  /**
   * The same messages one by one (replay), or null where they are only counted: the live
   * dashboard, whose relay leaves message events out of its batches under load.
   */
  flights: Map<number, FlightView> | null;
  /** Deviations from the reference so far, per hand-played process (the coach's `deviation` events). */
  deviations: Map<ProcessId, number>;
  /** A process first seen (`status` up); the consumer's record may carry more fields. */
  readonly create: (id: ProcessId) => P;
}

/** What an event changed, so a consumer can update what it derives (agreement, groups, counts). */
type FoldChange =
  'none' | 'messages' | 'process' | 'partition' | 'control' | 'finding' | 'deviation';

export function createFold<P extends FoldedProcess>(
  create: (id: ProcessId) => P,
  opts: { flights: boolean },
): LabFold<P> {
  return {
    t: 0,
    processes: new Map(),
    partition: null,
    paused: false,
    inFlight: 0,
    flights: opts.flights ? new Map() : null,
    deviations: new Map(),
    create,
  };
}

/** The process's record, made (up) if this is the first event that names it. */
function foldedProcess<P extends FoldedProcess>(s: LabFold<P>, id: ProcessId): P {
  let p = s.processes.get(id);
  if (!p) {
    p = s.create(id);
    s.processes.set(id, p);
  }
  return p;
}

/** Applies one trace event. */
export function foldEvent<P extends FoldedProcess>(s: LabFold<P>, e: TraceEvent): FoldChange {
  s.t = e.t;
  switch (e.kind) {
    case 'send':
      foldedProcess(s, e.from);
      return fly(s, {
        msg: e.msg,
        from: e.from,
        to: e.to,
        type: e.type,
        sentAt: e.t,
        message: e.message,
      });
    case 'duplicate':
      return fly(s, {
        msg: e.msg,
        from: e.from,
        to: e.to,
        type: e.type,
        sentAt: e.t,
        message: s.flights?.get(e.of)?.message ?? null,
      });
    case 'deliver':
    case 'drop':
      if (s.flights) {
        s.flights.delete(e.msg);
        s.inFlight = s.flights.size;
      } else s.inFlight = Math.max(0, s.inFlight - 1);
      return 'messages';
    case 'report':
      return set(s, e.node, 'up', e.report);
    case 'crash':
      delete foldedProcess(s, e.node).paused;
      return set(s, e.node, 'crashed', null);
    case 'pause':
      foldedProcess(s, e.node).paused = true;
      return 'process';
    case 'resume':
      delete foldedProcess(s, e.node).paused;
      return 'process';
    case 'recover':
      return set(s, e.node, 'up', null);
    case 'fault':
      // The host restarted the process from scratch: up, with no beliefs until it reports again.
      return set(s, e.node, 'up', null);
    case 'join':
      return set(s, e.node, foldedProcess(s, e.node).status === 'crashed' ? 'crashed' : 'up', null);
    case 'leave':
      return set(
        s,
        e.node,
        foldedProcess(s, e.node).status === 'crashed' ? 'crashed' : 'absent',
        null,
      );
    case 'timer':
    case 'elect':
      foldedProcess(s, e.node);
      return 'none';
    case 'partition':
      s.partition = e.groups;
      return 'partition';
    case 'control':
      control(s, e.action, e.restart === true);
      return 'control';
    case 'finding':
      return 'finding';
    case 'deviation':
      s.deviations.set(e.node, (s.deviations.get(e.node) ?? 0) + 1);
      return 'deviation';
    case 'note':
    case 'owner':
      return 'none';
    default: {
      // A new event kind must be folded here (or listed above as changing nothing).
      const unhandled: never = e;
      return unhandled;
    }
  }
}

function fly<P extends FoldedProcess>(s: LabFold<P>, f: FlightView): FoldChange {
  if (s.flights) {
    s.flights.set(f.msg, f);
    s.inFlight = s.flights.size;
  } else s.inFlight++;
  return 'messages';
}

function set<P extends FoldedProcess>(
  s: LabFold<P>,
  id: ProcessId,
  status: ProcessStatus,
  report: Report | null,
): FoldChange {
  const p = foldedProcess(s, id);
  p.status = status;
  p.report = report;
  return 'process';
}

function control<P extends FoldedProcess>(
  s: LabFold<P>,
  action: Extract<TraceEvent, { kind: 'control' }>['action'],
  restart: boolean,
): void {
  if (action === 'pause') s.paused = true;
  else if (action === 'resume') s.paused = false;
  else if (action === 'reset' || action === 'reconfigure' || restart) {
    for (const p of s.processes.values()) {
      p.report = null;
      if (action === 'reset' && p.status === 'crashed') p.status = 'up';
      if (action !== 'fabric') delete p.paused;
    }
    if (action === 'fabric') return;
    s.inFlight = 0;
    s.flights?.clear();
    if (action === 'reset') {
      s.deviations.clear();
      s.partition = null;
      s.paused = false;
    }
  }
}
