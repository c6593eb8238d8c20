// Every Redis key the cluster uses, in one place (prefix `elab:`).
export const KEYS = {
  /** Hash: lab name -> the lab's configuration (JSON). The lab directory. */
  labs: 'elab:labs',
  /** Hash: relay id -> JSON { url, labs, rss, at }. Entries older than the lease are stale. */
  relays: 'elab:relays',
  /** String with a TTL: `<relay id> <epoch>` of the lab's owner. */
  lease: (lab: string) => `elab:lease:${lab}`,
  /** Counter: the lab's fencing epoch; every new owner takes the next one. */
  epoch: (lab: string) => `elab:epoch:${lab}`,
  /** Hash: lab name -> the instructor's state (crashed ids, partition, pause; server/lab/lab-state.ts). */
  state: 'elab:state',
  /** Pub/sub channel: a relay announces directory changes (lab created, removed, moved). */
  changes: 'elab:changes',
} as const;
