// Flood control: a token bucket (`rate` frames a second, bursts of `burst`) per connection, and
// per client address (message bytes, join-code lookups).
// A Bully election among a thousand ids makes one process send about a thousand messages at
// once, so the default burst is generous; a flood well past it is refused frame by frame.
export interface RateLimits {
  /** Sustained frames per second. */
  rate: number;
  /** Frames accepted at once before the sustained rate applies. */
  burst: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { rate: 2000, burst: 5000 };

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly limits: RateLimits,
    private readonly now: () => number,
  ) {
    this.tokens = limits.burst;
    this.last = now();
  }

  /** Takes `n` tokens (one frame, or a message's bytes); false when fewer are left (refuse it, take nothing). */
  take(n = 1): boolean {
    if (!this.has(n)) return false;
    this.tokens -= n;
    return true;
  }

  /** Takes `n` tokens `has` just found there (no second clock read). */
  spend(n: number): void {
    this.tokens -= n;
  }

  /** Whether `n` tokens are there now (refills first; takes nothing). */
  has(n: number): boolean {
    const t = this.now();
    this.tokens = Math.min(
      this.limits.burst,
      this.tokens + ((t - this.last) * this.limits.rate) / 1000,
    );
    this.last = t;
    return this.tokens >= n;
  }
}

/**
 * Message bytes a second (the JSON of `send` frames' messages), per address and per lab. A class
 * of 30 running any of the five algorithms sends well under 1 MB/s in all, and the whole relay at
 * its top speed (about 100,000 messages a second of 60 to 100 bytes) moves under 10 MB/s; a flood
 * of eight connections at the frame limit with 16 KB messages offers 250 MB/s.
 */
export interface ByteLimits {
  perAddress: RateLimits;
  perLab: RateLimits;
}

export const DEFAULT_BYTE_LIMITS: ByteLimits = {
  perAddress: { rate: 16 * 2 ** 20, burst: 64 * 2 ** 20 },
  perLab: { rate: 16 * 2 ** 20, burst: 64 * 2 ** 20 },
};

/**
 * GET /api/join/:code per client address: a class of 30 behind one NAT joining at once (and
 * retrying) passes; a script trying codes gets 10 a second.
 */
export const JOIN_LOOKUP_LIMITS: RateLimits = { rate: 10, burst: 60 };

/** Addresses tracked at once; past this the one idle longest is forgotten (it starts full again). */
const MAX_ADDRESSES = 10_000;

/**
 * One token bucket per remote address, shared by all its connections (message bytes) or
 * requests (join-code lookups); at most MAX_ADDRESSES, the least recently used go first.
 */
export class AddressBuckets {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly limits: RateLimits,
    private readonly now: () => number,
  ) {}

  of(address: string): TokenBucket {
    let b = this.buckets.get(address);
    if (b) this.buckets.delete(address);
    else b = new TokenBucket(this.limits, this.now);
    // Re-inserted: the Map's order is the order of last use.
    this.buckets.set(address, b);
    if (this.buckets.size > MAX_ADDRESSES) this.buckets.delete(this.buckets.keys().next().value!);
    return b;
  }

  /** Takes one token from the address's bucket. */
  take(address: string): boolean {
    return this.of(address).take();
  }

  get size(): number {
    return this.buckets.size;
  }
}
