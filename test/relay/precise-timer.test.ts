// The fabric's precise wake-ups (server/clock/precise-timer.ts): a worker sleeps to a fraction of a ms
// and wakes the event loop. What must hold whatever the machine's load: a wake-up never runs
// before its time, runs once, in deadline order, not at all once cleared; a scheduler on the real
// clock serves held messages in due order and never early; and a pending wake-up holds the
// process open the way a pending setTimeout does, a cleared one does not.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { realClock } from '../../server/clock/clock.ts';
import { PreciseTimers } from '../../server/clock/precise-timer.ts';
import { Scheduler } from '../../server/lab/scheduler.ts';

const run = promisify(execFile);

describe('precise timers', () => {
  it('run each wake-up once, in deadline order, never early, and not at all once cleared', async () => {
    const timers = new PreciseTimers();
    const ran: { ms: number; late: number }[] = [];
    const delays = [7.3, 0.4, 3.05, 12.9, 3.05, 1.7, 9.95, 5.5];
    const wakes = delays.map((ms) => {
      const set = performance.now();
      return {
        ms,
        wake: timers.set(() => ran.push({ ms, late: performance.now() - set - ms }), ms),
      };
    });
    const cleared = timers.set(() => ran.push({ ms: -1, late: 0 }), 2.2);
    timers.clear(cleared);
    timers.clear(cleared);
    const deadline = performance.now() + 2000;
    while (ran.length < delays.length && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 5));
    // In deadline order (ties in the order set); the first set may start the worker, so deadlines are not the delays' order.
    expect(ran.map((r) => r.ms)).toEqual(
      [...wakes].sort((a, b) => a.wake.at - b.wake.at).map((w) => w.ms),
    );
    for (const r of ran) expect(r.late).toBeGreaterThanOrEqual(0);
  });

  it('take wake-ups set from inside a wake-up, and 2,000 at once', async () => {
    const timers = new PreciseTimers();
    let chained = 0;
    const again = () => {
      if (++chained < 20) timers.set(again, 0.3);
    };
    timers.set(again, 0.3);
    let many = 0;
    for (let i = 0; i < 2000; i++) timers.set(() => many++, (i % 50) / 10);
    const deadline = performance.now() + 2000;
    while ((chained < 20 || many < 2000) && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    expect([chained, many]).toEqual([20, 2000]);
  });

  it('sweep cleared wake-ups out of the heap instead of keeping each until its time', () => {
    const timers = new PreciseTimers();
    const keep = timers.set(() => {}, 60_000);
    for (let i = 0; i < 50_000; i++) timers.clear(timers.set(() => {}, 60_000 - i / 100));
    expect(timers.size).toBeLessThanOrEqual(1 + 1025);
    timers.clear(keep);
  });

  it("serve a real-clock scheduler's held messages in due order, never before they are due", async () => {
    const served: { id: number; late: number }[] = [];
    const s = new Scheduler<{ at: number; seq: number; id: number }>(realClock, (e) =>
      served.push({ id: e.id, late: s.now() - e.at }),
    );
    // Held while paused (fabric time stands still), so that a busy machine cannot make one due
    // before the rest are pushed: a message already due at its push is served at once, by design.
    s.pause();
    const now = s.now();
    const delays = [4.25, 0.5, 2.75, 2.75, 8.1, 1.3];
    delays.forEach((d, id) => s.push({ at: now + d, id }));
    s.resume();
    const deadline = performance.now() + 2000;
    while (served.length < delays.length && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 2));
    expect(served.map((x) => x.id)).toEqual([1, 5, 2, 3, 0, 4]);
    for (const x of served) expect(x.late).toBeGreaterThanOrEqual(0);
    s.dispose();
  });

  it('hold the process open while a wake-up is pending, and not after it is cleared', async () => {
    const script = (clear: boolean) =>
      `const { PreciseTimers } = await import(${JSON.stringify(new URL('../../server/clock/precise-timer.ts', import.meta.url).href)});
       const t = new PreciseTimers();
       const w = t.set(() => console.log('woke'), ${clear ? 60_000 : 300});
       ${clear ? 't.clear(w);' : ''}`;
    const started = performance.now();
    const pending = await run(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script(false)],
      { timeout: 20_000 },
    );
    expect(pending.stdout.trim()).toBe('woke');
    // Cleared, a wake-up a minute away must not keep the process (the call times out at 20 s).
    const cleared = await run(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script(true)],
      { timeout: 20_000 },
    );
    expect(cleared.stdout.trim()).toBe('');
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
