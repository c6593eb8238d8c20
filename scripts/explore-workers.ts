// The split breadth-first search's worker threads (`npm run explore -- --workers N`, bench:core):
// one shard (shared/explore/shard.ts) per worker, driven level by level by the pure coordinator
// (shared/explore/levels.ts). Batches of worlds travel as transferred bytes: the main thread
// routes them without reading them.
import { Worker } from 'node:worker_threads';
import type { ShardPool } from '@shared/explore/levels.ts';
import { searchSplit, type SearchResult } from '@shared/explore/search.ts';
import type { SplitTally } from '@shared/explore/levels.ts';
import type { ExploreCli } from './explore.ts';
import type { ShardCall, ShardRequest } from './explore/protocol.ts';

type Reply = { id: number; value?: unknown; error?: string };

/** One worker thread running a shard, answering one request at a time. */
function spawnShard(argv: string[], index: number, size: number) {
  // A worker's entry point loads before an inherited --import, so it registers tsx itself (as scripts/grade.ts's).
  const boot = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(new URL('./explore/worker.ts', import.meta.url).href)});`;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), {
    execArgv: [],
    workerData: { argv, index, size },
  });
  const waiting = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
  let next = 0;
  const failAll = (e: Error) => {
    for (const w of waiting.values()) w.fail(e);
    waiting.clear();
  };
  worker.on('message', (m: Reply) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.fail(new Error(`explore worker ${index}: ${m.error}`));
    else w?.ok(m.value);
  });
  worker.on('error', (e) => failAll(e));
  worker.on('exit', (code) => failAll(new Error(`explore worker ${index} exited (code ${code})`)));
  const call = <T>(req: ShardCall, moved: ArrayBuffer[] = []): Promise<T> =>
    new Promise<T>((ok, fail) => {
      const id = next++;
      waiting.set(id, { ok: ok as (v: unknown) => void, fail });
      worker.postMessage({ ...req, id } as ShardRequest, moved);
    });
  return { call, terminate: () => worker.terminate() };
}

/** A pool of `size` shard workers over the lab the CLI arguments describe. */
export function workerPool(
  argv: string[],
  size: number,
): ShardPool<ArrayBuffer> & { close(): Promise<void> } {
  const shards = Array.from({ length: size }, (_, i) => spawnShard(argv, i, size));
  return {
    size,
    start: (s) => shards[s]!.call({ op: 'start' }),
    expand: (s, ranks, ms) =>
      shards[s]!.call({ op: 'expand', ranks, ms }, [ranks.buffer as ArrayBuffer]),
    accept: (s, batches) => shards[s]!.call({ op: 'accept', batches }, batches),
    nodeAt: (s, k) => shards[s]!.call({ op: 'nodeAt', k }),
    back: (s, node) => shards[s]!.call({ op: 'back', node }),
    close: async () => {
      await Promise.all(shards.map((x) => x.terminate()));
    },
  };
}

/** The CLI's search with `workers` threads (the plain search, split; then probes here). */
export async function searchWithWorkers(
  cli: ExploreCli,
  argv: string[],
  workers: number,
  clock: () => number,
): Promise<SearchResult & { split: SplitTally }> {
  const pool = workerPool(argv, workers);
  try {
    return await searchSplit(cli.setup, cli.limits, pool, clock);
  } finally {
    await pool.close();
  }
}
