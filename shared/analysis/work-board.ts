// The Work panel's figures (issue 27; 003's work schedule), folded from what the dashboard
// already receives: the relay's trace of WORK_* messages, crashes and recoveries, and the
// processes' reports (their `detail.work` role and `token`, shown as their claims). The
// bookkeeping of the figures is the simulator audit's own (shared/work/task-tally.ts); this only
// says which trace event feeds it (the shapes it returns: work-view.ts). Plain object, no Vue;
// state is bounded by the job's tasks, the lab's ids and the messages in flight.
import type { ProcessId, Report } from '../algorithms/algorithm.ts';
import type { Workload } from '../protocol/lab-config.ts';
import type { TraceEvent } from '../protocol/trace.ts';
import { answerKey, checks, epochOf, jobOf } from '../work/work-job.ts';
import { isWorkType } from '../work/work-messages.ts';
import { TaskTally } from '../work/task-tally.ts';
import { claimsOf, HOLDER_ROWS, type StaleDelivery, type WorkView } from './work-view.ts';

/** Work messages sent and not yet delivered or dropped, by message id (oldest forgotten past this). */
const MAX_PENDING = 20_000;
type Sent = { from: ProcessId; to: ProcessId; m: Record<string, unknown> };

export class WorkBoard {
  private tally = new TaskTally();
  private pending = new Map<number, Sent>();
  private readonly down = new Set<ProcessId>();
  /** Tasks whose result each process holds (computed, or received as coordinator). */
  private held = new Map<ProcessId, Set<number>>();
  /** Tasks each process keeps as analyser. */
  private kept = new Map<ProcessId, Set<number>>();
  /** Tasks each live analyser that crashed had kept (static sharing's loss). */
  private keptByCrashed = new Set<number>();
  /** Orders each worker holds, in order: the first is the one it runs. */
  private orders = new Map<ProcessId, number[]>();
  /** The newest token each process has seen (as the layer fences). */
  private newest = new Map<ProcessId, number>();
  private lastOrderedTo = new Map<number, ProcessId>();
  /** Where each task's latest result was sent (static sharing: the analyser its order named). */
  private resultTo = new Map<number, ProcessId>();
  private office: { token: number; by: ProcessId } | null = null;
  private analyser: ProcessId | null = null;
  private since: number | null = null;
  private fromStart = false;
  private sawWork = false;
  private key: readonly number[] = [];
  /** Since a reconfigure, until the snapshot with its workload: the events to read then (bounded). */
  private awaiting: TraceEvent[] | null = null;
  /** Events observed live, for catchUp (bounded: past it, the page keeps counting from its opening). */
  private log: TraceEvent[] | null = [];
  private replaying = false;
  private keyFor = '';
  /** Told of every stale order delivered, fencing on or off (the live checker waits to see it obeyed). */
  onStale: ((d: StaleDelivery) => void) | null = null;

  constructor(private workload: Workload | null = null) {
    this.setWorkload(workload);
  }

  /**
   * The lab's workload, from a snapshot. After a reconfigure the relay's next snapshot brings the
   * new one; the events in between (the new job's first orders) were held and are read now.
   */
  setWorkload(w: Workload | null | undefined): void {
    const sig = w ? JSON.stringify(w) : '';
    const held = this.awaiting;
    this.awaiting = null;
    if (sig !== this.keyFor || held) {
      this.workload = w ?? null;
      this.keyFor = sig;
      this.key = w ? answerKey(jobOf(w)) : [];
      this.reset();
    }
    for (const e of held ?? []) this.observe(e);
  }

  /**
   * A page opened mid-job: fold the relay's trace from the start (GET /api/labs/:lab/trace), the
   * events before the first seen live, then those seen live again. False when it cannot (no
   * workload, or too many live events were seen to keep).
   */
  catchUp(history: readonly TraceEvent[]): boolean {
    if (!this.workload || !this.log || this.awaiting) return false;
    const live = this.log;
    const first = live[0]?.seq ?? Infinity;
    this.reset();
    this.replaying = true;
    try {
      for (const e of history) if (e.seq < first) this.observe(e);
      for (const e of live) this.observe(e);
    } finally {
      this.replaying = false;
    }
    return true;
  }

  reset(): void {
    this.tally = new TaskTally();
    this.pending.clear();
    this.down.clear();
    this.held.clear();
    this.kept.clear();
    this.keptByCrashed.clear();
    this.orders.clear();
    this.newest.clear();
    this.lastOrderedTo.clear();
    this.resultTo.clear();
    this.office = null;
    this.analyser = null;
    this.since = null;
    this.fromStart = false;
    this.sawWork = false;
  }

  observe(e: TraceEvent): void {
    if (!this.replaying && this.log) {
      if (this.log.length < MAX_PENDING) this.log.push(e);
      else this.log = null;
    }
    if (e.kind === 'control' && e.action === 'reconfigure' && this.replaying) {
      this.reset(); // the workload in force is the latest, set after it
      return;
    }
    if (e.kind === 'control' && e.action === 'reconfigure') {
      this.reset();
      this.awaiting = [];
      return;
    }
    if (this.awaiting) {
      if (this.awaiting.length < MAX_PENDING) this.awaiting.push(e);
      return;
    }
    if (!this.workload) return;
    switch (e.kind) {
      case 'send':
        if (isWorkType(e.type))
          this.sent(e.msg, e.from, e.to, e.message as Record<string, unknown>, e.t);
        return;
      case 'deliver': {
        const s = this.pending.get(e.msg);
        if (!s) return;
        this.pending.delete(e.msg);
        this.delivered(s, e.t);
        return;
      }
      case 'drop':
        this.pending.delete(e.msg);
        return;
      case 'crash':
      case 'leave':
        this.lose(e.node);
        this.down.add(e.node);
        return;
      case 'fault':
        this.lose(e.node); // restarted from scratch by its host: a crash and a recovery in one
        return;
      case 'recover':
      case 'join':
        this.down.delete(e.node);
        return;
      case 'control':
        // A restarted job: every process starts it afresh (the workload is the same).
        if (e.action === 'reset' || e.action === 'restart-job') this.reset();
        return;
      default:
    }
  }

  private sent(
    msg: number,
    from: ProcessId,
    to: ProcessId,
    m: Record<string, unknown>,
    t: number,
  ): void {
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    this.pending.set(msg, { from, to, m });
    const token = num(m['token']);
    const task = num(m['task']);
    if (!this.sawWork) {
      // The job's first order: the first office's "what do you hold?", or static sharing's split from task 0.
      this.sawWork = true;
      this.fromStart =
        this.workload!.sharing === 'static'
          ? m['type'] === 'WORK_ASSIGN' && task === 0
          : m['type'] === 'WORK_HOLD';
    }
    switch (m['type']) {
      case 'WORK_HOLD':
      case 'WORK_ASSIGN':
      case 'WORK_STORE':
        this.since ??= t;
        this.see(from, token);
        if (!this.office || token > this.office.token) this.office = { token, by: from };
        if (m['type'] === 'WORK_STORE' && token >= this.office.token) this.analyser = to;
        if (m['type'] === 'WORK_ASSIGN') {
          const before = this.lastOrderedTo.get(task);
          // Ordered before, not kept yet, and that order is gone: its machine crashed (even if it is back) or answered empty.
          if (
            before !== undefined &&
            !this.orders.get(before)?.includes(task) &&
            !this.isKeptLive(task)
          )
            this.tally.add('reassigned');
          this.lastOrderedTo.set(task, to);
        }
        return;
      case 'WORK_RESULT': {
        if (!checks(this.key, task, num(m['value']))) {
          this.tally.add('wrong');
          return;
        }
        const mine = this.set(this.held, from);
        // A result for a task it did not hold yet: it computed it (a resend after a rebuild is not a computation).
        if (!mine.has(task)) {
          this.tally.computed(task);
          mine.add(task);
        }
        this.resultTo.set(task, to);
        const o = this.orders.get(from);
        if (o)
          this.orders.set(
            from,
            o.filter((x) => x !== task),
          );
        return;
      }
      case 'WORK_REFUSED':
        this.tally.add('staleRefused');
        return;
      default:
    }
  }

  private delivered(s: Sent, t: number): void {
    const { to, m } = s;
    if (this.down.has(to)) return;
    const token = num(m['token']);
    const task = num(m['task']);
    const type = m['type'];
    // Static sharing has no office: a result goes straight to the analyser, which fences and keeps it.
    const stores =
      type === 'WORK_STORE' || (type === 'WORK_RESULT' && this.workload!.sharing === 'static');
    const order = stores || type === 'WORK_ASSIGN' || type === 'WORK_HOLD';
    const fencing = this.workload!.fencing;
    if (order) {
      const newest = this.newest.get(to) ?? 0;
      const stale = token < newest;
      if (stale) this.onStale?.({ to, from: s.from, type: String(type), token, newest, task, t });
      if (stale && fencing) return; // refused: its WORK_REFUSED is counted when sent
      if (stale) this.tally.add('staleAccepted');
      this.see(to, token);
    } else if (fencing) this.see(to, type === 'WORK_REFUSED' ? num(m['newest']) : token);
    switch (type) {
      case 'WORK_ASSIGN': {
        if (this.held.get(to)?.has(task)) return; // answered from what it holds
        const o = this.orders.get(to) ?? [];
        if (!o.includes(task)) this.orders.set(to, [...o, task]);
        return;
      }
      case 'WORK_STORE':
      case 'WORK_RESULT':
        if (!checks(this.key, task, num(m['value']))) return;
        if (stores) {
          this.set(this.kept, to).add(task);
          this.tally.stored(task, t);
          return;
        }
        this.set(this.held, to).add(task);
        return;
      case 'WORK_HELD':
        if (Array.isArray(m['held']))
          for (const p of m['held'] as unknown[])
            if (Array.isArray(p) && checks(this.key, num(p[0]), num(p[1])))
              this.set(this.held, to).add(num(p[0]));
        return;
      default:
    }
  }

  /** A crash or a leave: the process's results, orders and tokens go with it. */
  private lose(id: ProcessId): void {
    for (const t of this.kept.get(id) ?? []) this.keptByCrashed.add(t);
    this.held.delete(id);
    this.kept.delete(id);
    this.orders.delete(id);
    this.newest.delete(id);
  }

  private see(id: ProcessId, token: number): void {
    if (token > (this.newest.get(id) ?? 0)) this.newest.set(id, token);
  }

  private set(map: Map<ProcessId, Set<number>>, id: ProcessId): Set<number> {
    let s = map.get(id);
    if (!s) map.set(id, (s = new Set()));
    return s;
  }

  private isKeptLive(task: number): boolean {
    for (const [id, ts] of this.kept) if (!this.down.has(id) && ts.has(task)) return true;
    return false;
  }

  /** Tasks whose result some live process holds in `map`. */
  private live(map: Map<ProcessId, Set<number>>): Set<number> {
    const out = new Set<number>();
    for (const [id, ts] of map) if (!this.down.has(id)) for (const t of ts) out.add(t);
    return out;
  }

  private keptLive(): Set<number> {
    return this.live(this.kept);
  }

  /** Tasks whose result is on its way to a live process (a result, a store, an answer to "what do you hold?"). */
  private flying(): Set<number> {
    const out = new Set<number>();
    for (const { to, m } of this.pending.values()) {
      if (this.down.has(to)) continue;
      if (m['type'] === 'WORK_RESULT' || m['type'] === 'WORK_STORE') out.add(num(m['task']));
      else if (m['type'] === 'WORK_HELD' && Array.isArray(m['held']))
        for (const p of m['held'] as unknown[]) if (Array.isArray(p)) out.add(num(p[0]));
    }
    return out;
  }

  /**
   * Whether `t`'s result is lost now. Dynamic sharing: computed, and no live process holds it or
   * is being sent it (the next office hands it out again). Static sharing, which never reassigns
   * nor asks: kept by an analyser that crashed, sent to one that is down, or ordered to a machine
   * that is down (003's problems 3 and 4).
   */
  private isLost(
    t: number,
    kept: ReadonlySet<number>,
    held: ReadonlySet<number>,
    flying: ReadonlySet<number>,
  ): boolean {
    if (kept.has(t)) return false;
    const downed = (id: ProcessId | undefined) => id !== undefined && this.down.has(id);
    if (this.workload?.sharing === 'static')
      return (
        this.keptByCrashed.has(t) ||
        (this.tally.wasComputed(t)
          ? downed(this.resultTo.get(t))
          : downed(this.lastOrderedTo.get(t)))
      );
    return this.tally.wasComputed(t) && !held.has(t) && !flying.has(t);
  }

  /** The tasks lost now, ascending (one pass over the job: call it on a crash, not per message). */
  lostTasks(): number[] {
    const w = this.workload;
    if (!w) return [];
    const kept = this.keptLive();
    const held = this.live(this.held);
    const flying = this.flying();
    const out: number[] = [];
    for (let t = 0; t < w.tasks; t++) if (this.isLost(t, kept, held, flying)) out.push(t);
    return out;
  }

  /** Whether one task is lost now, under static sharing (a send to a machine that is down). */
  staticLost(t: number): boolean {
    if (this.workload?.sharing !== 'static' || this.isKeptLive(t)) return false;
    return this.isLost(t, new Set(), new Set(), new Set());
  }

  /** The panel's figures at relay time `now`; `reports`: the processes' latest reports (claims). */
  view(
    now: number,
    reports: Iterable<{ id: ProcessId; status: string; report: Report | null }> = [],
  ): WorkView | null {
    const w = this.workload;
    if (!w) return null;
    const kept = this.keptLive();
    const f = this.tally.figures(w.tasks, kept, this.since ?? 0);
    const running: WorkView['running'] = [];
    const busy = new Set<number>();
    for (const [id, o] of this.orders) {
      if (this.down.has(id) || o.length === 0) continue;
      running.push({ id, task: o[0]!, waiting: o.length - 1 });
      if (!kept.has(o[0]!)) busy.add(o[0]!);
    }
    running.sort((a, b) => a.id - b.id);
    const holdersOf = (t: number) => {
      const k: ProcessId[] = [];
      const h: ProcessId[] = [];
      for (const [id, ts] of this.kept) if (!this.down.has(id) && ts.has(t)) k.push(id);
      for (const [id, ts] of this.held) if (!this.down.has(id) && ts.has(t)) h.push(id);
      return { kept: k.sort((a, b) => a - b), held: h.sort((a, b) => a - b) };
    };
    let lostNow = 0;
    const held = this.live(this.held);
    const flying = this.flying();
    const holders: WorkView['holders'] = [];
    for (let t = 0; t < w.tasks; t++) {
      const lost = this.isLost(t, kept, held, flying);
      if (lost) lostNow++;
      if (t < HOLDER_ROWS)
        holders.push({
          task: t,
          state: kept.has(t) ? 'done' : busy.has(t) ? 'running' : lost ? 'lost' : 'queued',
          ...holdersOf(t),
        });
    }
    const span =
      f.makespanMs !== null && f.completed === w.tasks
        ? f.makespanMs
        : this.since === null
          ? null
          : now - this.since;
    return {
      ...f,
      sharing: w.sharing,
      fencing: w.fencing,
      queued: Math.max(0, w.tasks - kept.size - busy.size),
      running,
      lostNow,
      throughput: span !== null && span > 0 ? (f.completed * 1000) / span : null,
      elapsedMs: span,
      token: this.office ? { ...this.office, epoch: epochOf(this.office.token) } : null,
      analyser: this.analyser,
      claims: claimsOf(reports),
      holders,
      since: this.since,
      fromStart: this.fromStart,
    };
  }
}

const num = (x: unknown): number => (typeof x === 'number' ? x : -1);
