// The observer's model of a lab, built from the relay's snapshot and its trace: who is up, what
// each process reports, the partition, the current election. The events are folded by the same
// fold as replay's (@shared/analysis/lab-fold.ts); this adds what only the live view needs (names
// and kinds from snapshots, the message rate, the election tracker, the findings). Plain
// objects, no Vue: the composable wraps it and bumps one version counter per batch, so a
// thousand events cost one re-render, not a thousand.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { FabricConfig, LabConfig } from '@shared/protocol/lab-config.ts';
import type { LabSnapshot, ProcessInfo } from '@shared/protocol/frames.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { createFold, foldEvent, type LabFold } from '@shared/analysis/lab-fold.ts';
import { groupOf } from '@shared/sim/network.ts';
import { ElectionTracker } from './election-tracker.ts';
import { FindingsBook } from './findings-book.ts';
import { whoDisagrees, type Agreement } from './who-disagrees.ts';
import { WorkBoard } from '@shared/analysis/work-board.ts';

export class LabModel {
  config: LabConfig | null = null;
  /** Processes, partition, pause and the count in flight: the shared fold's state. */
  private readonly lab: LabFold<ProcessInfo> = createFold<ProcessInfo>(
    (id): ProcessInfo => ({ ...absent(id), status: 'up', group: groupOf(this.lab.partition, id) }),
    { flights: false },
  );
  /** Relay ms of the latest thing seen. */
  now = 0;
  /** Events the relay left out of its batches (it samples under load). */
  skipped = 0;
  readonly seenTypes = new Set<string>();
  readonly tracker = new ElectionTracker();
  /** The live checker's findings and split brain (trace events, corrected by the relay's summary). */
  readonly findings = new FindingsBook();
  /** The work schedule's tasks and results, from the trace's WORK_* messages (the Work panel). */
  readonly work = new WorkBoard();
  /** A process joined that the snapshot did not know: ask for a new one (name and kind). */
  needsSnapshot = false;
  private agreementCache: Agreement | null = null;
  /** Sends per relay-time bucket of 250 ms, for the message rate. */
  private buckets: { t: number; n: number }[] = [];
  /** Wall-clock ms at relay time 0, from the last snapshot: dates the joins and leaves of the trace. */
  private wallAtZero: number | null = null;

  /** `receivedAt`: wall-clock ms when the snapshot arrived. */
  applySnapshot(s: LabSnapshot, receivedAt = Date.now()): void {
    this.wallAtZero = receivedAt - s.now;
    const clockRestarted = this.config !== null && s.now < this.now - 1000;
    const restarted =
      clockRestarted || (this.config !== null && this.config.algorithm !== s.config.algorithm);
    this.config = s.config;
    if (restarted) this.work.reset();
    this.work.setWorkload(s.config.workload);
    this.lab.processes.clear();
    for (const p of s.processes) this.lab.processes.set(p.id, { ...p });
    this.lab.partition = s.partition;
    this.lab.paused = s.paused;
    this.lab.inFlight = s.inFlight;
    // A reset restarts the relay's timeline at 0.
    this.now = restarted ? s.now : Math.max(this.now, s.now);
    if (restarted) {
      this.tracker.reset();
      if (clockRestarted) this.findings.reset();
      this.buckets = [];
    }
    this.needsSnapshot = false;
    this.agreementCache = null;
  }

  applyFabric(f: FabricConfig): void {
    if (this.config) this.config = { ...this.config, fabric: f };
  }

  applyEvents(events: readonly TraceEvent[], skipped = 0): void {
    this.skipped += skipped;
    const settled = () => this.agreement().settled;
    for (const e of events) {
      this.now = Math.max(this.now, e.t);
      this.apply(e);
      this.tracker.observe(e, settled);
    }
    this.tracker.check(this.agreement().settled);
    this.tracker.noteSampled(skipped, this.now);
  }

  get processes(): ReadonlyMap<ProcessId, ProcessInfo> {
    return this.lab.processes;
  }

  get partition(): ProcessId[][] | null {
    return this.lab.partition;
  }

  get paused(): boolean {
    return this.lab.paused;
  }

  get inFlight(): number {
    return this.lab.inFlight;
  }

  agreement(): Agreement {
    if (!this.agreementCache) this.agreementCache = whoDisagrees(this.lab.processes.values());
    return this.agreementCache;
  }

  /** Processes in the lab's id order, including ids nobody has claimed yet. */
  list(): ProcessInfo[] {
    const ids = this.config?.ids ?? [...this.lab.processes.keys()];
    return ids.map((id) => this.lab.processes.get(id) ?? absent(id));
  }

  /** Messages per second over the last second of relay time. */
  rate(): number {
    const from = this.now - 1000;
    let n = 0;
    for (const b of this.buckets) if (b.t > from) n += b.n;
    return n;
  }

  private apply(e: TraceEvent): void {
    if (e.kind === 'join') {
      const known = this.lab.processes.get(e.node);
      if (!known || known.kind === null) this.needsSnapshot = true;
    }
    this.work.observe(e);
    const change = foldEvent(this.lab, e);
    switch (change) {
      case 'messages':
        if (e.kind === 'send' || e.kind === 'duplicate') {
          this.seenTypes.add(e.type);
          this.count(e.t);
        }
        return;
      case 'process':
        // Who left holds no connection: its kind and transport are unknown until it joins again.
        if (e.kind === 'leave')
          Object.assign(this.lab.processes.get(e.node)!, { kind: null, transport: null });
        if ((e.kind === 'join' || e.kind === 'leave') && this.wallAtZero !== null)
          this.lab.processes.get(e.node)!.since = this.wallAtZero + e.t;
        break;
      case 'partition':
        for (const p of this.lab.processes.values()) p.group = groupOf(this.lab.partition, p.id);
        break;
      case 'control':
        if (e.kind !== 'control') return;
        if (e.action === 'reset' || e.action === 'reconfigure' || e.action === 'restart-job') {
          this.tracker.reset();
          this.seenTypes.clear();
          if (e.action === 'reset') {
            this.findings.reset();
            // The relay's clock starts again from this event.
            this.now = e.t;
            this.buckets = [];
          }
        }
        if (e.action !== 'pause' && e.action !== 'resume') this.needsSnapshot = true;
        break;
      case 'finding':
        if (e.kind === 'finding') this.findings.applyFinding(e.finding);
        return;
      default:
        return;
    }
    this.agreementCache = null;
  }

  private count(t: number): void {
    const bucket = Math.floor(t / 250) * 250;
    const last = this.buckets[this.buckets.length - 1];
    if (last && last.t === bucket) last.n++;
    else {
      this.buckets.push({ t: bucket, n: 1 });
      if (this.buckets.length > 16) this.buckets.splice(0, this.buckets.length - 8);
    }
  }
}

export function absent(id: ProcessId): ProcessInfo {
  return {
    id,
    name: null,
    status: 'absent',
    kind: null,
    transport: null,
    report: null,
    group: null,
  };
}
