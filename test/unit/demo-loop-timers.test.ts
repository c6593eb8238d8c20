// The demo loop's timers on the relay's clock (server/lab/demo-loop.ts), on a manual clock: one timer
// per loop, a tick every half period, none left after the relay closes, and a removed lab's loop
// ends at its next tick.
import { describe, expect, it } from 'vitest';
import { DemoLoops } from '../../server/lab/demo-loop.ts';
import type { Lab } from '../../server/lab/lab.ts';
import { manualLab, tempDir } from '../helpers/relay-lab.ts';

const dir = tempDir('demo-loop-');

describe('demo loop timers', () => {
  it('keeps one timer armed per loop, ticks every half period, and leaves none after closeAll', () => {
    const { lab, clock } = manualLab(dir.path, 'timers');
    const loops = new DemoLoops({ get: (name: string) => (name === lab.name ? lab : undefined) });
    loops.start(lab, 10_000);
    expect(clock.pending).toBe(1);
    const armed = clock.armed;
    // No process reports a coordinator: each tick waits, and re-arms.
    clock.advance(5000);
    expect(clock.armed).toBe(armed + 1);
    expect(loops.status(lab.name)).toEqual({ running: true, everyMs: 10_000, crashed: null });
    loops.start(lab, 10_000); // a restart replaces the loop, it does not add one
    expect(clock.pending).toBe(1);
    loops.closeAll();
    expect(clock.pending).toBe(0);
    expect(loops.status(lab.name)).toEqual({ running: false });
  });

  it('ends the loop of a lab that was removed, at its next tick', () => {
    const { lab, clock } = manualLab(dir.path, 'removed');
    let present: Lab | undefined = lab;
    const loops = new DemoLoops({ get: () => present });
    loops.start(lab, 2000);
    present = undefined;
    clock.advance(1000);
    expect(loops.status(lab.name)).toEqual({ running: false });
    expect(clock.pending).toBe(0);
  });
});
