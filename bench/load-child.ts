// The load generator's process: the parent (relay-bench.ts) sends commands over IPC. Several
// connection sets can be open at once (`gen`: one for the relay, one for the baseline), so runs
// against the two can alternate without reconnecting.
import { serveParent } from './child-proc.ts';
import { LoadGen, type ConnectRequest } from './load-gen.ts';

const gens = new Map<string, LoadGen>();
const genOf = (m: Record<string, unknown>): LoadGen => {
  const key = String(m.gen ?? 'default');
  let g = gens.get(key);
  if (!g) gens.set(key, (g = new LoadGen()));
  return g;
};

serveParent(async (m) => {
  const gen = genOf(m);
  switch (m.cmd) {
    case 'connect':
      return { connected: await gen.connect(m as unknown as ConnectRequest), errors: gen.errors };
    case 'throughput':
      return { ...(await gen.throughput(m as unknown as Parameters<LoadGen['throughput']>[0])) };
    case 'latency':
      return { ...(await gen.latency(m as unknown as Parameters<LoadGen['latency']>[0])) };
    case 'close':
      await gen.close();
      gens.delete(String(m.gen ?? 'default'));
      return { closed: true };
    default:
      throw new Error(`unknown command ${String(m.cmd)}`);
  }
});
process.send?.({ ready: true, pid: process.pid });
