import type { Clock } from "../lib/clock.ts";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * Fixed one-minute windows per key (aligned to the clock's minutes), counted by `count`: the
 * database's atomic upsert, so every API process shares one budget and a parallel burst gets
 * exactly `limit` through.
 */
export function createRateLimiter(opts: {
  limit: number;
  windowMs: number;
  clock: Clock;
  /** Counts one request of `key` in the window starting at `windowStart`; answers the count. */
  count(key: string, windowStart: Date): Promise<number>;
}) {
  return {
    async hit(key: string): Promise<RateDecision> {
      const now = opts.clock.now().getTime();
      const start = now - (now % opts.windowMs);
      const hits = await opts.count(key, new Date(start));
      const resetSeconds = Math.max(1, Math.ceil((start + opts.windowMs - now) / 1000));
      return {
        allowed: hits <= opts.limit,
        limit: opts.limit,
        remaining: Math.max(0, opts.limit - hits),
        resetSeconds,
      };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
