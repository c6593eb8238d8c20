// The demo lab's loop (shared/lessons/demo-loop.ts) on the relay's clock: a tick every half
// period crashes the agreed coordinator or recovers it, with the instructor's own controls
// (lab-control.ts), so the trace, the dashboard and the processes see an ordinary crash. A person
// takes over by any instructor action on the lab (server/http/demo-routes.ts stops the loop first).
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import { DEMO_PERIOD_MS, demoStart, demoTick, type DemoState } from '@shared/lessons/demo-loop.ts';
import type { DemoStatus } from '@shared/lessons/lesson-api.ts';
import type { Lab } from './lab.ts';
import { crash, recover } from './lab-control.ts';
import type { Labs } from './labs.ts';
import { statusOf } from './process-table.ts';

interface Loop {
  lab: Lab;
  everyMs: number;
  state: DemoState;
  timer: unknown;
}

export class DemoLoops {
  private readonly loops = new Map<string, Loop>();

  constructor(private readonly labs: Pick<Labs, 'get'>) {}

  /** Starts (or restarts) the loop on a lab: a crash, then a recovery, each `everyMs / 2` later. */
  start(lab: Lab, everyMs = DEMO_PERIOD_MS): void {
    this.stop(lab.name);
    const loop: Loop = { lab, everyMs, state: demoStart(), timer: null };
    this.loops.set(lab.name, loop);
    this.arm(loop);
  }

  /**
   * Ends the loop; a process it crashed is recovered, so the person who takes over finds every
   * process up. True when a loop was running.
   */
  stop(labName: string): boolean {
    const loop = this.loops.get(labName);
    if (!loop) return false;
    loop.lab.deps.clock.clearTimeout(loop.timer);
    this.loops.delete(labName);
    if (loop.state.crashed !== null && loop.lab.processes.has(loop.state.crashed))
      recover(loop.lab, loop.state.crashed);
    return true;
  }

  status(labName: string): DemoStatus {
    const loop = this.loops.get(labName);
    return loop
      ? { running: true, everyMs: loop.everyMs, crashed: loop.state.crashed }
      : { running: false };
  }

  /** The relay is closing: the timers go, and nothing is recovered (the trace ends as the lab was). */
  closeAll(): void {
    for (const loop of this.loops.values()) loop.lab.deps.clock.clearTimeout(loop.timer);
    this.loops.clear();
  }

  private arm(loop: Loop): void {
    loop.timer = loop.lab.deps.clock.setTimeout(() => this.tick(loop), loop.everyMs / 2);
  }

  private tick(loop: Loop): void {
    if (this.loops.get(loop.lab.name) !== loop) return;
    // A removed lab's loop ends with it (a new lab of the same name is not the demo's).
    if (this.labs.get(loop.lab.name) !== loop.lab) {
      this.loops.delete(loop.lab.name);
      return;
    }
    const { state, move } = demoTick(loop.state, { reports: liveReports(loop.lab) });
    loop.state = state;
    if (move?.kind === 'crash') crash(loop.lab, move.id);
    if (move?.kind === 'recover') recover(loop.lab, move.id);
    this.arm(loop);
  }
}

function liveReports(lab: Lab): { id: ProcessId; coordinator: ProcessId | null }[] {
  return lab.processes
    .list()
    .filter((e) => statusOf(e) === 'up' && e.report)
    .map((e) => ({ id: e.id, coordinator: e.report!.coordinator }));
}
