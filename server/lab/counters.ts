// Relay-wide counters of refused input and dropped work, for /api/health and the stats: every
// bad frame, bad request and overflow is counted, never silently ignored.
export class Counters {
  private readonly counts = new Map<string, number>();

  inc(key: string, by = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + by);
  }

  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)));
  }
}
