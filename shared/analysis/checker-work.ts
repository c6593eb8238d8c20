// The live checker's work findings (issue 27; 003's work schedule): "result lost", "result
// counted twice" and "a stale coordinator's order accepted". The relay vouches for what it
// relayed, so each finding is derived from the work messages it carried, the crashes it caused
// and the orders it delivered (the Work panel's own fold, work-board.ts); what a process says of
// itself is named as its claim. State is bounded by the job's tasks, the lab's ids and the
// orders in flight.
import type { ProcessId } from '../algorithms/algorithm.ts';
import type { Finding } from '../protocol/finding.ts';
import type { Workload } from '../protocol/lab-config.ts';
import type { TraceEvent } from '../protocol/trace.ts';
import { WorkBoard } from './work-board.ts';
import type { StaleDelivery } from './work-view.ts';

/** Stale orders delivered and not yet answered, at most (the oldest are forgotten past it). */
const MAX_STALE = 4096;
/** Task ids a finding's text lists. */
const LISTED = 8;

export class WorkWatch {
  private readonly board: WorkBoard;
  /** Tasks already reported lost (once each per job). */
  private readonly lost = new Set<number>();
  /** Stale orders delivered, by `to:type:task:token`, waiting for `to` to answer them. */
  private readonly stale = new Map<string, StaleDelivery>();
  /** Orders each process was delivered fresh, by `task:token`: a later stale copy is not what it obeys. */
  private readonly fresh = new Map<ProcessId, Set<string>>();
  /** Assignments in flight, by message id: a fresh delivery is remembered as what its receiver obeys. */
  private readonly orders = new Map<number, { task: number; token: number }>();
  /** The event being read delivered a stale order (the board said so). */
  private staleNow = false;
  private found: Finding[] = [];

  constructor(private readonly workload: Workload) {
    this.board = new WorkBoard(workload);
    this.board.onStale = (d) => this.staleDelivered(d);
  }

  /** Feed one trace event; returns the work findings it completes. */
  observe(e: TraceEvent): Finding[] {
    this.found = [];
    const fresh = ['reset', 'reconfigure', 'restart-job'];
    if (e.kind === 'control' && fresh.includes(e.action)) {
      this.lost.clear();
      this.stale.clear();
      this.fresh.clear();
    }
    if (e.kind === 'crash' || e.kind === 'leave' || e.kind === 'fault') this.forget(e.node);
    this.staleNow = false;
    this.board.observe(e);
    // The board waits for a snapshot's workload after a reconfigure (the dashboard's case); here
    // the lab's config is the workload, and a new job starts now.
    if (e.kind === 'control' && e.action === 'reconfigure') this.board.setWorkload(this.workload);
    if (e.kind === 'deliver') this.freshOrder(e.msg, e.to);
    if (e.kind === 'crash' || e.kind === 'leave' || e.kind === 'fault') this.crashed(e.node, e.t);
    if (e.kind === 'send' && typeof e.message === 'object' && e.message !== null)
      this.sent(e.msg, e.from, e.to, e.message as Record<string, unknown>, e.t);
    return this.found;
  }

  private freshOrder(msg: number, to: ProcessId): void {
    const o = this.orders.get(msg);
    if (!o) return;
    this.orders.delete(msg);
    if (this.staleNow) return;
    let set = this.fresh.get(to);
    if (!set) this.fresh.set(to, (set = new Set()));
    if (set.size >= this.workload.tasks * 4) set.clear();
    set.add(`${o.task}:${o.token}`);
  }

  /** A process went down or restarted: what it was given, and what it may still answer, go with it. */
  private forget(node: ProcessId): void {
    this.fresh.delete(node);
    for (const [k, d] of this.stale) if (d.to === node) this.stale.delete(k);
  }

  private staleDelivered(d: StaleDelivery): void {
    this.staleNow = true;
    if (d.type !== 'WORK_ASSIGN' && d.type !== 'WORK_HOLD') return; // a store is obeyed silently
    if (d.type === 'WORK_ASSIGN' && this.fresh.get(d.to)?.has(`${d.task}:${d.token}`)) return;
    if (this.stale.size >= MAX_STALE) this.stale.delete(this.stale.keys().next().value!);
    this.stale.set(`${d.to}:${d.type}:${d.task}:${d.token}`, d);
  }

  private sent(
    msg: number,
    from: ProcessId,
    to: ProcessId,
    m: Record<string, unknown>,
    t: number,
  ): void {
    const type = m['type'];
    const task = typeof m['task'] === 'number' ? m['task'] : -1;
    const token = typeof m['token'] === 'number' ? m['token'] : -1;
    if (type === 'WORK_ASSIGN') {
      if (this.orders.size >= MAX_STALE * 4) this.orders.delete(this.orders.keys().next().value!);
      this.orders.set(msg, { task, token });
      if (this.board.staticLost(task))
        this.report([task], [to], t, `ordered to ${to}, which is down`);
      return;
    }
    if (type === 'WORK_RESULT') {
      this.obeyed(`${from}:WORK_ASSIGN:${task}:${token}`, 'the result of task ' + task, t);
      if (this.board.staticLost(task)) this.report([task], [to], t, `sent to ${to}, which is down`);
      return;
    }
    if (type === 'WORK_HELD') {
      this.obeyed(`${from}:WORK_HOLD:-1:${token}`, 'what it holds', t);
      this.twice(from, m, t);
    }
  }

  /** `to` answered a stale order the relay had delivered to it: it obeyed it. */
  private obeyed(key: string, answer: string, t: number): void {
    const d = this.stale.get(key);
    if (!d) return;
    this.stale.delete(key);
    const what = d.type === 'WORK_ASSIGN' ? `task ${d.task}` : '"what do you hold?"';
    this.found.push({
      kind: 'stale-order',
      at: t,
      since: d.t,
      processes: [d.to, d.from],
      detail: `${d.to} obeyed ${d.from}'s order (${what}, token ${d.token}) after the relay had delivered it token ${d.newest}: it answered with ${answer}${this.workload.fencing ? '' : ' (fencing off)'}`,
    });
  }

  /** A relayed answer to "what do you hold?" listing a task twice: its sender counts it twice (its claim). */
  private twice(from: ProcessId, m: Record<string, unknown>, t: number): void {
    const twice = new Set<number>();
    for (const list of [m['stored'], m['held']]) {
      if (!Array.isArray(list)) continue;
      const seen = new Set<number>();
      for (const x of list as unknown[]) {
        const task = Array.isArray(x) ? x[0] : x;
        if (typeof task !== 'number') continue;
        if (seen.has(task)) twice.add(task);
        seen.add(task);
      }
    }
    if (twice.size === 0) return;
    const tasks = [...twice].sort((a, b) => a - b);
    this.found.push({
      kind: 'counted-twice',
      at: t,
      processes: [from],
      detail: `${from} says it holds the result of ${list(tasks)} twice (its claim, in the answer to "what do you hold?" the relay carried)`,
    });
  }

  /** A crash: the results no live process holds any more. */
  private crashed(node: ProcessId, t: number): void {
    const now = this.board.lostTasks().filter((x) => !this.lost.has(x));
    const why =
      this.workload.sharing === 'static'
        ? 'static sharing never hands them out again'
        : 'no live process holds them; the next office must compute them again';
    if (now.length > 0) this.report(now, [node], t, `${node} went down: ${why}`);
  }

  private report(tasks: number[], processes: ProcessId[], t: number, why: string): void {
    const fresh = tasks.filter((x) => !this.lost.has(x));
    if (fresh.length === 0) return;
    for (const x of fresh) this.lost.add(x);
    this.found.push({
      kind: 'result-lost',
      at: t,
      processes,
      detail: `${fresh.length === 1 ? 'result' : 'results'} of ${list(fresh)} lost: ${why}`,
    });
  }
}

function list(tasks: readonly number[]): string {
  const shown = tasks.slice(0, LISTED).join(', ');
  const more = tasks.length > LISTED ? ` and ${tasks.length - LISTED} more` : '';
  return `${tasks.length === 1 ? 'task' : 'tasks'} ${shown}${more}`;
}
