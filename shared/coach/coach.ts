// The coach: the lab's algorithm run in shadow on exactly the events a hand-played process saw,
// compared with what she did. A pure fold: (algorithm, config, her history, now) -> what the
// reference would do now (suggestions) and where she departed from it (deviations, each with the
// documents' rule it breaks, shared/coach/rules.ts).
//
// - The shadow is fed her deliveries and `elect` requests in order, at the times she saw them;
//   its own timers run on the same clock (it would have set them; hers are her notes), so "no OK
//   within UB" fires in the shadow UB after the ELECTIONs (hers: see the waits below).
// - Each send the shadow makes is a suggestion, open for UB = 2T + M (the documents' bound on an
//   answer). A send of hers with the same type to the same id fulfils it (the very same message
//   first, else the oldest); a suggestion still open after UB is a deviation (she did not
//   answer). A send of hers that fulfils none is a deviation unless the shadow makes the same
//   send within UB (her detector suspected a moment earlier).
//   A late send that answers a suggestion already marked is not marked again.
// - The shadow's waits start when its message really leaves: a timer it sets right after a run
//   of sends (its ACK wait after a ring hop, its OK wait after the ELECTIONs, 000/002) starts at
//   her first matching send, and never while she has made none. Otherwise forwarding near the
//   end of UB made the shadow give up on a live successor a moment before its ACK came, and one
//   missed forward made it think her successor dead for good: every later forward was marked.
// - Declaring herself or believing a coordinator is checked against the shadow's own belief.
// - The failure detector's messages and ring ACKs are plumbing (rules.ts) and not judged.
// The step never throws: an algorithm that throws in shadow only ends the coaching.
import {
  roundTripBound,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type AnyAlgorithm,
  type Effect,
  type Message,
  type ProcessId,
} from '../algorithms/algorithm.ts';
import { MAX_TASKS } from '../protocol/lab-config.ts';
import { createRng, deriveSeed } from '../sim/rng.ts';
import { sameMessage } from './identify.ts';
import { adoptAssign } from './work-adopt.ts';
import {
  awaitedTask,
  isWorkPlumbing,
  missedWorkRule,
  unexpectedWorkRule,
  WORK_COMPUTE_TIMER,
} from './work-rules.ts';
import {
  believeRule,
  declareRule,
  isPlumbing,
  missedSendRule,
  unexpectedSendRule,
  type RuleId,
} from './rules.ts';
import {
  MAX_AHEAD,
  MAX_LATE,
  MAX_RECENT,
  type CoachEntry,
  type CoachView,
  type Deviation,
  type Shadow,
  type Suggestion,
  nextChange,
  waitedOn,
  waitingCompute,
  wouldDeclare,
} from './coach-types.ts';

// The coach's vocabulary and the tab's stream have their own modules; importers of coach.ts keep working.
export type { CoachEntry, CoachView, Deviation, HandAction } from './coach-types.ts';
export { explain, MAX_RECENT } from './coach-types.ts';
export { CoachStream } from './coach-stream.ts';

/**
 * The fold, one entry at a time: her tab (`CoachStream`) and the relay (one per hand-played
 * process, server/lab/hand-audit.ts) feed it as events happen, taking the deviations found since
 * the last look; `coach` folds a whole history at once (the tests). Entries come in time order.
 */
export class CoachFold {
  private readonly random: ReturnType<typeof createRng>;
  private readonly ub: number;
  private readonly sh: Shadow = {
    state: null,
    timers: new Map(),
    report: null,
    open: [],
    late: [],
    deviations: [],
    ahead: [],
    recent: [],
  };
  /** Deviations found, for the one-mark-per-rule-per-click rule (`take` keeps the recent ones). */
  private recent: Deviation[] = [];
  private broken = false;
  private serials = 0;
  /** Work tasks she took against the reference (marked at her accepting): their results are not marked again. */
  private readonly obeyed = new Set<number>();
  /** Work tasks whose result she sent before the task's time (marked then): the reference's own result send is hers already. */
  private readonly early = new Set<number>();

  constructor(
    private readonly algorithm: AnyAlgorithm,
    private readonly config: AlgorithmConfig,
    seed: number,
  ) {
    // Each process draws from its own stream of the lab's seed, as in the simulator: tabs sharing
    // one stream would all time out at once (Raft's randomised election timeouts never split).
    this.random = createRng(deriveSeed(seed, config.self));
    this.ub = roundTripBound(config.timing);
    try {
      const out = algorithm.init(config, this.ctx(0));
      this.sh.state = out.state;
      this.apply(out.effects, 0);
    } catch {
      this.broken = true;
    }
  }

  /** One entry of her history: an event she saw, or an action of hers. */
  add(entry: CoachEntry): void {
    const sh = this.sh;
    this.advance(entry.at);
    if (entry.kind === 'event') {
      if (entry.event.kind !== 'timer') this.feed(entry.event, entry.at);
      return;
    }
    const a = entry.action;
    const { algorithm, config } = this;
    if (a.kind === 'accept') return this.accept(a.task, a.from, entry.at, entry.click);
    if (a.kind === 'send') {
      if (isPlumbing(algorithm.name, a.message.type) || isWorkPlumbing(a.message.type)) return;
      if (a.message.type === 'WORK_RESULT' && this.judgedResult(a.message, entry.at, entry.click))
        return;
      sh.recent = [
        ...sh.recent.filter((r) => r.at + this.ub >= entry.at),
        { to: a.to, message: a.message, at: entry.at },
      ].slice(-MAX_RECENT);
      // The suggestion she sent exactly (the kit gives her its numbers), else the oldest of its kind.
      const same = sh.open.findIndex((s) => s.to === a.to && sameMessage(s.message, a.message));
      const i =
        same >= 0
          ? same
          : sh.open.findIndex((s) => s.to === a.to && s.message.type === a.message.type);
      if (same < 0 && this.adopted(a.to, a.message, entry.at)) return;
      if (i >= 0) return this.restart(sh.open.splice(i, 1)[0]!, entry.at);
      const j = sh.late.findIndex((s) => s.to === a.to && s.message.type === a.message.type);
      if (j >= 0) return this.restart(sh.late.splice(j, 1)[0]!, entry.at);
      const expected = sh.open.filter((s) => s.message.type === a.message.type).map((s) => s.to);
      const rule =
        unexpectedWorkRule(sh.state, a.to, a.message) ??
        unexpectedSendRule(algorithm.name, config.self, a.to, a.message, expected, config.ring);
      sh.ahead.push({
        rule,
        at: entry.at,
        action: `sent ${a.message.type} to ${a.to}`,
        click: entry.click,
        to: a.to,
        type: a.message.type,
      });
      if (sh.ahead.length > MAX_AHEAD) {
        const oldest = sh.ahead.shift()!;
        this.deviate(oldest.rule, oldest.at, oldest.action, oldest.click);
      }
    } else if (a.kind === 'declare') {
      if (!wouldDeclare(sh, config.self))
        this.deviate(
          declareRule(algorithm.name),
          entry.at,
          'declared herself coordinator',
          entry.click,
        );
    } else if (sh.report?.coordinator !== a.coordinator) {
      this.deviate(
        believeRule(algorithm.name),
        entry.at,
        `believed ${a.coordinator} is coordinator`,
        entry.click,
      );
    }
  }

  /** What the reference would do at `now` (no entry may come before it afterwards). */
  view(now: number): CoachView {
    const sh = this.sh;
    this.advance(now);
    const self = this.config.self;
    const owed = sh.late.filter(
      (s) =>
        waitedOn(sh, s) || (s.message.type === 'COORDINATOR' && sh.report?.coordinator === self),
    );
    return {
      suggestions: [...sh.open],
      late: [...sh.late],
      owed,
      next: nextChange(sh, this.ub),
      pending: sh.ahead.map(({ to, type, at }) => ({ to, type, at })),
      // A copy: the tab keeps a look while the fold goes on.
      deviations: [...sh.deviations],
      report: sh.report,
      wouldDeclare: wouldDeclare(sh, this.config.self),
      wouldAccept: waitingCompute(sh) ? awaitedTask(sh.state) : null,
      broken: this.broken,
    };
  }

  /** The deviations found since the last call, each once; only the recent ones stay for the dedup rule. */
  take(): Deviation[] {
    const found = this.sh.deviations;
    this.sh.deviations = [];
    const newest = found.reduce((m, d) => Math.max(m, d.at), -Infinity);
    // A click's marks all come within UB of it (her sends wait UB in `ahead`); older ones cannot be repeated.
    this.recent = this.recent.filter((d) => d.at >= newest - 2 * this.ub).slice(-2 * MAX_AHEAD);
    return found;
  }

  private ctx(at: number) {
    return { now: at, random: this.random };
  }

  private apply(effects: readonly Effect[], at: number): void {
    const sh = this.sh;
    // The run of sends of one type just before a timer: the sends that timer waits on.
    let run: Suggestion[] = [];
    let runType: string | null = null;
    let runSent = false;
    const coordinator = sh.report?.role === 'coordinator';
    for (const e of effects) {
      if (e.kind === 'send') {
        if (isPlumbing(this.algorithm.name, e.message.type) || isWorkPlumbing(e.message.type))
          continue;
        if (e.message.type === 'WORK_RESULT' && this.early.has(e.message.task as number)) continue;
        if (e.message.type !== runType) [run, runType, runSent] = [[], e.message.type, false];
        // She was ahead of the reference (its detector suspected a little later than hers).
        const i = sh.ahead.findIndex((a) => a.to === e.to && a.type === e.message.type);
        if (i >= 0) {
          sh.ahead.splice(i, 1);
          runSent = true;
          continue;
        }
        // Already on its way: she sent this very message to `to` within UB (a COORDINATOR that
        // crossed the ELECTION it would answer), or the reference owes it already (one send answers both).
        if (
          sh.recent.some(
            (r) => r.to === e.to && r.at + this.ub >= at && sameMessage(r.message, e.message),
          )
        )
          continue;
        if (sh.open.some((o) => o.to === e.to && sameMessage(o.message, e.message))) continue;
        const s: Suggestion = {
          to: e.to,
          message: e.message,
          since: at,
          due: at + this.ub,
          timers: [],
          ...(coordinator && e.message.type === 'COORDINATOR' ? { reply: true } : {}),
        };
        sh.open.push(s);
        run.push(s);
        continue;
      }
      if (e.kind === 'set-timer' && e.name === WORK_COMPUTE_TIMER) {
        // Her task's time runs from her accepting it (accept below), as her tab's does.
        sh.timers.set(e.name, {
          at: Infinity,
          serial: ++this.serials,
          armed: false,
          accept: e.after,
        });
      } else if (e.kind === 'set-timer') {
        const waits = runType !== null && !runSent;
        sh.timers.set(e.name, { at: at + e.after, serial: ++this.serials, armed: !waits });
        if (waits)
          for (const s of run)
            s.timers.push({ name: e.name, serial: this.serials, after: e.after });
      } else if (e.kind === 'cancel-timer') sh.timers.delete(e.name);
      else if (e.kind === 'report') {
        sh.report = e.report;
        continue;
      }
      [run, runType, runSent] = [[], null, false];
    }
  }

  /**
   * She accepted a work task: the reference's compute time starts now. With none waiting, the
   * reference did not take an order she took: a stale one it refused (fencing), else one it would
   * not run now. Her acceptance answers the refusal the reference owes (not marked twice).
   */
  private accept(task: number, from: ProcessId | null, at: number, click: number): void {
    const sh = this.sh;
    const timer = sh.timers.get(WORK_COMPUTE_TIMER);
    if (timer && !timer.armed && timer.accept !== undefined) {
      timer.at = at + timer.accept;
      timer.armed = true;
      return;
    }
    const refused = (list: Suggestion[]) =>
      list.findIndex((s) => s.message.type === 'WORK_REFUSED' && (from === null || s.to === from));
    const i = refused(sh.open);
    const j = i >= 0 ? -1 : refused(sh.late);
    if (i >= 0) sh.open.splice(i, 1);
    else if (j >= 0) sh.late.splice(j, 1);
    const stale = i >= 0 || j >= 0;
    if (Number.isInteger(task) && this.obeyed.size < MAX_TASKS) this.obeyed.add(task);
    this.deviate(
      stale ? 'work.stale' : 'reference.send',
      at,
      `accepted task ${task}${from === null ? '' : ` from ${from}`}`,
      click,
    );
  }

  /**
   * Her WORK_ASSIGN, when it is a legal move other than the reference's (another queued task,
   * another empty worker: work-adopt.ts), becomes the shadow's: its table follows hers and the
   * orders hers replaces are no longer owed. True when adopted.
   */
  private adopted(to: ProcessId, m: Message, at: number): boolean {
    if (m.type !== 'WORK_ASSIGN') return false;
    const sh = this.sh;
    const out = adoptAssign(sh.state, [...sh.open, ...sh.late], to, m, at);
    if (!out) return false;
    const gone = new Set(out.replaced);
    sh.state = out.state;
    sh.open = sh.open.filter((s) => !gone.has(s));
    sh.late = sh.late.filter((s) => !gone.has(s));
    return true;
  }

  /**
   * Her result send, when it is not judged as an election send is: a result for a task she took
   * against the reference (marked at her accepting), or one sent before the task's time (003: a
   * machine sends its result when it finishes; marked now, once, and the reference's own result
   * send for that task is taken as hers).
   */
  private judgedResult(m: Message, at: number, click: number): boolean {
    const task = m.task as number;
    if (this.obeyed.has(task) || this.early.has(task)) return true;
    const timer = this.sh.timers.get(WORK_COMPUTE_TIMER);
    const running = timer !== undefined && (!timer.armed || timer.at > at);
    if (!running || awaitedTask(this.sh.state) !== task) return false;
    if (this.early.size < MAX_TASKS) this.early.add(task);
    this.deviate('work.result', at, `sent the result of task ${task} before its time`, click);
    return true;
  }

  /** Her send answered `s` at `at`: the waits the reference set with it start from her send. */
  private restart(s: Suggestion, at: number): void {
    for (const t of s.timers) {
      const timer = this.sh.timers.get(t.name);
      if (timer?.serial !== t.serial) continue;
      timer.at = timer.armed ? Math.max(timer.at, at + t.after) : at + t.after;
      timer.armed = true;
    }
  }

  private feed(event: AlgorithmEvent, at: number): void {
    if (this.broken) return;
    try {
      const out = this.algorithm.step(this.sh.state, event, this.ctx(at));
      this.sh.state = out.state;
      this.apply(out.effects, at);
    } catch {
      this.broken = true;
    }
  }

  /** Shadow timers due by `t` fire in order; suggestions past their UB become deviations. */
  private advance(t: number): void {
    for (let guard = 0; guard < 1000 && !this.broken; guard++) {
      let next: [string, number] | null = null;
      for (const [name, { at, armed }] of this.sh.timers)
        if (armed && at <= t && (!next || at < next[1])) next = [name, at];
      if (!next) break;
      this.sh.timers.delete(next[0]);
      this.expire(next[1]);
      this.feed({ kind: 'timer', name: next[0] }, next[1]);
    }
    this.expire(t);
  }

  private expire(t: number): void {
    const sh = this.sh;
    const ub = this.ub;
    const unmatched = sh.ahead.filter((a) => a.at + ub < t);
    if (unmatched.length) sh.ahead = sh.ahead.filter((a) => a.at + ub >= t);
    for (const a of unmatched) this.deviate(a.rule, a.at, a.action, a.click);
    const late = sh.open.filter((s) => s.due < t);
    if (!late.length) return;
    sh.open = sh.open.filter((s) => s.due >= t);
    sh.late = [...sh.late, ...late].slice(-MAX_LATE);
    for (const s of late)
      this.deviate(
        missedWorkRule(s.message) ??
          missedSendRule(this.algorithm.name, s.message, s.reply === true),
        s.due,
        `no ${s.message.type} to ${s.to} within UB`,
        null,
      );
  }

  private deviate(rule: RuleId, at: number, action: string, click: number | null): void {
    // One mark per rule per click, and one per rule for a batch of missed sends due together.
    if (
      this.recent.some(
        (d) => d.rule === rule && d.click === click && (click !== null || d.at === at),
      )
    )
      return;
    const d = { rule, at, action, click };
    this.recent.push(d);
    this.sh.deviations.push(d);
  }
}

/** The whole fold of a history at once, looked at `now` (what her tab's CoachStream and the relay's audit fold entry by entry). */
export function coach(
  algorithm: AnyAlgorithm,
  config: AlgorithmConfig,
  history: readonly CoachEntry[],
  now: number,
  seed: number,
): CoachView {
  const fold = new CoachFold(algorithm, config, seed);
  for (const entry of history) fold.add(entry);
  return fold.view(now);
}
