// `npm start`'s demo lab (issue 28, "a first look that moves"): made if missing (8 ids running
// bully), filled with the relay's server bots on its free ids, and driven by the demo loop (a
// crash of the coordinator and its recovery every half minute) until an instructor takes over.
// A newcomer's first dashboard thus shows an election within seconds, not "no process up".
import type { Relay } from './relay.ts';

const DEMO_LAB = 'demo';

interface DemoLab {
  /** Ids the server bots took (none when every id was already held, or bots are off). */
  bots: number[];
  /** Set when the lab could not be made or filled. */
  error?: string;
}

export async function openDemoLab(relay: Relay, opts: { everyMs?: number } = {}): Promise<DemoLab> {
  let lab = relay.labs.get(DEMO_LAB);
  if (!lab) {
    const made = await relay.labs.create({ name: DEMO_LAB, algorithm: 'bully', size: 8 });
    if (!made.ok) return { bots: [], error: made.error.message };
    lab = made.value;
  }
  let bots: number[] = [];
  if (relay.bots && lab.processes.free(lab.deps.clock.now()).length > 0) {
    const started = await relay.bots.start(DEMO_LAB, { count: lab.config.ids.length });
    if (!started.ok) return { bots: [], error: started.error.message };
    bots = started.value.started;
  }
  relay.demo.start(lab, opts.everyMs);
  return { bots };
}
