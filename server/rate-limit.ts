// Per-connection flood control: a token bucket (`rate` frames a second, bursts of `burst`).
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

  /** Takes one token; false when the bucket is empty (the frame must be refused). */
  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.limits.burst, this.tokens + ((t - this.last) * this.limits.rate) / 1000);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
