import type { Clock } from "../lib/clock.ts";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * A fixed one-minute window per key, in this process's memory. Several api processes each
 * count on their own, so the effective limit is per process; a shared store can replace this.
 */
export function createRateLimiter(opts: { limit: number; windowMs: number; clock: Clock }) {
  const windows = new Map<string, { start: number; count: number }>();

  function sweep(now: number) {
    for (const [k, w] of windows) if (now - w.start >= opts.windowMs) windows.delete(k);
  }

  return {
    hit(key: string): RateDecision {
      const now = opts.clock.now().getTime();
      if (windows.size > 10_000) sweep(now);
      let w = windows.get(key);
      if (!w || now - w.start >= opts.windowMs) {
        w = { start: now, count: 0 };
        windows.set(key, w);
      }
      const resetSeconds = Math.max(1, Math.ceil((w.start + opts.windowMs - now) / 1000));
      if (w.count >= opts.limit) {
        return { allowed: false, limit: opts.limit, remaining: 0, resetSeconds };
      }
      w.count += 1;
      return { allowed: true, limit: opts.limit, remaining: opts.limit - w.count, resetSeconds };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
