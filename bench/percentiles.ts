// Percentiles of latency samples (nearest rank on a sorted copy) and rounding for the tables.

export interface Summary {
  count: number;
  min: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samples: Float64Array | number[]): Summary {
  const sorted = Float64Array.from(samples).sort();
  const n = sorted.length;
  if (n === 0) return { count: 0, min: NaN, p50: NaN, p99: NaN, max: NaN, mean: NaN };
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i]!;
  return {
    count: n,
    min: sorted[0]!,
    p50: rank(sorted, 0.5),
    p99: rank(sorted, 0.99),
    max: sorted[n - 1]!,
    mean: sum / n,
  };
}

/** Nearest-rank percentile of an ascending array. */
export function rank(sorted: Float64Array, q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

/** Rounds to `digits` decimals (for JSON and tables). */
export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** A server's stalls over a measured period (ms): its event loop's lateness and its GC pauses. */
export interface Stalls {
  /** p99 and max of how late the event loop ran a 1 ms timer. */
  loopP99: number;
  loopMax: number;
  gcCount: number;
  gcMax: number;
  /** The longest mark-sweep-compact pause (the others are scavenges and incremental steps). */
  gcMajorMax: number;
  gcTotal: number;
  /**
   * Times the kernel took the CPU from the server while it could run (involuntary context
   * switches): many in a slice with a tail means the machine, not the server, made the tail.
   */
  preempted: number;
}
