// RunnerShell (shared/sim/process-host.ts): the skeleton the three process runners share
// (ProcessHost, HandRunner, SandboxHost). Each runner's own tests hold what it decides; these hold
// what the shell promises all of them: the views hear every event the host hears, a stop takes
// the timers with it, and a stop of a process that was not running is not announced.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, type Message, type Report } from '@shared/algorithms/algorithm.ts';
import { RunnerShell, type HostEvent, type HostFault } from '@shared/sim/process-host.ts';
import { ManualClock } from '../helpers/manual-clock.ts';

function setup() {
  const clock = new ManualClock();
  const host: string[] = [];
  const views: HostEvent[] = [];
  const shell = new RunnerShell(
    {
      send: (to, m: Message) => host.push(`send ${m.type} to ${to}`),
      report: (r: Report) => host.push(`report ${r.role}`),
      fault: (f: HostFault) => host.push(`fault ${f.event}`),
      setTimer: clock.setTimeout,
      clearTimer: clock.clearTimeout,
      now: clock.now,
    },
    (e) => views.push(e),
  );
  return { clock, host, views, shell };
}

describe('RunnerShell', () => {
  it('tells the host and the views alike of sends, reports and faults', () => {
    const { host, views, shell } = setup();
    const config = {
      self: 1,
      ids: [0, 1],
      ring: [0, 1],
      timing: DEFAULT_TIMING,
      detector: 'none' as const,
    };
    shell.started(config);
    shell.received({ kind: 'elect' });
    shell.send(0, { type: 'ELECTION' });
    shell.report({ role: 'candidate', coordinator: null, electing: true });
    shell.faulted({ error: 'boom', event: 'elect', restarted: true });
    expect(host).toEqual(['send ELECTION to 0', 'report candidate', 'fault elect']);
    expect(views.map((e) => e.kind)).toEqual(['started', 'in', 'out', 'report', 'fault']);
  });

  it('takes every timer with a stop, and announces the stop only of a running process', () => {
    const { clock, views, shell } = setup();
    let fired = 0;
    shell.timers.set('a', 100, () => fired++);
    shell.timers.set('b', 200, () => fired++);
    expect(shell.timers.list().map((t) => t.name)).toEqual(['a', 'b']);
    shell.stopped(false);
    expect(views).toEqual([]);
    expect(shell.timers.list()).toEqual([]);
    clock.advance(500);
    expect(fired).toBe(0);
    shell.stopped(true);
    expect(views).toEqual([{ kind: 'stopped' }]);
  });
});
