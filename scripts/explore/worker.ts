// One shard of a split breadth-first search (scripts/explore-workers.ts starts it): the lab is
// rebuilt here from the CLI's arguments (a setup holds functions, which do not cross threads), and
// the batches for other shards leave as bytes (v8's serializer, the one structured cloning uses),
// moved, not copied, through the main thread to their owner.
import { deserialize, serialize } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { Shard } from '@shared/explore/shard.ts';
import { PackedShard, type Packed } from '@shared/explore/world-codec.ts';
import { checker } from '@shared/explore/search.ts';
import { parseExploreCli } from '../explore.ts';
import type { ShardRequest } from './protocol.ts';

const { argv, index, size } = workerData as { argv: string[]; index: number; size: number };
const cli = parseExploreCli(argv);
const shard = new PackedShard(
  new Shard(cli.setup, index, size, checker(cli.setup, cli.limits.check)),
);
const port = parentPort!;

/** A batch as its own ArrayBuffer, so it can be transferred. */
function bytesOf(b: Packed): ArrayBuffer {
  const buf = serialize(b);
  const whole = buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength;
  return (
    whole ? buf.buffer : buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)
  ) as ArrayBuffer;
}

function answer(req: ShardRequest): void {
  switch (req.op) {
    case 'start':
      return port.postMessage({ id: req.id, value: shard.shard.start() });
    case 'expand': {
      const t0 = performance.now();
      const until = t0 + req.ms;
      const r = shard.shard.expand(req.ranks, () => until - performance.now());
      const t = performance.now();
      const workMs = t - t0;
      const out = shard.pack(r).out.map((b) => (b ? bytesOf(b) : null));
      const codecMs = performance.now() - t;
      const bytes = out.reduce((n, b) => n + (b?.byteLength ?? 0), 0);
      const moved = out.filter((b): b is ArrayBuffer => b !== null);
      return port.postMessage({ id: req.id, value: { ...r, out, bytes, codecMs, workMs } }, moved);
    }
    case 'accept': {
      const t = performance.now();
      const batches = shard.unpack(
        req.batches.map((b) => deserialize(new Uint8Array(b)) as Packed),
      );
      const t1 = performance.now();
      const value = { ...shard.shard.accept(batches), codecMs: t1 - t, workMs: 0 };
      value.workMs = performance.now() - t1;
      return port.postMessage({ id: req.id, value }, [value.keys.buffer as ArrayBuffer]);
    }
    case 'nodeAt':
      return port.postMessage({ id: req.id, value: shard.shard.nodeAt(req.k) });
    case 'back':
      return port.postMessage({ id: req.id, value: shard.shard.back(req.node) });
  }
}

port.on('message', (req: ShardRequest) => {
  try {
    answer(req);
  } catch (e) {
    port.postMessage({ id: req.id, error: e instanceof Error ? e.message : String(e) });
  }
});
