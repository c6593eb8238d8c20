// What the main thread asks a shard's worker (scripts/explore/worker.ts), one request at a time
// per worker, each answered by `{ id, value }` or `{ id, error }`.
export type ShardRequest =
  | { id: number; op: 'start' }
  | { id: number; op: 'expand'; ranks: Uint32Array; ms: number }
  | { id: number; op: 'accept'; batches: ArrayBuffer[] }
  | { id: number; op: 'nodeAt'; k: number }
  | { id: number; op: 'back'; node: number };

type Distribute<T> = T extends unknown ? Omit<T, 'id'> : never;
export type ShardCall = Distribute<ShardRequest>;
