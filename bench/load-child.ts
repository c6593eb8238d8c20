// The load generator's process: the parent (relay-bench.ts) sends commands over IPC.
import { serveParent } from './child-proc.ts';
import { LoadGen, type ConnectRequest } from './load-gen.ts';

const gen = new LoadGen();

serveParent(async (m) => {
  switch (m.cmd) {
    case 'connect':
      return { connected: await gen.connect(m as unknown as ConnectRequest), errors: gen.errors };
    case 'throughput':
      return { ...(await gen.throughput(m as unknown as Parameters<LoadGen['throughput']>[0])) };
    case 'latency':
      return { ...(await gen.latency(m as unknown as Parameters<LoadGen['latency']>[0])) };
    case 'close':
      await gen.close();
      return { closed: true };
    default:
      throw new Error(`unknown command ${String(m.cmd)}`);
  }
});
process.send?.({ ready: true, pid: process.pid });
